#!/usr/bin/env bash
# Build the wheel that users install, dist/countermix-<version>-py3-none-any.whl (or into the
# folder given), from the files git tracks (and new files it does not ignore), copied into a
# temporary folder first: setuptools' scratch folders stay out of the checkout's build/, which
# holds countermix's outputs. PYTHON picks the interpreter (default python3).
# Usage: scripts/wheel.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(realpath -m "${1:-dist}")"
python="${PYTHON:-python3}"
src="$(mktemp -d)"
trap 'rm -rf "$src"' EXIT
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' name; do
    if [ -f "$name" ]; then
        mkdir -p "$src/$(dirname "$name")"
        cp -p "$name" "$src/$name"
    fi
done
mkdir -p "$out"
"$python" -m pip wheel --no-deps --disable-pip-version-check --wheel-dir "$out" "$src"
ls "$out"/countermix-*.whl
