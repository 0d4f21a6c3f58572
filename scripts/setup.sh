#!/usr/bin/env bash
# Create .venv (if missing) and install countermix into it, with the test tools when asked.
# Usage: scripts/setup.sh [test]
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "${1:-}" = "test" ]; then
    .venv/bin/python -m pip install --quiet -e '.[test]'
else
    .venv/bin/python -m pip install --quiet -e .
fi
