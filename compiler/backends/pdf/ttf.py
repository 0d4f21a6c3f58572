"""A TrueType subsetter for embedding: keep some glyphs, keep every glyph id.

Our PDFs set text as glyph ids of the installed font (see compiler.backends.pdf), so the
embedded program must keep the ids: glyphs not used become empty, `loca` is rewritten, and the
tables a PDF reader needs are copied (head, hhea, maxp, hmtx, cvt, fpgm, prep, OS/2). Composite
glyphs bring their components. This is the narrow job fontTools' subsetter also does, in a few
milliseconds instead of a few hundred (it decompiles and recompiles every kept outline).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

KEPT_TABLES = (b"OS/2", b"cvt ", b"fpgm", b"head", b"hhea", b"hmtx", b"maxp", b"prep")
ARG_WORDS, ARGS_ARE_XY, HAS_SCALE, MORE, XY_SCALE, TWO_BY_TWO = 0x1, 0x2, 0x8, 0x20, 0x40, 0x80


class NotTrueType(ValueError):
    """The font has no TrueType outlines (glyf/loca) to subset."""


def _tables(data: bytes) -> dict[bytes, bytes]:
    """Table tag → table bytes of an sfnt file."""
    (count,) = struct.unpack_from(">H", data, 4)
    tables: dict[bytes, bytes] = {}
    for index in range(count):
        tag, _checksum, offset, length = struct.unpack_from(">4sIII", data, 12 + 16 * index)
        tables[tag] = data[offset : offset + length]
    return tables


def _offsets(tables: dict[bytes, bytes]) -> list[int]:
    """The glyph offsets from `loca` (numGlyphs + 1 of them)."""
    (glyph_count,) = struct.unpack_from(">H", tables[b"maxp"], 4)
    (long_format,) = struct.unpack_from(">h", tables[b"head"], 50)
    loca = tables[b"loca"]
    if long_format:
        return list(struct.unpack_from(f">{glyph_count + 1}I", loca))
    return [2 * v for v in struct.unpack_from(f">{glyph_count + 1}H", loca)]


def _components(glyph: bytes) -> list[int]:
    """The glyph ids a composite glyph is made of (none for a simple glyph)."""
    if len(glyph) < 10 or struct.unpack_from(">h", glyph, 0)[0] >= 0:
        return []
    found: list[int] = []
    at = 10
    while True:
        flags, component = struct.unpack_from(">HH", glyph, at)
        found.append(component)
        at += 4 + (4 if flags & ARG_WORDS else 2)
        if flags & HAS_SCALE:
            at += 2
        elif flags & XY_SCALE:
            at += 4
        elif flags & TWO_BY_TWO:
            at += 8
        if not flags & MORE:
            return found


def subset(data: bytes, gids: Iterable[int], *, keep_cmap: bool = False) -> bytes:
    """The font with only `gids` (and their components, and glyph 0) keeping their outlines.

    A PDF shows glyphs by id and needs no `cmap`; `keep_cmap` copies it (for other readers,
    and for the tests, which render characters through FreeType)."""
    tables = _tables(data)
    if b"glyf" not in tables or b"loca" not in tables:
        raise NotTrueType("the font has no TrueType outlines (glyf/loca)")
    offsets = _offsets(tables)
    glyf = tables[b"glyf"]
    count = len(offsets) - 1
    keep: set[int] = set()
    todo = [0, *(g for g in gids if 0 <= g < count)]
    while todo:
        gid = todo.pop()
        if gid in keep:
            continue
        keep.add(gid)
        todo.extend(c for c in _components(glyf[offsets[gid] : offsets[gid + 1]]) if c < count)
    new_glyf = bytearray()
    new_loca = [0]
    for gid in range(count):
        if gid in keep:
            new_glyf += glyf[offsets[gid] : offsets[gid + 1]]
            new_glyf += b"\0" * (-len(new_glyf) % 4)
        new_loca.append(len(new_glyf))
    kept = (*KEPT_TABLES, b"cmap") if keep_cmap else KEPT_TABLES
    out = {tag: tables[tag] for tag in kept if tag in tables}
    head = bytearray(out[b"head"])
    struct.pack_into(">I", head, 8, 0)  # checkSumAdjustment, set below
    struct.pack_into(">h", head, 50, 1)  # long loca offsets
    out[b"head"] = bytes(head)
    out[b"glyf"] = bytes(new_glyf)
    out[b"loca"] = struct.pack(f">{count + 1}I", *new_loca)
    return _sfnt(out)


def _checksum(data: bytes) -> int:
    padded = data + b"\0" * (-len(data) % 4)
    words: tuple[int, ...] = struct.unpack(f">{len(padded) // 4}I", padded)
    return sum(words) & 0xFFFFFFFF


def _sfnt(tables: dict[bytes, bytes]) -> bytes:
    """An sfnt file of `tables` (sorted by tag), checksums and head's adjustment filled in."""
    tags = sorted(tables)
    count = len(tags)
    power = 1 << (count.bit_length() - 1)
    header = struct.pack(
        ">IHHHH", 0x00010000, count, power * 16, power.bit_length() - 1, count * 16 - power * 16
    )
    offset = 12 + 16 * count
    records = bytearray()
    body = bytearray()
    for tag in tags:
        table = tables[tag]
        records += struct.pack(">4sIII", tag, _checksum(table), offset + len(body), len(table))
        body += table + b"\0" * (-len(table) % 4)
    font = bytearray(header + records + body)
    adjustment = (0xB1B0AFBA - _checksum(bytes(font))) & 0xFFFFFFFF
    head_at = offset + sum(
        len(tables[t]) + (-len(tables[t]) % 4) for t in tags[: tags.index(b"head")]
    )
    struct.pack_into(">I", font, head_at + 8, adjustment)
    return bytes(font)


