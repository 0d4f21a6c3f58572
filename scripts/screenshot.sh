#!/usr/bin/env bash
# Retake the README's screenshot: build a game's module, open it in VASSAL 3.6 under Xvfb, start
# its first scenario and capture the player window.
# Usage: scripts/screenshot.sh [GAME] [OUTPUT.png]   (default: napoleon, docs/images/vassal-<game>.png)
set -euo pipefail
cd "$(dirname "$0")/.."
game="${1:-napoleon}"
out="${2:-docs/images/vassal-$game.png}"
scripts/setup.sh test >/dev/null
scripts/install-vassal.sh >/dev/null
.venv/bin/countermix build "$game" >/dev/null
.venv/bin/python -m tests.vassal_harness.run "build/$game/$game.vmod" --screenshot "$out" >/dev/null
echo "wrote $out"
