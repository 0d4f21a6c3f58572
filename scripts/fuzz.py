"""Fuzz `countermix validate`: random byte, YAML and file-system mutations of the seed games.

Every case copies one game — a seed game under sources/, or a game `countermix new` writes (each
map kind, plain and as a series) — into a temporary folder, mutates one of its files (sometimes
two), and runs the real entry points on it: `check_game(folder, build_lang="")` (which also
lays out every face) and `countermix validate <folder>`. The mutations come in four families:

* byte: flip, overwrite, insert or delete bytes, truncate, insert NUL, control characters,
  invalid UTF-8 or a BOM, re-encode (UTF-16, Shift_JIS ...), copy a chunk, change line ends;
* yaml: delete, duplicate or swap lines, change indentation, remove, duplicate or rename a key,
  replace a value with another type (a list, a mapping, a huge number, .nan, -1, "", a long
  string, a tag such as !!python/object, an alias bomb), anchors and aliases (a cycle too),
  `<<` merge keys, document markers, a whole file replaced (empty, a scalar, deep nesting ...);
* value: mostly valid YAML, so that the rules and the face layout see it: a value replaced,
  an id changed into another existing id, a number made nearly or wildly different;
* fs: the file replaced by a FIFO, a symlink to a device, outside the folder or nowhere, a
  folder, a sparse file over the size cap; files with odd names; a folder symlink loop; the
  game's own player-aids template or own layouts (the shipped ones, mutated); print settings.

The case passes when

* nothing raises (a traceback is a failure, and so is a warning: the tests make warnings errors),
* each entry point finishes within the time bound (a hang is reported with where it hung),
* every finding (and each of its related places) names a file that exists inside the game
  folder or the shipped templates, at line ≥ 1 and column ≥ 1, and at a line no further than one
  past the file's last line; only FOLDER_RULES may name a folder, where line and column carry no
  meaning,
* the rendered text (render_text, and all the command prints) holds no raw control character
  but newline and tab (render_text keeps tabs to align its caret under a tab-indented line),
* `validate` exits 1 exactly when check_game found errors (else 0) and writes nothing to stderr.

Each case runs in a forked child process with a memory cap, so a hang in C code, a crash or a
runaway allocation is a reported failure rather than the end of the run.

    python -m scripts.fuzz --minutes 10 [--seed N] [--jobs 2] [--bound 10] [--game gcacw]
    python -m scripts.fuzz --replay gcacw:123456     # rerun one case; its folder is kept

The long run prints progress, the full report of the first case of each distinct failure (the
case, the mutations, a diff, the traceback or the finding) and keeps failing game folders (three
per distinct failure) under --keep for reproduction. It exits 1 if anything failed.
tests/test_fuzz.py runs a short deterministic part of this for CI.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import difflib
import errno
import faulthandler
import functools
import io
import json
import os
import random
import re
import resource
import select
import shutil
import signal
import stat
import sys
import tempfile
import time
import traceback
import unicodedata
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import NoReturn

from compiler.cli import main as cli_main
from compiler.diagnostics import Finding, Location, render_text
from compiler.load.aids import TEMPLATE_NAME
from compiler.load.game import data_files
from compiler.newgame import MAP_KINDS, write_game
from compiler.pipeline import check_game
from compiler.regularfile import MAX_FILE_BYTES
from compiler.resources import templates_dir

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "sources"

DEFAULT_BOUND = 10.0
"""Seconds each entry point may take on one mutated game. An unmutated seed game takes at most
0.2 s for check_game on this machine (gcacw, the biggest, laid out face by face); the bound is
fifty times that, so only a real hang or a blow-up trips it."""

MEMORY_HEADROOM = 2 << 30
"""Address space a case may add to what the process had when it forked (a runaway allocation
becomes a MemoryError, reported, instead of the machine swapping)."""

FOLDER_RULES = frozenset({"file-unreadable"})
"""Rules that may name a folder instead of a file: a game folder with no data files in it, or
one that cannot be listed. Line and column say nothing about a folder, so they may be 0 or 1.
Every other finding is about a file's content and names a file, at line ≥ 1 and column ≥ 1."""

ALLOWED_CONTROLS = frozenset("\n\t")
"""Control characters render_text and the command may print: newlines, and tabs (render_text
copies a source line's tabs into its caret line so the caret lands under the right column)."""


# ---------------------------------------------------------------------------------------------
# The corpus: the games to mutate


@dataclass(frozen=True)
class SeedGame:
    """One unmutated game: its folder, its data files, its ids and its keys (to mutate with)."""

    name: str
    folder: Path
    files: tuple[str, ...]
    ids: tuple[str, ...]
    keys: tuple[str, ...]


_ID = re.compile(rb"(?:^|[{,\s])id:[ ]*[\"']?([^\"'#,{}\[\]\s]+)", re.MULTILINE)
_KEY = re.compile(rb"^[ ]*(?:- +)*([A-Za-z_][\w-]*):", re.MULTILINE)


def _seed_game(name: str, folder: Path) -> SeedGame:
    paths = data_files(folder)
    ids: set[bytes] = set()
    keys: set[bytes] = set()
    for path in paths:
        data = path.read_bytes()
        ids.update(_ID.findall(data))
        keys.update(_KEY.findall(data))
    return SeedGame(
        name=name,
        folder=folder,
        files=tuple(path.relative_to(folder).as_posix() for path in paths),
        ids=tuple(sorted(i.decode("utf-8", "replace") for i in ids)),
        keys=tuple(sorted(k.decode("utf-8", "replace") for k in keys)),
    )


def seed_game_names() -> list[str]:
    """The games a run mutates: sources/*, then new-<kind> and new-<kind>-series."""
    sources = sorted(p.name for p in SOURCES.iterdir() if p.is_dir() and p.name[:1] != ".")
    new = [f"new-{kind}{suffix}" for kind in MAP_KINDS for suffix in ("", "-series")]
    return sources + new


class Corpus:
    """The seed games (the `countermix new` ones written into `workdir`), checked clean."""

    def __init__(self, workdir: Path) -> None:
        self.games: dict[str, SeedGame] = {}
        for name in seed_game_names():
            if name.startswith("new-"):
                kind = name.removeprefix("new-").removesuffix("-series")
                folder = workdir / name
                write_game(folder, kind, series=name.endswith("-series"))
            else:
                folder = SOURCES / name
            self.games[name] = _seed_game(name, folder)

    def warm_up(self) -> None:
        """Run every unmutated game once (a baseline, and the lazy imports, font lookups and
        caches the forked cases then share); an unmutated game must pass every check."""
        for game in self.games.values():
            result = _checks(game.folder, DEFAULT_BOUND * 3)
            if result.problems:
                details = "\n".join(p.detail for p in result.problems)
                raise RuntimeError(f"the unmutated game {game.name} fails:\n{details}")


# ---------------------------------------------------------------------------------------------
# Mutations. A content mutator takes a file's bytes and returns the new bytes and what it did
# (None when it does not apply to this file); a file-system mutator changes the file in place.

Mutator = Callable[[bytes, random.Random, SeedGame], tuple[bytes, str] | None]
FsMutator = Callable[[Path, random.Random, SeedGame, Path], str]
"""(the file, rng, the game, the mutated game's folder) → what it did."""


def _offset(data: bytes, rng: random.Random) -> int:
    return rng.randint(0, len(data))


def _show(data: bytes | str, limit: int = 60) -> str:
    """A short, printable rendering of a fragment (control characters escaped)."""
    text = data.decode("utf-8", "backslashreplace") if isinstance(data, bytes) else data
    shown = _escape(text)
    return shown if len(shown) <= limit else f"{shown[:limit]}…({len(text)} chars)"


def _printable(text: str) -> str:
    """Text safe to print and to save: control characters but newlines, and lone surrogates
    (from undecodable file names), escaped."""
    return "".join(
        ch if ch == "\n" or unicodedata.category(ch) not in ("Cc", "Cs") else _escape(ch)
        for ch in text
    )


