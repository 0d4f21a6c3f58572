#!/usr/bin/env bash
# Set up with the test tools, then lint (ruff), type-check (mypy --strict) and run the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
.venv/bin/ruff check compiler tests bench scripts
.venv/bin/ruff format --check compiler tests bench scripts
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
