#!/usr/bin/env bash
# The main job: set up, then check every game in sources/ against its rules and build each
# into build/<game>/ (a VASSAL module; nothing is written for a game whose data has errors).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/countermix build
