#!/usr/bin/env bash
# Set up with the test tools and VASSAL's engine, then lint (ruff), type-check (mypy --strict)
# and run the tests (the VASSAL engine test included).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
scripts/install-vassal.sh >/dev/null   # VASSAL 3.6 engine, its Debian libraries, Xvfb (idempotent)
.venv/bin/ruff check compiler tests bench scripts
.venv/bin/ruff format --check compiler tests bench scripts
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
