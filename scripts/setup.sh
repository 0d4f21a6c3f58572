#!/usr/bin/env bash
# Create .venv (if missing) and install countermix into it, with the test tools when asked;
# install the fonts the renderer needs (DejaVu, and IPAex Gothic for Japanese) from Debian.
# Usage: scripts/setup.sh [test]
set -euo pipefail
cd "$(dirname "$0")/.."

FONTS=(fonts-dejavu-core fonts-ipaexfont-gothic)
# the tests render PDFs with poppler to compare them with the PNGs, and open the preview
# page in headless Chromium (tests/test_preview_browser.py)
if [ "${1:-}" = "test" ]; then FONTS+=(poppler-utils chromium chromium-driver); fi
missing=()
for pkg in "${FONTS[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$pkg")
    fi
done
if ((${#missing[@]})); then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    echo "setup: apt-get install ${missing[*]}" >&2
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >&2
fi

python3 -m venv .venv
# pip's own notes (index locations, the editable-install notice) go to a log, shown on failure.
log=.venv/setup.log
pip_install() {
    if ! .venv/bin/python -m pip install --disable-pip-version-check "$@" >>"$log" 2>&1; then
        cat "$log" >&2
        echo "setup: pip install $* failed (log: $log)" >&2
        exit 1
    fi
}
: >"$log"
pip_install --upgrade pip
if [ "${1:-}" = "test" ]; then
    pip_install -e '.[test]'
else
    pip_install -e .
fi
