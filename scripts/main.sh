#!/usr/bin/env bash
# The main job: set up, then check every game in sources/ against its rules.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/countermix validate