# ---- outlines -----------------------------------------------------------------------------------

ON_CURVE, X_SHORT, Y_SHORT, REPEAT, X_SAME, Y_SAME = 0x1, 0x2, 0x4, 0x8, 0x10, 0x20
Contour = list[tuple[float, float, bool]]
"""Points of one closed contour: x, y (font units, y up) and whether the point is on the curve."""


class Outlines:
    """The glyph outlines of a TrueType font, read from `glyf` and `loca`."""

    def __init__(self, data: bytes) -> None:
        self.tables = _tables(data)
        if b"glyf" not in self.tables or b"loca" not in self.tables:
            raise NotTrueType("the font has no TrueType outlines (glyf/loca)")
        self.offsets = _offsets(self.tables)
        (self.units_per_em,) = struct.unpack_from(">H", self.tables[b"head"], 18)

    def contours(self, gid: int, depth: int = 0) -> list[Contour]:
        """The contours of a glyph (components of a composite glyph moved into place)."""
        if not 0 <= gid < len(self.offsets) - 1 or depth > 8:
            return []
        glyph = self.tables[b"glyf"][self.offsets[gid] : self.offsets[gid + 1]]
        if len(glyph) < 10:
            return []
        (count,) = struct.unpack_from(">h", glyph, 0)
        return _simple(glyph, count) if count >= 0 else self._composite(glyph, depth)

    def _composite(self, glyph: bytes, depth: int) -> list[Contour]:
        found: list[Contour] = []
        at = 10
        while True:
            flags, component = struct.unpack_from(">HH", glyph, at)
            at += 4
            if flags & ARG_WORDS:
                dx, dy = struct.unpack_from(">hh", glyph, at)
                at += 4
            else:
                dx, dy = struct.unpack_from(">bb", glyph, at)
                at += 2
            if not flags & ARGS_ARE_XY:  # point-matched components: placed unshifted
                dx, dy = 0, 0
            a, b, c, d = 1.0, 0.0, 0.0, 1.0
            if flags & HAS_SCALE:
                a = d = _f2dot14(glyph, at)
                at += 2
            elif flags & XY_SCALE:
                a, d = _f2dot14(glyph, at), _f2dot14(glyph, at + 2)
                at += 4
            elif flags & TWO_BY_TWO:
                a, b, c, d = (_f2dot14(glyph, at + 2 * i) for i in range(4))
                at += 8
            for contour in self.contours(component, depth + 1):
                found.append([(a * x + c * y + dx, b * x + d * y + dy, on) for x, y, on in contour])
            if not flags & MORE:
                return found


def _f2dot14(data: bytes, at: int) -> float:
    value: int = struct.unpack_from(">h", data, at)[0]
    return value / 16384.0


def _simple(glyph: bytes, count: int) -> list[Contour]:
    """The contours of a simple glyph: flags and delta-coded coordinates."""
    ends = struct.unpack_from(f">{count}H", glyph, 10)
    total = (ends[-1] + 1) if ends else 0
    at = 10 + 2 * count
    (instructions,) = struct.unpack_from(">H", glyph, at)
    at += 2 + instructions
    flags: list[int] = []
    while len(flags) < total:
        flag = glyph[at]
        at += 1
        flags.append(flag)
        if flag & REPEAT:
            flags.extend([flag] * glyph[at])
            at += 1
    xs, at = _coordinates(glyph, at, flags, X_SHORT, X_SAME)
    ys, at = _coordinates(glyph, at, flags, Y_SHORT, Y_SAME)
    contours: list[Contour] = []
    start = 0
    for end in ends:
        contours.append(
            [(float(xs[i]), float(ys[i]), bool(flags[i] & ON_CURVE)) for i in range(start, end + 1)]
        )
        start = end + 1
    return contours


def _coordinates(
    glyph: bytes, at: int, flags: list[int], short: int, same: int
) -> tuple[list[int], int]:
    values: list[int] = []
    value = 0
    for flag in flags:
        if flag & short:
            delta = glyph[at]
            at += 1
            value += delta if flag & same else -delta
        elif not flag & same:
            (delta,) = struct.unpack_from(">h", glyph, at)
            at += 2
            value += delta
        values.append(value)
    return values, at


def svg_path(contours: list[Contour]) -> str:
    """Contours as SVG path data with quadratic curves (font units, y up)."""
    parts: list[str] = []
    for contour in contours:
        if not contour:
            continue
        points = contour
        start_index = next((i for i, p in enumerate(points) if p[2]), None)
        if start_index is None:  # all off-curve: start between the first two points
            (x0, y0, _), (x1, y1, _) = points[0], points[1 % len(points)]
            start = ((x0 + x1) / 2, (y0 + y1) / 2)
            ordered = points[1:] + points[:1]
        else:
            start = points[start_index][:2]
            ordered = points[start_index + 1 :] + points[: start_index + 1]
        parts.append(f"M{_n(start[0])} {_n(start[1])}")
        control: tuple[float, float] | None = None
        for x, y, on in ordered:
            if on:
                if control is None:
                    parts.append(f"L{_n(x)} {_n(y)}")
                else:
                    parts.append(f"Q{_n(control[0])} {_n(control[1])} {_n(x)} {_n(y)}")
                control = None
            else:
                if control is not None:
                    mid = ((control[0] + x) / 2, (control[1] + y) / 2)
                    parts.append(f"Q{_n(control[0])} {_n(control[1])} {_n(mid[0])} {_n(mid[1])}")
                control = (x, y)
        if control is not None:
            parts.append(f"Q{_n(control[0])} {_n(control[1])} {_n(start[0])} {_n(start[1])}")
        parts.append("Z")
    return "".join(parts)


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))
