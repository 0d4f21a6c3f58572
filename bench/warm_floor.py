"""The floor of a rebuild after one unit changed: the same work done with plain libraries.

What any tool must do when one unit of a game changed, and nothing more clever than that:
parse the game's YAML files (PyYAML's C loader), draw the changed unit's face once (Pillow,
supersampled as countermix draws, PNG-encoded) and write the game's output files again, the
same bytes as the build wrote (read from the last build's folder and written to a new one).
It does not validate, lay out, key caches or compare anything. Run as a process by
bench.bench_warm, so its whole-process figure (interpreter start and imports included) stands
beside countermix's:

    python -m bench.warm_floor GAME_FOLDER OUTPUTS SCRATCH FONT

prints one line of JSON: the seconds each step took in the process.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
import time
from pathlib import Path

import yaml
from PIL import Image, ImageDraw, ImageFont

FACE_PIXELS = 64
"""A counter face's side in the module (countermix's PIECE_SIZE)."""
SUPERSAMPLE = 4
"""Shapes drawn this many times larger, then scaled down (as countermix draws faces)."""


def parse(folder: Path) -> int:
    """Every YAML file of the game read with the C loader; how many."""
    files = sorted(folder.rglob("*.yaml"))
    for path in files:
        with path.open("rb") as handle:
            yaml.load(handle, Loader=yaml.CSafeLoader)
    return len(files)


def draw_face(font_path: str) -> bytes:
    """One counter face: a coloured box, a unit symbol, the name and the values, as PNG."""
    side = FACE_PIXELS * SUPERSAMPLE
    image = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((4, 4, side - 4, side - 4), 12, fill=(196, 210, 160, 255))
    symbol = (side // 4, side // 4, 3 * side // 4, side // 2)
    draw.rectangle(symbol, outline=(0, 0, 0, 255), width=8)
    draw.line(symbol, fill=(0, 0, 0, 255), width=8)
    name = ImageFont.truetype(font_path, side // 8)
    values = ImageFont.truetype(font_path, side // 5)
    draw.text((side // 2, side // 8), "Unit 12", font=name, fill=(0, 0, 0, 255), anchor="mm")
    draw.text((side // 2, 4 * side // 5), "4-4-6", font=values, fill=(0, 0, 0, 255), anchor="mm")
    small = image.resize((FACE_PIXELS, FACE_PIXELS), Image.Resampling.LANCZOS)
    encoded = io.BytesIO()
    small.save(encoded, format="PNG")
    return encoded.getvalue()


def write_outputs(outputs: Path, scratch: Path) -> int:
    """Every file of the last build's output folder written again into a new folder (the
    same bytes, each file read and written); how many bytes."""
    target = scratch / "outputs"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    total = 0
    for path in sorted(outputs.iterdir()):
        if path.is_file():
            data = path.read_bytes()
            (target / path.name).write_bytes(data)
            total += len(data)
    return total


def main() -> int:
    game, outputs, scratch = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    font = sys.argv[4]
    times: dict[str, float] = {}
    mark = time.perf_counter()
    for name, step in (
        ("parse", lambda: parse(game)),
        ("face", lambda: draw_face(font)),
        ("write", lambda: write_outputs(outputs, scratch)),
    ):
        step()
        now = time.perf_counter()
        times[name] = now - mark
        mark = now
    sys.stdout.write(json.dumps(times) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