def _escape(text: str) -> str:
    return "".join(
        ch
        if ch == " " or unicodedata.category(ch)[0] not in "CZ"
        else ch.encode("unicode_escape").decode()
        for ch in text
    )


# -- byte level --------------------------------------------------------------------------------


def flip_bits(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    if not data:
        return None
    out = bytearray(data)
    where = []
    for _ in range(rng.choice((1, 1, 2, 4, 8))):
        at = rng.randrange(len(out))
        out[at] ^= 1 << rng.randrange(8)
        where.append(at)
    return bytes(out), f"flip bits at byte(s) {sorted(where)}"


def set_bytes(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    if not data:
        return None
    at = rng.randrange(len(data))
    new = rng.randbytes(rng.randint(1, 8))
    return data[:at] + new + data[at + len(new) :], f"overwrite at byte {at} with {new!r}"


def insert_bytes(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    at = _offset(data, rng)
    new = rng.randbytes(rng.randint(1, 16))
    return data[:at] + new + data[at:], f"insert {new!r} at byte {at}"


def delete_bytes(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    if not data:
        return None
    at = rng.randrange(len(data))
    size = rng.choice((1, 1, 2, 8, 64, 512))
    return data[:at] + data[at + size :], f"delete {size} byte(s) at byte {at}"


def truncate(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    at = _offset(data, rng)
    return data[:at], f"truncate to {at} of {len(data)} bytes"


def insert_nul(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    at = _offset(data, rng)
    return data[:at] + b"\x00" + data[at:], f"insert NUL at byte {at}"


CONTROLS: tuple[bytes, ...] = (
    *(bytes([c]) for c in range(32) if c not in (0, 10)),
    b"\x7f",
    "\x85".encode(),  # NEL: a YAML line break
    "\u2028".encode(),  # LINE SEPARATOR: a YAML line break
    "\u2029".encode(),
    "\u202e".encode(),  # RIGHT-TO-LEFT OVERRIDE
    "\u200b".encode(),
    "\ufeff".encode(),  # a BOM in the middle of the text
    b"\x1b[2J\x1b[31m",  # terminal escape sequences
    b"\r\n",
)


def insert_control(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    at = _offset(data, rng)
    new = rng.choice(CONTROLS)
    return data[:at] + new + data[at:], f"insert control {new!r} at byte {at}"


INVALID_UTF8: tuple[bytes, ...] = (
    b"\xff",
    b"\xfe",
    b"\x80",
    b"\xc3",  # a lead byte with no continuation
    b"\xc0\xaf",  # overlong
    b"\xed\xa0\x80",  # a UTF-16 surrogate
    b"\xf4\x90\x80\x80",  # beyond U+10FFFF
    b"\xe3\x81",  # a truncated Japanese character
)


def insert_invalid_utf8(
    data: bytes, rng: random.Random, game: SeedGame
) -> tuple[bytes, str] | None:
    at = _offset(data, rng)
    new = rng.choice(INVALID_UTF8)
    return data[:at] + new + data[at:], f"insert invalid UTF-8 {new!r} at byte {at}"


def insert_bom(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    bom = rng.choice((b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"))
    at = 0 if rng.random() < 0.6 else _offset(data, rng)
    return data[:at] + bom + data[at:], f"insert BOM {bom!r} at byte {at}"


def reencode(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    codec = rng.choice(("utf-16", "utf-16-le", "utf-32", "shift_jis", "euc_jp", "latin-1"))
    return text.encode(codec, "replace"), f"re-encode the file as {codec}"


def duplicate_chunk(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    if not data:
        return None
    start = rng.randrange(len(data))
    chunk = data[start : start + rng.choice((4, 32, 256, 4096))]
    times = rng.choice((1, 1, 2, 100))
    at = _offset(data, rng)
    return (
        data[:at] + chunk * times + data[at:],
        f"copy {len(chunk)} bytes from byte {start} to byte {at}"
        + (f" x{times}" if times > 1 else ""),
    )


def line_ends(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    new = rng.choice((b"\r\n", b"\r", b"\n\n", b"\x85", b"\n\r"))
    return data.replace(b"\n", new), f"line ends \\n -> {new!r}"


BYTE_MUTATORS: dict[str, Mutator] = {
    "flip-bits": flip_bits,
    "set-bytes": set_bytes,
    "insert-bytes": insert_bytes,
    "delete-bytes": delete_bytes,
    "truncate": truncate,
    "insert-nul": insert_nul,
    "insert-control": insert_control,
    "insert-invalid-utf8": insert_invalid_utf8,
    "insert-bom": insert_bom,
    "reencode": reencode,
    "duplicate-chunk": duplicate_chunk,
    "line-ends": line_ends,
}


# -- YAML aware (line based, so the rest of the file stays as it was) -------------------------


_KEY_LINE = re.compile(rb"^(?P<lead>[ ]*(?:- +)*)(?P<key>[A-Za-z_][\w.-]*|<<)[ ]*:(?P<rest>.*)$")
_ITEM_LINE = re.compile(rb"^(?P<lead>[ ]*(?:- +)+)(?P<value>[^#\s].*)$")


@dataclass(frozen=True)
class KeyLine:
    index: int
    lead: bytes  # indentation and list dashes
    key: bytes
    rest: bytes  # after the colon (value, comment), no line end
    end: bytes  # the line end

    @property
    def column(self) -> int:
        return len(self.lead)

    @property
    def opens_block(self) -> bool:
        rest = self.rest.strip()
        return not rest or rest.startswith(b"#") or rest.startswith(b"&")


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) if data else []


def _split_end(line: bytes) -> tuple[bytes, bytes]:
    body = line.rstrip(b"\r\n")
    return body, line[len(body) :]


def _key_lines(lines: Sequence[bytes]) -> list[KeyLine]:
    found = []
    for index, line in enumerate(lines):
        body, end = _split_end(line)
        match = _KEY_LINE.match(body)
        if match:
            found.append(KeyLine(index, match["lead"], match["key"], match["rest"], end or b"\n"))
    return found


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" "))


def _block_end(lines: Sequence[bytes], key: KeyLine) -> int:
    """The index after the key's line and the lines nested under it."""
    end = key.index + 1
    probe = end
    while probe < len(lines):
        stripped = lines[probe].strip()
        if not stripped or stripped.startswith(b"#"):
            probe += 1
            continue
        indent = _indent(lines[probe])
        nested_list = key.opens_block and indent == key.column and stripped[:1] == b"-"
        if indent > key.column or nested_list:
            probe += 1
            end = probe
            continue
        break
    return end


def _sibling_lead(key: KeyLine) -> bytes:
    """The indentation of a key in the same mapping (list dashes become spaces)."""
    return b" " * key.column


def _pick_key(lines: Sequence[bytes], rng: random.Random) -> KeyLine | None:
    keys = _key_lines(lines)
    return rng.choice(keys) if keys else None


def delete_line(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    lines = _lines(data)
    if not lines:
        return None
    at = rng.randrange(len(lines))
    gone = lines.pop(at)
    return b"".join(lines), f"delete line {at + 1} {_show(gone)}"


def duplicate_line(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    lines = _lines(data)
    if not lines:
        return None
    at = rng.randrange(len(lines))
    lines.insert(at, lines[at] if lines[at].endswith(b"\n") else lines[at] + b"\n")
    return b"".join(lines), f"duplicate line {at + 1} {_show(lines[at])}"


def swap_lines(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    lines = _lines(data)
    if len(lines) < 2:
        return None
    first = rng.randrange(len(lines) - 1)
    second = first + 1 if rng.random() < 0.5 else rng.randrange(len(lines))
    if not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n"
    lines[first], lines[second] = lines[second], lines[first]
    return b"".join(lines), f"swap lines {first + 1} and {second + 1}"


def reindent(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    lines = _lines(data)
    key = _pick_key(lines, rng)
    if key is None:
        return None
    end = _block_end(lines, key) if rng.random() < 0.5 else key.index + 1
    delta = rng.choice((-4, -2, -1, 1, 2, 4, 0))
    for at in range(key.index, end):
        line = lines[at]
        if delta == 0:  # a tab in the indentation (YAML forbids it)
            lines[at] = b"\t" + line[1:] if line.startswith(b" ") else b"\t" + line
        elif delta > 0:
            lines[at] = b" " * delta + line
        else:
            lines[at] = line[min(-delta, _indent(line)) :]
    how = "tab-indent" if delta == 0 else f"indent by {delta:+d}"
    return b"".join(lines), f"{how} lines {key.index + 1}-{end} (`{_show(key.key)}`)"


def remove_key(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    lines = _lines(data)
    key = _pick_key(lines, rng)
    if key is None:
        return None
    end = _block_end(lines, key)
    dash = key.lead.rstrip()
    keep = [dash + key.end] if dash.endswith(b"-") else []  # `- id: x` → `-` (the item stays)
    lines[key.index : end] = keep
    return b"".join(lines), f"remove key `{_show(key.key)}` (lines {key.index + 1}-{end})"


def duplicate_key(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    lines = _lines(data)
    key = _pick_key(lines, rng)
    if key is None:
        return None
    end = _block_end(lines, key)
    first = _sibling_lead(key) + lines[key.index][len(key.lead) :]
    copy = [first, *lines[key.index + 1 : end]]
    if not copy[-1].endswith(b"\n"):
        copy[-1] += b"\n"
    if not lines[end - 1].endswith(b"\n"):
        lines[end - 1] += b"\n"
    lines[end:end] = copy
    return b"".join(lines), f"duplicate key `{_show(key.key)}` (lines {key.index + 1}-{end})"


ODD_KEYS: tuple[str, ...] = (
    "[a, b]",
    "{a: 1}",
    "? x",
    '""',
    "1",
    "null",
    "true",
    "1.5",
    "ID",
    "id ",
    "ｉｄ",
    '"\\x1b[31mkey"',
    "k" * 300,
)


def rename_key(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    lines = _lines(data)
    key = _pick_key(lines, rng)
    if key is None:
        return None
    old = key.key.decode("utf-8", "replace")
    roll = rng.random()
    if roll < 0.35 and len(old) > 1:  # a typo: drop, double or swap one character
        at = rng.randrange(len(old) - 1)
        new = rng.choice(
            (
                old[:at] + old[at + 1 :],
                old[:at] + old[at] + old[at:],
                old[:at] + old[at + 1] + old[at] + old[at + 2 :],
            )
        )
    elif roll < 0.7 and game.keys:
        new = rng.choice(game.keys)
    else:
        new = rng.choice(ODD_KEYS)
    lines[key.index] = key.lead + new.encode() + b":" + key.rest + key.end
    return b"".join(lines), f"rename key `{_show(old)}` -> `{_show(new)}` (line {key.index + 1})"


def _alias_bomb(depth: int) -> str:
    parts = ["&l0 [x, x, x, x, x, x, x, x, x, x]"]
    parts += [f"&l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, depth)]
    return "[" + ", ".join(parts) + "]"


NUMBERS = tuple(
    "0 -1 -0 1 1e400 -1e400 .nan .NaN .inf -.inf 99999999999999999999999999999 1e308 4294967296"
    " -9223372036854775809 0x7fffffff 0o777 0b101 1_000 1:30 3.14159 1e-300 +5 007 1e9 1.".split()
)
EMPTIES = tuple('true|false|yes|no|on|off|null|~||NULL|""|\'\'|"   "|[]|{}'.split("|"))
CONTAINERS = (
    *"[1, 2, 3]|{a: 1}|[[1]]|{id: x}|[null]|{[1, 2]: x}|{{a: 1}: b}|[a, [b, [c]]]".split("|"),
    "{x: {y: {z: 1}}}",
    "[" * 200 + "]" * 200,
)
TAGS = tuple(
    "!!python/object/apply:os.system ['true']|!!python/name:os.system|!!binary aGVsbG8="
    "|!!python/object:builtins.dict {}|!!set {a, b}|!!omap [a: 1]|!!timestamp 2001-12-14"
    "|!!int x|!!float abc|!custom 3|!<tag:yaml.org,2002:str> 5|!!str 5|!!null ''|!!bool yes"
    "|!!merge x|!!map [1]|!!seq {a: 1}".split("|")
)
STRINGS = (
    *"2024-01-01 2024-01-01T00:00:00Z ../../../../etc/passwd /dev/zero /etc/passwd / . board.png"
    " nul.png #ff00zz #FFF red @x `x` %x *undefined | >- 名前 😀 １２".split(),
    *("a: b", "'a: b'", "? x", "- x", "&only 1", "'\t'"),
    *(f'"{e}"' for e in r"\u202eevil a\u0301 \u200b \x1b[31mred\e[0m \0 \x85 \u2028".split()),
    *(f'"{e}"' for e in r"\uD800 \t\r\n \x7f\x9b".split()),
    "x" * 1000,
    "x" * 100_000,
    "日本" * 5000,
)


def _alias_bombs() -> tuple[str, ...]:
    return (_alias_bomb(9), _alias_bomb(5))


def _replacements(rng: random.Random, game: SeedGame) -> str:
    """A YAML value (one line) of a different type, size or meaning than the one it replaces."""
    if game.ids and rng.random() < 0.2:
        some = rng.sample(game.ids, min(3, len(game.ids)))
        return rng.choice((rng.choice(game.ids), f"[{', '.join(some)}]"))
    pools = (NUMBERS, EMPTIES, CONTAINERS, TAGS, STRINGS, _alias_bombs())
    return rng.choice(rng.choice(pools))


def replace_value(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    lines = _lines(data)
    key = _pick_key(lines, rng)
    if key is None:
        return None
    new = _replacements(rng, game)
    end = _block_end(lines, key) if key.opens_block else key.index + 1
    replaced = key.lead + key.key + b": " + new.encode() + key.end
    if new in ("|", ">-"):
        replaced += b" " * (key.column + 2) + b"block text\n"
    lines[key.index : end] = [replaced]
    return (
        b"".join(lines),
        f"replace the value of `{_show(key.key)}` (line {key.index + 1}) with `{_show(new)}`",
    )


def replace_item(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    lines = _lines(data)
    items = []
    for index, line in enumerate(lines):
        body, end = _split_end(line)
        match = _ITEM_LINE.match(body)
        if match and not _KEY_LINE.match(body):
            items.append((index, match["lead"], end or b"\n"))
    if not items:
        return None
    index, lead, end = rng.choice(items)
    new = _replacements(rng, game)
    lines[index] = lead + new.encode() + end
    return b"".join(lines), f"replace list item on line {index + 1} with `{_show(new)}`"


def _id_spans(data: bytes, ids: Sequence[str]) -> list[tuple[int, int, str]]:
    """Where ids occur as whole words in data (defined or referred to)."""
    words = b"|".join(re.escape(i.encode()) for i in sorted(ids, key=len, reverse=True))
    pattern = re.compile(rb"(?<![\w.-])(?:" + words + rb")(?![\w.-])")
    return [(m.start(), m.end(), m[0].decode()) for m in pattern.finditer(data)]


def change_id(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    if len(game.ids) < 2:
        return None
    spans = _id_spans(data, game.ids)
    if not spans:
        return None
    start, end, old = rng.choice(spans)
    new = rng.choice([i for i in game.ids if i != old])
    line = data.count(b"\n", 0, start) + 1
    return data[:start] + new.encode() + data[end:], f"change id `{old}` -> `{new}` (line {line})"


def anchor_alias(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    lines = _lines(data)
    keys = _key_lines(lines)
    if len(keys) < 2:
        return None
    anchored, aliased = rng.sample(keys, 2)
    if rng.random() < 0.15:
        aliased = anchored  # an alias inside its own anchor: a cycle
    name = b"fz"
    rest = anchored.rest.lstrip()
    lines[anchored.index] = (
        anchored.lead + anchored.key + b": &" + name + b" " + rest + anchored.end
    )
    if aliased is anchored:
        lines[anchored.index] = anchored.lead + anchored.key + b": &fz [*fz]" + anchored.end
        end = _block_end(lines, anchored) if anchored.opens_block else anchored.index + 1
        del lines[anchored.index + 1 : end]
        return b"".join(
            lines
        ), f"make `{_show(anchored.key)}` (line {anchored.index + 1}) `&fz [*fz]`"
    end = _block_end(lines, aliased) if aliased.opens_block else aliased.index + 1
    lines[aliased.index : end] = [aliased.lead + aliased.key + b": *" + name + aliased.end]
    return (
        b"".join(lines),
        f"anchor `{_show(anchored.key)}` (line {anchored.index + 1}) as &fz, "
        f"alias it as the value of `{_show(aliased.key)}` (line {aliased.index + 1})",
    )


def merge_key(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    lines = _lines(data)
    keys = _key_lines(lines)
    if not keys:
        return None
    target = rng.choice(keys)
    blocks = [k for k in keys if k.opens_block and k.index < target.index]
    value = rng.choice(("{extra: 1}", "[{a: 1}, {b: 2}]", "5", "*undefined", "~", "*fz", "*fz"))
    note = ""
    if value == "*fz":
        if not blocks:
            value = "{extra: 1}"
        else:
            source = rng.choice(blocks)
            lines[source.index] = source.lead + source.key + b": &fz" + source.end
            note = f", the anchor on `{_show(source.key)}` (line {source.index + 1})"
    end = _block_end(lines, target)
    if not lines[end - 1].endswith(b"\n"):
        lines[end - 1] += b"\n"
    lines.insert(end, _sibling_lead(target) + b"<<: " + value.encode() + b"\n")
    return b"".join(lines), f"insert `<<: {value}` after line {end}{note}"


def document_markers(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    choice = rng.choice(
        (
            ("prepend", b"%YAML 1.1\n---\n"),
            ("prepend", b"%YAML 2.0\n---\n"),
            ("prepend", b"%TAG ! tag:example.com,2000:\n---\n"),
            ("prepend", b"---\n"),
            ("append", b"\n...\n"),
            ("append", b"\n---\nextra: 1\n"),
            ("append", b"\n---\n"),
            ("middle", b"---\n"),
            ("middle", b"...\n"),
        )
    )
    where, text = choice
    if where == "prepend":
        return text + data, f"prepend {text!r}"
    if where == "append":
        return data + text, f"append {text!r}"
    lines = _lines(data)
    at = rng.randint(0, len(lines))
    lines.insert(at, text)
    return b"".join(lines), f"insert {text!r} before line {at + 1}"


WHOLE_FILES: tuple[bytes, ...] = (
    b"",
    b"\n",
    b"   \n\n",
    b"# only a comment\n",
    b"---\n",
    b"...\n",
    b"~\n",
    b"null\n",
    b"[]\n",
    b"{}\n",
    b"42\n",
    b"just text\n",
    b"- a\n- b\n",
    b"game:\n",
    b"game: null\n",
    b"game: []\n",
    b"units: {}\n",
    b"units: [1, 2]\n",
    b"units:\n  - null\n",
    b"units:\n  - {}\n",
    b"key: [\n",
    b"{\n",
    b'"unterminated\n',
    b"\t- tab\n",
    b"x: " + _alias_bomb(9).encode() + b"\n",
    b"[" * 50_000,
    b"[" * 5_000 + b"]" * 5_000 + b"\n",
    b"- " * 5_000 + b"x\n",
    b"".join(b" " * i + b"a:\n" for i in range(2_000)) + b" " * 2_000 + b"b: 1\n",
    b"a: &a [*a]\n",
    b"a: " + b"x" * 20_000_000 + b"\n",  # just over the size limit
)


def whole_file(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    new = rng.choice(WHOLE_FILES)
    return new, f"replace the whole file with {_show(new)}"


_NUMBER = re.compile(rb"(?<=[:\[,] )-?\d+(?:\.\d+)?(?=[ ,\]}\r\n]|$)", re.MULTILINE)


def tweak_number(data: bytes, rng: random.Random, game: SeedGame) -> tuple[bytes, str] | None:
    """A number to a near or an extreme one: what the rules' limits are about."""
    spans = [m.span() for m in _NUMBER.finditer(data)]
    if not spans:
        return None
    start, end = rng.choice(spans)
    old = float(data[start:end])
    new = rng.choice(
        (old + 1, old - 1, 0, -old, old * 10, old + 0.5, 1e6, 10**12, 2**31, 2**63, 1e-9)
    )
    text = f"{new:g}" if isinstance(new, float) and not new.is_integer() else str(int(new))
    line = data.count(b"\n", 0, start) + 1
    return (
        data[:start] + text.encode() + data[end:],
        f"number {data[start:end].decode()} -> {text} (line {line})",
    )


YAML_MUTATORS: dict[str, Mutator] = {
    "delete-line": delete_line,
    "duplicate-line": duplicate_line,
    "swap-lines": swap_lines,
    "reindent": reindent,
    "remove-key": remove_key,
    "duplicate-key": duplicate_key,
    "rename-key": rename_key,
    "replace-value": replace_value,
    "replace-item": replace_item,
    "change-id": change_id,
    "anchor-alias": anchor_alias,
    "merge-key": merge_key,
    "document-markers": document_markers,
    "whole-file": whole_file,
}


# -- file system -------------------------------------------------------------------------------


def _replace_with(path: Path, make: Callable[[Path], None]) -> None:
    path.unlink()
    make(path)


def fifo(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    _replace_with(path, os.mkfifo)
    return "replace it with a FIFO (named pipe)"


def dev_zero(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    target = rng.choice(("/dev/zero", "/dev/urandom", "/dev/null", "/dev/full"))
    _replace_with(path, lambda p: p.symlink_to(target))
    return f"replace it with a symlink to {target}"


def dangling_symlink(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    target = rng.choice(("missing.yaml", path.name, "/nonexistent/x.yaml"))
    _replace_with(path, lambda p: p.symlink_to(target))
    return f"replace it with a symlink to {target} (dangling or a loop)"


def outside_symlink(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    target = rng.choice(
        ("/etc/passwd", "/etc/hostname", str(ROOT / "pyproject.toml"), "/proc/self/status")
    )
    _replace_with(path, lambda p: p.symlink_to(target))
    return f"replace it with a symlink to {target}"


def directory(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    data = path.read_bytes()
    _replace_with(path, lambda p: p.mkdir())
    (path / "inner.yaml").write_bytes(data)
    return "replace it with a folder of the same name (holding the file as inner.yaml)"


def too_large(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    size = rng.choice((16 * 1024 * 1024 + 1, 1 << 40))
    with path.open("r+b") as handle:
        handle.truncate(size)
    return f"extend it (sparse) to {size} bytes"


def near_limit(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    data = path.read_bytes()
    filler = rng.choice((b"# comment\n", b"\n", b"  \n"))
    count = (15 * 1024 * 1024 - len(data)) // len(filler)
    path.write_bytes(data + filler * count)
    return f"pad it with {count} x {filler!r} to 15 MiB"


WEIRD_NAMES: tuple[bytes, ...] = (
    b"new\nline.yaml",
    b"esc\x1b[31m.yaml",
    b"bell\x07.yaml",
    b"bad\xff\xfe.yaml",
    b"-rf.yaml",
    b" space .yaml",
    b"\xe6\x97\xa5\xe6\x9c\xac.yaml",
    b"x" * 245 + b".yaml",
    b"UPPER.YAML",
    b"other.yml",
    b".hidden.yaml",
)


def extra_file(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    name = rng.choice(WEIRD_NAMES)
    content = rng.choice((path.read_bytes(), b"", b"units: []\n", b"\x00\x01binary"))
    with open(os.path.join(os.fsencode(path.parent), name), "wb") as handle:
        handle.write(content)
    what = "a copy of it" if content and content == path.read_bytes() else _show(content)
    return f"add a file named {name!r} next to it holding {what}"


def rename_file(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    name = rng.choice(WEIRD_NAMES)
    os.rename(path, os.path.join(os.fsencode(path.parent), name))
    return f"rename it to {name!r}"


def loop_folder(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    target = rng.choice((".", "..", "/", "/proc"))
    link = path.parent / f"loop{rng.randrange(10**6)}"
    link.symlink_to(target)
    return f"add a folder symlink `{link.name}` -> {target} next to it"


TEMPLATE_SNIPPETS: tuple[str, ...] = (
    "{{ 9 ** 9 ** 9 }}",
    "{% for i in range(10 ** 8) %}{% endfor %}",
    "{{ 'x' * 10 ** 9 }}",
    "{% macro r() %}{{ r() }}{% endmacro %}{{ r() }}",
    "{{ game.__class__.__mro__ }}",
    "{% include 'other.j2' %}",
    "{{ undefined_name }}",
    "{{ game.units[99999] }}",
    "{{ 1 / 0 }}",
    "{% if %}",
    "{{ '\\x1b[31m' }}",
    "{% raw %}",
    "charts: {{ '\\x00' }}",
)


def own_template(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    """Give the game its own player-aids template: the shared one, mutated or with a snippet."""
    shared = (templates_dir() / TEMPLATE_NAME).read_bytes()
    target = path.parent / TEMPLATE_NAME
    if rng.random() < 0.5:
        snippet = rng.choice(TEMPLATE_SNIPPETS)
        lines = _lines(shared)
        at = rng.randint(0, len(lines))
        lines.insert(at, snippet.encode() + b"\n")
        target.write_bytes(b"".join(lines))
        how = f"with `{snippet}` inserted before line {at + 1}"
    else:
        name = rng.choice(sorted(CONTENT_MUTATORS))
        result = CONTENT_MUTATORS[name](shared, rng, game)
        new, what = result if result is not None else (shared, "unchanged")
        target.write_bytes(new)
        how = f"{name}: {what}"
    return f"add its own {TEMPLATE_NAME} next to it: the shared one {how}"


def own_layouts(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    """Give the game its own layouts (they replace the shipped ones of the same id): the
    shipped layouts.yaml, mutated, so the face layout sees odd boxes, sizes and slots."""
    shipped = (templates_dir() / "layouts.yaml").read_bytes()
    family = rng.choice(("value", "value", "yaml"))
    target = root / "zz-layouts.yaml"
    target.write_bytes(shipped)
    how = _content_mutation(target, family, rng, game)
    return f"add zz-layouts.yaml, the shipped layouts.yaml with {how}"


PRINT_VALUES: dict[str, tuple[str, ...]] = {
    "counter_size": ("1/2in", "1in", "16mm", "0mm", "-1in", "1e9mm", ".nanmm", "infmm", "0.1mm"),
    "paper": ("A4", "Letter", "A0", "''"),
    "margin_mm": ("0", "-5", "150", "1e9", ".nan", ".inf"),
    "gutter_mm": ("0", "1.5", "-3", "500", ".nan"),
    "bleed_mm": ("0", "3", "-1", "1e6", ".inf"),
    "duplex": ("mirror", "gutter-fold", "none"),
    "back_offset_mm": ("[0.5, -0.3]", "[1e9, 1e9]", "[.nan, 0]", "[1]"),
    "card_size": ("63x88mm", "0x0mm", "1e6x1e6mm", "88x63mm", "x"),
    "lang": ("en", "ja"),
}


def print_settings(path: Path, rng: random.Random, game: SeedGame, root: Path) -> str:
    """Give the game `print:` settings (none of the seed games has any), some of them odd."""
    for candidate in sorted(root.rglob("*.yaml")):
        data = _small_file_bytes(candidate)
        match = re.search(rb"^game:[ ]*\n(?P<indent>[ ]+)", data, re.MULTILINE)
        if match:
            break
    else:
        return "no `game:` section to give print settings"
    indent = match["indent"]
    keys = rng.sample(sorted(PRINT_VALUES), rng.randint(1, 4))
    settings = {key: rng.choice(PRINT_VALUES[key]) for key in keys}
    block = (
        indent
        + b"print:\n"
        + b"".join(indent * 2 + f"{k}: {v}\n".encode() for k, v in settings.items())
    )
    candidate.write_bytes(
        data[: match.end("indent") - len(indent)] + block + data[match.end() - len(indent) :]
    )
    shown = ", ".join(f"{k}: {v}" for k, v in settings.items())
    return f"give {candidate.relative_to(root)} `print: {{{shown}}}`"


def _small_file_bytes(path: Path) -> bytes:
    """A regular file's bytes (not a link's target: a mutation may have pointed the file at
    one outside the case, which this must never write) when the loader would read it (at
    most MAX_FILE_BYTES: another mutation may have made it a sparse terabyte); else none."""
    try:
        info = path.lstat()
    except OSError:
        return b""
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
        return b""
    return path.read_bytes()


FS_MUTATORS: dict[str, FsMutator] = {
    "fifo": fifo,
    "device-symlink": dev_zero,
    "dangling-symlink": dangling_symlink,
    "outside-symlink": outside_symlink,
    "directory": directory,
    "too-large": too_large,
    "near-limit": near_limit,
    "extra-file": extra_file,
    "rename-file": rename_file,
    "loop-folder": loop_folder,
    "own-template": own_template,
    "own-layouts": own_layouts,
    "print-settings": print_settings,
}

CONTENT_MUTATORS: dict[str, Mutator] = {**BYTE_MUTATORS, **YAML_MUTATORS}
FAMILIES: dict[str, dict[str, Mutator]] = {
    "byte": BYTE_MUTATORS,
    "yaml": YAML_MUTATORS,
    # mutations that mostly keep the file valid YAML, so the rules and the layout see them
    "value": {n: YAML_MUTATORS[n] for n in ("replace-value", "replace-item", "change-id")}
    | {"tweak-number": tweak_number},
}
FAMILY_WEIGHTS: dict[str, float] = {"byte": 0.22, "yaml": 0.38, "value": 0.25, "fs": 0.15}
FS_WEIGHTS: dict[str, float] = {name: 1.0 for name in FS_MUTATORS} | {
    "near-limit": 0.2,
    "own-layouts": 4.0,
    "print-settings": 4.0,
}


def _content_mutation(path: Path, family: str, rng: random.Random, game: SeedGame) -> str:
    pool = FAMILIES[family]
    data = path.read_bytes()
    for _ in range(10):  # some mutators do not apply to every file
        name = rng.choice(sorted(pool))
        result = pool[name](data, rng, game)
        if result is not None:
            path.write_bytes(result[0])
            return f"{name}: {result[1]}"
    return "no mutation applied"


def mutate(game: SeedGame, folder: Path, rng: random.Random) -> list[str]:
    """Mutate the copy of `game` in `folder`: one file, sometimes two mutations (in the same
    file or in two); file-system mutations come last. Returns what was done, file by file."""
    roll = rng.random()
    count = 1 if roll < 0.7 else 2
    targets = [rng.choice(game.files)]
    if count == 2:
        targets.append(targets[0] if roll < 0.85 or len(game.files) < 2 else rng.choice(game.files))
    names = sorted(FAMILY_WEIGHTS)
    families = [rng.choices(names, [FAMILY_WEIGHTS[n] for n in names])[0] for _ in targets]
    plan = sorted(zip(targets, families, strict=True), key=lambda pair: pair[1] == "fs")
    done = []
    for target, family in plan:  # content first: a file-system mutation may remove the file
        path = folder / target
        if not path.is_file() or path.is_symlink():
            continue
        if family == "fs":
            names = sorted(FS_MUTATORS)
            name = rng.choices(names, [FS_WEIGHTS[n] for n in names])[0]
            done.append(f"{target}: {name}: {FS_MUTATORS[name](path, rng, game, folder)}")
        else:
            done.append(f"{target}: {_content_mutation(path, family, rng, game)}")
    return done


# ---------------------------------------------------------------------------------------------
# Checking one mutated game (in a forked child)


@dataclass(frozen=True)
class Problem:
    kind: str  # exception, timeout, hang, crash, location, control-char, exit-code, stderr
    signature: str  # the same bug gives the same signature (for deduplication)
    detail: str


@dataclass
class ChildResult:
    problems: list[Problem] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    loaded: bool = False
    built: bool = False


class CaseTimeout(BaseException):
    """Raised by the alarm: a BaseException, so no `except Exception` in the code swallows it."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise CaseTimeout("time bound exceeded")


@contextlib.contextmanager
def time_bound(seconds: float) -> Iterator[None]:
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _where(tb: traceback.StackSummary, function: bool = True) -> str:
    """The innermost frame in compiler/ (else the innermost one) as file:function, or the file
    alone (where a hang or a runaway allocation was caught varies within one module)."""
    inside = f"{os.sep}compiler{os.sep}"
    frames = [f for f in tb if inside in f.filename and not f.filename.endswith("gcpause.py")]
    frames = frames or list(tb)
    if not frames:
        return "?"
    frame = frames[-1]
    name = Path(frame.filename).name
    return f"{name}:{frame.name}" if function else name


def _exception_problem(stage: str, err: BaseException) -> Problem:
    """A traceback as a problem, its signature from the first exception of the chain (later
    ones are often the cleanup failing too: a MemoryError again, or the alarm ringing)."""
    chain: list[BaseException] = []
    link: BaseException | None = err
    while link is not None and all(link is not seen for seen in chain):
        # drop the failed frames' locals: after a MemoryError they hold what filled memory,
        # and formatting the traceback needs some memory too
        traceback.clear_frames(link.__traceback__)
        chain.append(link)
        link = link.__cause__ or link.__context__
    text = "".join(traceback.format_exception(err))
    first = chain[-1]
    runaway = isinstance(first, CaseTimeout | MemoryError)  # caught anywhere in a long loop
    where = _where(traceback.extract_tb(first.__traceback__), function=not runaway)
    if isinstance(err, CaseTimeout):
        return Problem("timeout", f"timeout in {stage} in {where}", text)
    return Problem("exception", f"{type(first).__name__} in {stage} at {where}", text)


_OTHER_BREAKS = re.compile(rb"\r(?!\n)|\xc2\x85|\xe2\x80[\xa8\xa9]")
"""Line breaks YAML counts besides \\n (CR alone, NEL, LS, PS): editors and render_text do not."""


def _line_count(path: str) -> tuple[int, bool] | None:
    """The number of lines of a regular file (\\n-separated), and whether it holds line breaks
    YAML counts but \\n-based tools do not; None for anything else, or a huge file. Counted
    once while the file stays as it was (a case with 33,000 findings in one file of 8,000
    lines read it for each, past the hard bound)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):  # as os.path.isfile: no such file, or a name it cannot be
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > 32 * 1024 * 1024:
        return None
    return _counted_lines(path, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _counted_lines(path: str, *identity: int) -> tuple[int, bool] | None:
    """`_line_count` of the file at `path` as it is while its `identity` (device, inode, size,
    mtime) holds."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    count = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return count, _OTHER_BREAKS.search(data) is not None


def _inside(path: str, roots: Sequence[str]) -> bool:
    absolute = os.path.abspath(path)
    return any(absolute == root or absolute.startswith(root + os.sep) for root in roots)


def location_problems(rule: str, where: Location, roots: Sequence[str]) -> list[tuple[str, str]]:
    """What is wrong with a finding's location, as (kind, details); empty when it is good."""
    path, line, column = where.path, where.line, where.column
    if not isinstance(line, int) or not isinstance(column, int):
        return [("line/column not numbers", f"{line!r}:{column!r}")]
    if not os.path.lexists(path):
        return [("no such file", repr(path))]
    if not _inside(path, roots):
        return [("outside the game folder and the templates", repr(path))]
    if os.path.isdir(path) and not os.path.islink(path):
        if rule not in FOLDER_RULES:
            return [("a folder, not a file", repr(path))]
        ok = line in (0, 1) and column in (0, 1)
        return [] if ok else [("a folder with a line", f"{path!r} at {line}:{column}")]
    out = []
    if line < 1:
        out.append(("line < 1", f"line {line}"))
    if column < 1:
        out.append(("column < 1", f"column {column}"))
    counted = _line_count(path)
    if counted is not None and line > counted[0] + 1:
        kind = "line past the end of the file"
        if counted[1]:
            kind += " (the file has CR, NEL, LS or PS line breaks)"
        out.append((kind, f"line {line}, the file has {counted[0]} line(s)"))
    return out


def _controls(text: str) -> list[str]:
    """The raw control characters (and lone surrogates) in text, escaped, deduplicated."""
    bad = {
        ch for ch in text if ch not in ALLOWED_CONTROLS and unicodedata.category(ch) in ("Cc", "Cs")
    }
    return sorted(ch.encode("unicode_escape", "backslashreplace").decode() for ch in bad)


def _control_part(finding: Finding) -> str:
    parts = {
        "message": finding.message,
        "hint": finding.hint,
        "path": finding.location.path,
        "related": "".join(r.message + r.location.path for r in finding.related),
    }
    return next((name for name, text in parts.items() if _controls(text)), "source line")


def finding_problems(finding: Finding, roots: Sequence[str]) -> list[Problem]:
    problems = []
    places = [("location", finding.location)] + [
        (f"related #{n}", rel.location) for n, rel in enumerate(finding.related, start=1)
    ]
    for what, where in places:
        for kind, details in location_problems(finding.rule, where, roots):
            problems.append(
                Problem(
                    "location",
                    f"bad location [{finding.rule}] {what}: {kind}",
                    f"{what}: {kind}: {details}\n{_render(finding)}",
                )
            )
    text = _render(finding)
    bad = _controls(text)
    if bad:
        part = _control_part(finding)
        what = "surrogates" if all(b.startswith("\\ud") for b in bad) else "control characters"
        origin = f"[{finding.rule}] message" if part == "message" else part  # a path is a path
        problems.append(
            Problem(
                "control-char",
                f"raw {what} in render_text, from the {origin}",
                f"raw {', '.join(bad)} in the {part}:\n{_show(text, 2000)}",
            )
        )
    return problems


def _render(finding: Finding) -> str:
    try:
        return render_text(finding)
    except Exception as err:  # noqa: BLE001 - reported by the caller's check of render_text
        return f"<render_text raised {err!r}>"


def _run_cli(folder: Path) -> tuple[int, str, str]:
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="\n")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="\n")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(["validate", str(folder)])
    texts = []
    for stream in (out, err):
        stream.flush()
        raw = stream.buffer
        assert isinstance(raw, io.BytesIO)
        texts.append(raw.getvalue().decode("utf-8"))
    return code, texts[0], texts[1]


def _checks(folder: Path, bound: float) -> ChildResult:
    """Every check on one game folder, in this process (the child's body)."""
    result = ChildResult()
    roots = [os.path.abspath(folder), os.path.abspath(templates_dir())]
    errors = None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            with time_bound(bound):
                report = check_game(folder, build_lang="")
        except BaseException as err:  # noqa: BLE001 - any exception is the finding
            result.problems.append(_exception_problem("check_game", err))
        else:
            result.loaded = report.game is not None
            result.built = result.loaded and report.errors == 0
            result.rules = sorted({f.rule for f in report.findings})
            errors = report.errors
            for finding in report.findings:
                result.problems.extend(finding_problems(finding, roots))
        try:
            with time_bound(bound):
                code, out, err_text = _run_cli(folder)
        except BaseException as err:  # noqa: BLE001 - any exception is the finding
            result.problems.append(_exception_problem("countermix validate", err))
        else:
            if code not in (0, 1) or (errors is not None and code != (1 if errors else 0)):
                result.problems.append(
                    Problem(
                        "exit-code",
                        f"validate exits {code}",
                        f"exit {code}, {errors} error(s)\n{out}{err_text}",
                    )
                )
            if err_text:
                result.problems.append(Problem("stderr", "validate writes to stderr", err_text))
            bad = _controls(out)
            if bad and not any(p.kind == "control-char" for p in result.problems):
                result.problems.append(
                    Problem(
                        "control-char",
                        "control characters in validate's output",
                        f"raw {', '.join(bad)}:\n{_show(out, 2000)}",
                    )
                )
    return _dedup(result)


def _dedup(result: ChildResult) -> ChildResult:
    seen: set[str] = set()
    unique = []
    for problem in result.problems:
        if problem.signature not in seen:
            seen.add(problem.signature)
            unique.append(problem)
    result.problems = unique
    return result


def _vm_size() -> int:
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return 1 << 30
    match = re.search(r"^VmSize:\s+(\d+) kB", status, re.MULTILINE)
    return int(match[1]) * 1024 if match else 1 << 30


CHILD_SILENT = 3
"""The exit status of a child that could not send its result (the parent reports a crash)."""


def _child(folder: Path, bound: float, write_fd: int, dump_fd: int) -> NoReturn:
    """The forked child: cap memory, arm the watchdog, check, send the result, exit. Whatever
    happens, it ends here (it must never return into the parent's code)."""
    status = CHILD_SILENT
    try:
        try:
            limit = _vm_size() + MEMORY_HEADROOM
            _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            capped = limit if hard < 0 or limit < hard else hard
            resource.setrlimit(resource.RLIMIT_AS, (capped, hard))
            faulthandler.dump_traceback_later(2 * bound + 5, exit=True, file=dump_fd)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            result = _checks(folder, bound)
            payload = json.dumps(dataclasses.asdict(result)).encode()
        except BaseException as err:  # noqa: BLE001 - reported, the child must exit cleanly
            problem = _exception_problem("the fuzz child", err)
            payload = json.dumps({"problems": [dataclasses.asdict(problem)]}).encode()
        view = memoryview(payload)
        while view:
            view = view[os.write(write_fd, view) :]
        status = 0
    finally:
        os._exit(status)


@dataclass
class Running:
    """A case whose child is running."""

    case: Case
    seed_game: SeedGame
    tmp: Path
    folder: Path
    mutations: list[str]
    pid: int
    fd: int
    dump: int
    started: float
    deadline: float
    data: bytearray = field(default_factory=bytearray)


@dataclass(frozen=True)
class Case:
    game: str
    seed: int

    @property
    def label(self) -> str:
        return f"{self.game}:{self.seed}"

    @staticmethod
    def parse(text: str) -> Case:
        game, _, seed = text.rpartition(":")
        return Case(game, int(seed))


@dataclass
class Outcome:
    case: Case
    mutations: list[str]
    diff: str
    result: ChildResult
    seconds: float
    kept: Path | None = None

    @property
    def failed(self) -> bool:
        return bool(self.result.problems)


class MutationError(RuntimeError):
    """The fuzzer could not mutate a game (its own bug): reported, and the run goes on."""


def start_case(corpus: Corpus, case: Case, bound: float) -> Running:
    """Copy and mutate the game (here), then check it in a forked child."""
    game = corpus.games[case.game]
    rng = random.Random(case.label)
    tmp = Path(tempfile.mkdtemp(prefix="countermix-fuzz-"))
    folder = tmp / game.name
    try:
        shutil.copytree(game.folder, folder, symlinks=True)
        mutations = mutate(game, folder, rng)
    except (OSError, ValueError, LookupError) as err:  # a bug of the fuzzer, not of countermix
        shutil.rmtree(tmp, ignore_errors=True)
        raise MutationError(f"mutating {case.label} failed: {err!r}") from err
    read_fd, write_fd = os.pipe()
    dump = os.open(tmp / "faulthandler.txt", os.O_WRONLY | os.O_CREAT, 0o600)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(folder, bound, write_fd, dump)
    os.close(write_fd)
    now = time.monotonic()
    return Running(
        case, game, tmp, folder, mutations, pid, read_fd, dump, now, now + 2 * bound + 10
    )


def _read_some(running: Running) -> bool:
    """Read what the child sent; True at end of file."""
    try:
        chunk = os.read(running.fd, 1 << 16)
    except OSError as err:
        if err.errno == errno.EINTR:
            return False
        raise
    running.data.extend(chunk)
    return not chunk


def finish_case(running: Running, keep: Path | None, killed: bool) -> Outcome:
    if killed:
        with contextlib.suppress(ProcessLookupError):
            os.kill(running.pid, signal.SIGKILL)
    _pid, status = os.waitpid(running.pid, 0)
    os.close(running.fd)
    os.close(running.dump)
    seconds = time.monotonic() - running.started
    dump = (running.tmp / "faulthandler.txt").read_text(errors="replace")
    result = ChildResult()
    if killed:
        result.problems.append(
            Problem(
                "hang", "hang past the hard bound (killed)", f"killed after {seconds:.0f} s\n{dump}"
            )
        )
    elif os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0 or not running.data:
        how = (
            f"killed by signal {os.WTERMSIG(status)}"
            if os.WIFSIGNALED(status)
            else f"exit status {os.WEXITSTATUS(status)}"
            + (" without a result" if os.WEXITSTATUS(status) == CHILD_SILENT else "")
        )
        hung = "Timeout" in dump
        kind = "hang" if hung else "crash"
        where = (
            "hang past the hard bound (uninterruptible)"
            if hung
            else f"the checking process died ({how})"
        )
        result.problems.append(Problem(kind, where, f"{how}\n{dump}"))
    else:
        raw = json.loads(running.data)
        result = ChildResult(
            problems=[Problem(**p) for p in raw.get("problems", [])],
            rules=list(raw.get("rules", [])),
            loaded=bool(raw.get("loaded", False)),
            built=bool(raw.get("built", False)),
        )
    outcome = Outcome(running.case, running.mutations, "", result, seconds)
    if outcome.failed:
        outcome.diff = game_diff(running.seed_game.folder, running.folder)
    if outcome.failed and keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        target = keep / running.case.label.replace(":", "-")
        shutil.rmtree(target, ignore_errors=True)
        os.rename(running.tmp, target)
        (target / "REPORT.txt").write_text(describe(outcome) + "\n", encoding="utf-8")
        outcome.kept = target / running.seed_game.name
    else:
        shutil.rmtree(running.tmp, ignore_errors=True)
    return outcome


def run_case(
    corpus: Corpus, case: Case, bound: float = DEFAULT_BOUND, keep: Path | None = None
) -> Outcome:
    """One case, start to end."""
    running = start_case(corpus, case, bound)
    while True:
        remaining = running.deadline - time.monotonic()
        if remaining <= 0:
            return finish_case(running, keep, killed=True)
        ready, _, _ = select.select([running.fd], [], [], remaining)
        if ready and _read_some(running):
            return finish_case(running, keep, killed=False)


def game_diff(before: Path, after: Path, limit: int = 40) -> str:
    """A short diff of the mutated files (control characters escaped; long lines cut)."""
    out: list[str] = []
    for dirpath, _dirs, files in os.walk(after):
        for name in sorted(files):
            path = Path(dirpath, name)
            rel = path.relative_to(after)
            original = before / rel
            if path.is_symlink() or not path.is_file():
                continue
            if (
                original.is_file()
                and original.stat().st_size == path.stat().st_size
                and original.read_bytes() == path.read_bytes()
            ):
                continue
            if path.stat().st_size > 1 << 20:
                out.append(f"--- {rel}: {path.stat().st_size} bytes")
                continue
            if not original.is_file() and name == TEMPLATE_NAME:
                original = templates_dir() / TEMPLATE_NAME
            if not original.is_file():
                out.append(f"--- new file {rel}: {path.stat().st_size} bytes")
                continue
            old = original.read_bytes()
            lines = difflib.unified_diff(
                [_show(x, 200) for x in old.split(b"\n")],
                [_show(x, 200) for x in path.read_bytes().split(b"\n")],
                f"a/{rel}",
                f"b/{rel}",
                n=1,
                lineterm="",
            )
            out.extend(lines)
    if len(out) > limit:
        out = out[:limit] + [f"... ({len(out) - limit} more diff lines)"]
    return "\n".join(out)


def describe(outcome: Outcome) -> str:
    """The full report of one case."""
    lines = [f"case {outcome.case.label} ({outcome.seconds:.1f} s)"]
    lines += [f"  mutation: {m}" for m in outcome.mutations]
    if outcome.kept:
        lines.append(f"  kept at: {outcome.kept}")
    lines.append(f"  replay: python -m scripts.fuzz --replay {outcome.case.label}")
    if outcome.diff:
        lines += ["  diff:"] + [f"    {line}" for line in outcome.diff.splitlines()]
    for problem in outcome.result.problems:
        lines.append(f"  FAIL {problem.kind}: {problem.signature}")
        lines += [f"    {line}" for line in problem.detail.rstrip().splitlines()]
    return _printable("\n".join(lines))


# ---------------------------------------------------------------------------------------------
# The long run


def _say(*parts: object, flush: bool = True) -> None:
    sys.stdout.write(_printable(" ".join(str(p) for p in parts)) + "\n")
    if flush:
        sys.stdout.flush()


@dataclass
class Tally:
    cases: int = 0
    loaded: int = 0
    built: int = 0
    failed: int = 0
    signatures: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    rules: Counter[str] = field(default_factory=Counter)
    mutations: Counter[str] = field(default_factory=Counter)


def _mutation_names(mutations: Sequence[str]) -> list[str]:
    return [m.split(": ")[1] for m in mutations if m.count(": ") >= 1]


def _record(tally: Tally, outcome: Outcome, keep: Path | None) -> None:
    tally.cases += 1
    tally.loaded += outcome.result.loaded
    tally.built += outcome.result.built
    tally.rules.update(outcome.result.rules)
    tally.mutations.update(_mutation_names(outcome.mutations))
    if not outcome.failed:
        return
    tally.failed += 1
    new = [p for p in outcome.result.problems if p.signature not in tally.signatures]
    for problem in outcome.result.problems:
        tally.signatures[problem.signature] += 1
        tally.examples.setdefault(problem.signature, []).append(outcome.case.label)
    if new:
        _say(
            f"\nNEW FAILURE ({', '.join(p.signature for p in new)})\n{describe(outcome)}\n",
            flush=True,
        )
    else:
        signatures = "; ".join(p.signature for p in outcome.result.problems)
        _say(f"  again: {outcome.case.label}: {signatures}")
    if keep is None or outcome.kept is None:
        return
    if all(tally.signatures[p.signature] > 3 for p in outcome.result.problems):
        shutil.rmtree(outcome.kept.parent, ignore_errors=True)  # enough examples of these


def _progress(tally: Tally, started: float) -> str:
    def pct(count: int) -> str:
        return f"{100 * count / tally.cases:.0f}%" if tally.cases else "-"

    return (
        f"[{time.monotonic() - started:6.0f} s] {tally.cases} cases, {tally.failed} failing "
        f"({len(tally.signatures)} distinct); loaded {pct(tally.loaded)}, "
        f"clean enough to lay out {pct(tally.built)}"
    )


def long_run(
    corpus: Corpus,
    minutes: float,
    seed: int,
    jobs: int,
    bound: float,
    games: Sequence[str],
    keep: Path,
) -> Tally:
    master = random.Random(seed)
    tally = Tally()
    started = time.monotonic()
    stop = started + minutes * 60
    last_report = started
    running: list[Running] = []
    try:
        while running or time.monotonic() < stop:
            while len(running) < jobs and time.monotonic() < stop:
                case = Case(master.choice(list(games)), master.getrandbits(32))
                try:
                    running.append(start_case(corpus, case, bound))
                except MutationError as err:
                    _say(f"FUZZER ERROR {err}")
                    signature = "fuzzer error (not a countermix bug)"
                    tally.failed += 1
                    tally.signatures[signature] += 1
                    tally.examples.setdefault(signature, []).append(case.label)
            if not running:
                continue
            timeout = max(0.0, min(r.deadline for r in running) - time.monotonic())
            ready, _, _ = select.select([r.fd for r in running], [], [], min(timeout, 1.0))
            for item in list(running):
                done = item.fd in ready and _read_some(item)
                late = time.monotonic() > item.deadline
                if done or late:
                    running.remove(item)
                    _record(tally, finish_case(item, keep, killed=late and not done), keep)
            if time.monotonic() - last_report > 15:
                last_report = time.monotonic()
                _say(_progress(tally, started), flush=True)
    except KeyboardInterrupt:
        _say("interrupted: the summary so far")
        for item in running:  # stop the cases under way and remove their folders
            with contextlib.suppress(ProcessLookupError):
                os.kill(item.pid, signal.SIGKILL)
            os.waitpid(item.pid, 0)
            os.close(item.fd)
            os.close(item.dump)
            shutil.rmtree(item.tmp, ignore_errors=True)
    _say(_progress(tally, started), flush=True)
    return tally


def _summary(tally: Tally, keep: Path) -> str:
    lines = ["", "=" * 78, f"{tally.cases} cases, {tally.failed} failing"]
    if tally.signatures:
        lines.append(f"{len(tally.signatures)} distinct failure(s) (count, signature, examples):")
        for signature, count in tally.signatures.most_common():
            examples = ", ".join(tally.examples[signature][:3])
            lines.append(f"  {count:5d}  {signature}\n         e.g. {examples}")
        lines.append(f"failing game folders (three per failure) are kept under {keep}")
    lines.append(
        "mutations tried: " + ", ".join(f"{n} {c}" for n, c in sorted(tally.mutations.items()))
    )
    lines.append("rules seen: " + ", ".join(f"{n} {c}" for n, c in tally.rules.most_common()))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.fuzz", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to run (default 10)")
    parser.add_argument("--seed", type=int, default=None, help="master seed (default: random)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="cases at once")
    parser.add_argument(
        "--bound", type=float, default=DEFAULT_BOUND, help="seconds per entry point"
    )
    parser.add_argument("--game", action="append", default=[], help="only these games (repeatable)")
    parser.add_argument("--keep", type=Path, default=None, help="where failing games are kept")
    parser.add_argument("--replay", metavar="GAME:SEED", help="run one case and report it")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    keep = (
        args.keep
        or Path(tempfile.gettempdir()) / f"countermix-fuzz-{time.strftime('%Y%m%d-%H%M%S')}"
    )
    with tempfile.TemporaryDirectory(prefix="countermix-fuzz-corpus-") as workdir:
        corpus = Corpus(Path(workdir))
        corpus.warm_up()
        if args.replay:
            outcome = run_case(corpus, Case.parse(args.replay), args.bound, keep)
            if not outcome.failed:
                outcome.diff = ""
            _say(describe(outcome))
            _say("FAILED" if outcome.failed else "passed")
            return 1 if outcome.failed else 0
        games = args.game or list(corpus.games)
        unknown = sorted(set(games) - set(corpus.games))
        if unknown:
            parser.error(f"unknown game(s) {', '.join(unknown)}; games: {', '.join(corpus.games)}")
        _say(
            f"fuzzing {', '.join(games)} for {args.minutes:g} min, seed {seed}, "
            f"{args.jobs} job(s), "
            f"bound {args.bound:g} s; failing games go to {keep}",
            flush=True,
        )
        tally = long_run(corpus, args.minutes, seed, args.jobs, args.bound, games, keep)
    _say(_summary(tally, keep))
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
