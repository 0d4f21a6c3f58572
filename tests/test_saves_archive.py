"""The set-up saves' archive: laid out as zipfile writes it, savedGame deflated run by run."""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path

from compiler.backends.vassal import encode as enc
from compiler.backends.vassal.piececache import PieceTexts
from compiler.backends.vassal.saves import ZIP_DATE, _deflated_whole, _saved_stream, zip_of


def _zipfile_bytes(files: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files:
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, content)
    return buffer.getvalue()


def test_zip_of_is_what_zipfile_writes() -> None:
    files = [
        ("savedGame", b"begin_save\x1bpiece" * 500),
        ("savedata", b""),
        ("moduledata", bytes(range(256)) * 40),
    ]
    assert zip_of([(name, _deflated_whole(data)) for name, data in files]) == _zipfile_bytes(files)


RUNS = [["begin_save", "it's"], ["a\\b", "c\x1bd"], ["end_save"]]


def test_saved_stream_inflates_to_the_joined_commands() -> None:
    saved = _saved_stream(PieceTexts(), ["", "", ""], RUNS)
    text = enc.join([command for run in RUNS for command in run], enc.ESC).encode("utf-8")
    assert zlib.decompress(saved.data, -15) == text
    assert (saved.crc, saved.size) == (zlib.crc32(text), len(text))
    archive = zipfile.ZipFile(io.BytesIO(zip_of([("savedGame", saved)])))
    assert archive.testzip() is None
    assert archive.read("savedGame") == text


def test_saved_stream_kept_is_the_one_made_and_a_damaged_part_is_made_again(
    tmp_path: Path,
) -> None:
    pack = tmp_path / "pieces.pack"
    keys = ["run-a", "run-b", "run-c"]
    made = PieceTexts(pack, "game")
    cold = _saved_stream(made, keys, RUNS)
    made.save()
    assert _saved_stream(PieceTexts(pack, "game"), keys, RUNS) == cold
    data = bytearray(pack.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one part's bytes damaged: its CRC-32 no longer matches
    pack.write_bytes(bytes(data))
    assert _saved_stream(PieceTexts(pack, "game"), keys, RUNS) == cold
