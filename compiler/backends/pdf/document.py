"""A PDF document built page by page: forms (shared drawings) and images, pages with their
boxes, embedded fonts, a document information dictionary — written out deterministically (no
dates; the file identifier is a digest of the contents)."""

from __future__ import annotations

import hashlib
import marshal
import operator
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from itertools import accumulate, chain, repeat
from typing import Any, cast

from compiler.backends.art.fonts import ALL_FONTS, FontFile, metrics
from compiler.backends.pdf import fonts as pdffonts
from compiler.backends.pdf.syntax import Name, Raw, Ref, num, serialise
from compiler.backends.pdf.syntax import name as pdf_name
from compiler.backends.rendercache import digest_key
from compiler.gcpause import no_cyclic_gc

Box = tuple[float, float, float, float]
FONTS_BY_NAME = {font.name: font for font in ALL_FONTS}


def compress(data: bytes) -> bytes:
    """Flate-compressed stream data (the same bytes for the same input)."""
    return zlib.compress(data, 6)


@dataclass(frozen=True, slots=True)
class Content:
    """Compressed content-stream bytes, the characters it sets per font name, and the forms
    it shows by name (name → content and bounding box; their own text counts too)."""

    stream: bytes
    chars: Mapping[str, str] = field(default_factory=dict)
    nested: tuple[tuple[str, Content, Box], ...] = ()


def _plain(content: Content) -> Any:
    """Content as nested tuples (its forms' contents too)."""
    nested = tuple((name, _plain(form), box) for name, form, box in content.nested)
    return (content.stream, tuple(content.chars.items()), nested)


def _content(value: Any) -> Content:
    """The inverse of _plain."""
    stream, chars, nested = value
    forms = tuple((name, _content(form), tuple(box)) for name, form, box in nested)
    return Content(stream, dict(chars), forms)


def encode_content(content: Content, *extra: object) -> bytes:
    """Content as cache bytes (marshal: the fastest to read back of the standard formats)."""
    value: Any = (_plain(content), extra)
    return marshal.dumps(value)


def decode_content(data: bytes) -> tuple[Content, tuple[object, ...]]:
    """The inverse of encode_content: the content and the extra values; ValueError when
    the bytes are not an encoded content."""
    # thousands of small records made at once, none in a cycle: no collection passes over a
    # large game's heap meanwhile (4x faster in a warm build of 8,000 counters)
    try:
        with no_cyclic_gc():
            plain, extra = marshal.loads(data)
            return _content(plain), tuple(extra)
    except (EOFError, TypeError, ValueError) as err:
        raise ValueError("not a cached content stream") from err


@dataclass(frozen=True, slots=True)
class FormRun:
    """Forms added back to back, as the objects they made (see PdfDocument.record_forms): the
    first object number, the next one after them, each form's name, name as written, object
    number and body, the fonts they reserved (name, number) and the text they set (font name,
    characters)."""

    start: int
    end: int
    names: tuple[str, ...]
    tags: tuple[bytes, ...]
    numbers: tuple[int, ...]
    bodies: tuple[bytes, ...]
    fonts: tuple[tuple[str, int], ...]
    chars: tuple[tuple[str, str], ...]

    def encode(self) -> bytes:
        """The run as cache bytes."""
        fields = (self.start, self.end, self.names, self.tags, self.numbers, self.bodies)
        return marshal.dumps((*fields, self.fonts, self.chars))

    @classmethod
    def decode(cls, data: bytes) -> FormRun:
        """The inverse of encode; ValueError when the bytes are not an encoded run."""
        try:
            return cls(*marshal.loads(data))
        except (EOFError, TypeError, ValueError) as err:
            raise ValueError("not a cached form run") from err


@dataclass(frozen=True, slots=True)
class PageRun:
    """A page as the objects it made (see PdfDocument.record_page): the object numbers it
    started and ended at, the fonts reserved before it and by it (name, number), the forms it
    defined (names, names as written, numbers), the forms of earlier pages it showed (name,
    number), its objects (their numbers, and the objects written out as in the file, one
    after the other, with where each ends), its page object's number and the text it set
    (font name, characters)."""

    start: int
    end: int
    fonts_before: tuple[tuple[str, int], ...]
    fonts: tuple[tuple[str, int], ...]
    names: tuple[str, ...]
    tags: tuple[bytes, ...]
    form_numbers: tuple[int, ...]
    outside: tuple[tuple[str, int], ...]
    numbers: tuple[int, ...]
    written: bytes
    ends: tuple[int, ...]
    page: int
    chars: tuple[tuple[str, str], ...]

    FORMAT = 2
    """The version of what a run holds (a key of a kept run holds it)."""

    def encode(self) -> bytes:
        """The run as cache bytes."""
        return marshal.dumps(self.values())

    def values(self) -> tuple[Any, ...]:
        """The run's fields as plain values (marshal), in order: see from_values."""
        return tuple(getattr(self, f.name) for f in fields(self))

    @classmethod
    def decode(cls, data: bytes) -> PageRun:
        """The inverse of encode; ValueError when the bytes are not an encoded page."""
        try:
            with no_cyclic_gc():
                values = marshal.loads(data)
        except (EOFError, TypeError, ValueError) as err:
            raise ValueError("not a cached page") from err
        return cls.from_values(values)

    @classmethod
    def from_values(cls, values: object) -> PageRun:
        """The inverse of values (read back with other pages' in one piece: a kept run of
        pages); ValueError when they are not a page's."""
        try:
            run = cls(*cast(tuple[Any, ...], values))
        except TypeError as err:
            raise ValueError("not a cached page") from err
        if not _whole_run(run):
            raise ValueError("not a cached page")
        return run


def _whole_run(run: PageRun) -> bool:
    """Whether a run read back is of the shape record_page gives: as many forms as numbers,
    as many objects as ends, the ends in order and the last the written bytes' end."""
    if len(run.names) != len(run.form_numbers) or len(run.numbers) != len(run.ends):
        return False
    if type(run.written) is not bytes or list(run.ends) != sorted(run.ends):
        return False
    return (run.ends[-1] if run.ends else 0) == len(run.written)


def _shown_forms(content: Content, new: set[str]) -> list[tuple[str, Content]]:
    """The forms some content shows, and those the forms in `new` show in turn (each once)."""
    found: dict[str, Content] = {}
    todo = list(content.nested)
    while todo:
        form_name, form, _box = todo.pop()
        if form_name in found:
            continue
        found[form_name] = form
        if form_name in new:
            todo.extend(form.nested)
    return list(found.items())


def _unique_chars(chars: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """The text set in each font (font name, characters) as one string per font of its
    characters, each once and in order: all a font's subset is made of (the characters set
    in it, whatever their order: fonts.used_glyphs), so a page replayed adds one string per
    font instead of one per piece of text."""
    found: dict[str, set[str]] = {}
    for font_name, text in chars:
        found.setdefault(font_name, set()).update(text)
    return tuple((font_name, "".join(sorted(found[font_name]))) for font_name in sorted(found))


def _nowhere(_key: str, _data: bytes) -> None:
    """No cache to keep font programs in."""


def _program(data: bytes | None) -> tuple[int, bytes] | None:
    """A kept font program (length, compressed bytes); None when there is none or it is
    damaged."""
    if data is None:
        return None
    try:
        length, packed = marshal.loads(data)
    except (EOFError, TypeError, ValueError):
        return None
    if not isinstance(length, int) or not isinstance(packed, bytes):
        return None
    return length, packed


class PdfDocument:
    """Objects numbered in the order they are made; fonts come last, once all text is known."""

    def __init__(self) -> None:
        self.objects: dict[int, bytes] = {}
        self.next_number = 1
        self.forms: dict[str, Ref] = {}
        self.form_fonts: dict[str, frozenset[str]] = {}
        self.pages: list[Ref] = []
        self.chars: dict[str, set[str]] = {}
        """Font name → the character strings set in it (joined when the font is embedded)."""
        self.font_refs: dict[str, Ref] = {}
        self.resources: dict[tuple[str, ...], bytes] = {}
        self.boxes: dict[Box, bytes] = {}
        self.tags: dict[str, bytes] = {}
        self.kept_fonts: Callable[[str], bytes | None] | None = None
        """Font subset programs kept from earlier documents (a render cache's `get`), by a key
        of the font, its glyphs and the renderers' fingerprint (the installed fonts' too);
        `keep_font` keeps those made."""
        self.keep_font: Callable[[str, bytes], None] = _nowhere
        self.written: dict[int, tuple[bytes, tuple[int, ...]]] = {}
        """Objects written out already, by the number of the first of a run of consecutive
        ones: their bytes as in the file and where each starts in them (pages replayed)."""
        self.defined: list[str] = []
        """The forms' and images' names in the order they were added (a page's own are the
        last ones when it is recorded, see record_page)."""
        self.pages_ref = self._reserve()

    def _reserve(self) -> Ref:
        ref = Ref(self.next_number)
        self.next_number += 1
        return ref

    def _put(self, ref: Ref, value: object) -> Ref:
        self.objects[ref.number] = serialise(value)
        return ref

    def _stream(self, ref: Ref, head: Mapping[str, object], data: bytes) -> Ref:
        header = serialise({**head, "Length": len(data), "Filter": Name("FlateDecode")})
        self.objects[ref.number] = header + b"\nstream\n" + data + b"\nendstream"
        return ref

    def _font_ref(self, font_name: str) -> Ref:
        if font_name not in self.font_refs:
            self.font_refs[font_name] = self._reserve()
        return self.font_refs[font_name]

    def _uses(self, content: Content) -> dict[str, Ref]:
        """Record the text of some content; its font resources."""
        for font_name, chars in content.chars.items():
            self.chars.setdefault(font_name, set()).add(chars)
        return {name: self._font_ref(name) for name in sorted(content.chars)}

    def _font_resources(self, content: Content) -> bytes:
        """The resource dictionary of a form (its fonts), made once per set of fonts."""
        key = tuple(content.chars)
        found = self.resources.get(key)
        if found is None:
            fonts = self._uses(content)
            found = b"<< /Font " + serialise(fonts) + b" >>" if fonts else b"<< >>"
            self.resources[key] = found
        else:
            for font_name, chars in content.chars.items():
                self.chars[font_name].add(chars)
        return found

    def _nested(self, content: Content) -> list[str]:
        """Define the forms some content shows (once per document); their names."""
        for form_name, form, box in content.nested:
            if form_name not in self.forms:
                self.add_form(form_name, form, box)
        return [form_name for form_name, _form, _box in content.nested]

    def _xobjects(self, forms: list[str]) -> bytes:
        entries = (b"%s %d 0 R" % (self.tags[f], self.forms[f].number) for f in sorted(set(forms)))
        return b"<< " + b" ".join(entries) + b" >>"

    def add_form(self, name: str, content: Content, bbox: Box) -> None:
        """A form XObject (drawn with `Do`), named `name` in every page that shows it."""
        resources = self._font_resources(content)
        if content.nested:
            shown = self._xobjects(self._nested(content))
            resources = resources[:-2] + b"/XObject " + shown + b" >>"
        box = self.boxes.get(bbox)
        if box is None:
            box = self.boxes[bbox] = " ".join(num(v) for v in bbox).encode("ascii")
        ref = self._reserve()
        self.objects[ref.number] = (
            b"<< /Type /XObject /Subtype /Form /BBox [%s] /Resources %s /Length %d "
            b"/Filter /FlateDecode >>\nstream\n%s\nendstream"
            % (box, resources, len(content.stream), content.stream)
        )
        self.forms[name] = ref
        self.tags[name] = pdf_name(name)
        self.defined.append(name)

    def font_numbers(self) -> tuple[tuple[str, int], ...]:
        """The object number of every font reserved so far, by name (part of what decides the
        bytes of forms added next)."""
        return tuple(sorted((font_name, ref.number) for font_name, ref in self.font_refs.items()))

    def record_forms(self, forms: Sequence[tuple[str, Content, Box]]) -> FormRun | None:
        """Add forms back to back (as add_form does) and what they made as a run, which
        `replay_forms` adds again to a document in the same state (the same next object
        number and fonts) without the contents. Forms showing other forms are not recorded
        (what they define depends on the forms the document already has): None then."""
        start = self.next_number
        fonts = dict(self.font_refs)
        chars: dict[tuple[str, str], None] = {}
        for form_name, content, box in forms:
            self.add_form(form_name, content, box)
            chars.update(dict.fromkeys(content.chars.items()))
        if any(content.nested for _name, content, _box in forms):
            return None
        names = tuple(form_name for form_name, _content, _box in forms)
        numbers = tuple(self.forms[form_name].number for form_name in names)
        return FormRun(
            start,
            self.next_number,
            names,
            tuple(self.tags[form_name] for form_name in names),
            numbers,
            tuple(self.objects[number] for number in numbers),
            tuple((f, ref.number) for f, ref in self.font_refs.items() if f not in fonts),
            tuple(chars),
        )

    def replay_forms(self, run: FormRun) -> None:
        """Add again the forms of a run recorded in a document in this state (the same next
        object number and fonts), as record_forms added them."""
        assert run.start == self.next_number
        self._replay(run.fonts, run.chars, run.numbers, run.bodies)
        self._replay_names(run.names, run.numbers, run.tags)
        self.next_number = run.end

    def _replay(
        self,
        fonts: Iterable[tuple[str, int]],
        chars: Iterable[tuple[str, str]],
        numbers: Iterable[int],
        bodies: Iterable[bytes],
    ) -> None:
        """Add again what a recorded run added: its font references, the characters it set
        and its objects."""
        for font_name, number in fonts:
            self.font_refs[font_name] = Ref(number)
        for font_name, text in chars:
            self.chars.setdefault(font_name, set()).add(text)
        self.objects.update(zip(numbers, bodies, strict=True))

    def _add_written(self, numbers: Sequence[int], written: bytes, ends: Sequence[int]) -> None:
        """Objects written out already (`numbers`, one after the other in `written`, each
        ending where `ends` says), kept as they are: in one piece for each run of consecutive
        numbers (a page's, but for the number of a font it reserved, written last)."""
        if numbers and numbers[-1] - numbers[0] == len(numbers) - 1:  # one run, most often
            self.written[numbers[0]] = (written, (0, *ends[:-1]))
            return
        first = 0
        for index in range(1, len(numbers) + 1):
            if index < len(numbers) and numbers[index] == numbers[index - 1] + 1:
                continue
            low = ends[first - 1] if first else 0
            piece = written[low : ends[index - 1]] if first or index < len(numbers) else written
            starts = tuple(chain((0,), (end - low for end in ends[first : index - 1])))
            self.written[numbers[first]] = (piece, starts)
            first = index

    def _replay_names(
        self, names: Sequence[str], numbers: Iterable[int], tags: Iterable[bytes]
    ) -> None:
        """Add again the forms a recorded run defined, with their objects' numbers."""
        self.forms.update(zip(names, map(Ref, numbers), strict=True))
        self.tags.update(zip(names, tags, strict=True))
        self.defined.extend(names)

    def add_image(
        self, name: str, size: tuple[int, int], rgb: bytes, alpha: bytes | None = None
    ) -> None:
        """An image XObject (drawn with `Do` into the unit square), named `name` in every page
        that shows it: 8-bit RGB samples, and an 8-bit soft mask when `alpha` is given."""
        self.add_compressed_image(
            name, size, compress(rgb), compress(alpha) if alpha is not None else None
        )

    def add_compressed_image(
        self, name: str, size: tuple[int, int], rgb: bytes, alpha: bytes | None = None
    ) -> None:
        """add_image with the samples compressed already (by `compress`): the same objects,
        from samples kept compressed in a cache (not compressed again on every build)."""
        head: dict[str, object] = {
            "Type": Name("XObject"),
            "Subtype": Name("Image"),
            "Width": size[0],
            "Height": size[1],
            "ColorSpace": Name("DeviceRGB"),
            "BitsPerComponent": 8,
        }
        if alpha is not None:
            mask = {**head, "ColorSpace": Name("DeviceGray")}
            head["SMask"] = self._stream(self._reserve(), mask, alpha)
        self.forms[name] = self._stream(self._reserve(), head, rgb)
        self.tags[name] = pdf_name(name)
        self.defined.append(name)

    def add_page(
        self,
        size: tuple[float, float],
        content: Content,
        forms: tuple[str, ...] = (),
        boxes: Mapping[str, Box] | None = None,
    ) -> None:
        """A page of `size` points drawing `content`, which may show the named forms."""
        fonts = self._uses(content)
        shown = [*forms, *self._nested(content)]
        resources: dict[str, object] = {}
        if fonts:
            resources["Font"] = fonts
        if shown:
            resources["XObject"] = Raw(self._xobjects(shown))
        contents = self._stream(self._reserve(), {}, content.stream)
        page = {
            "Type": Name("Page"),
            "Parent": self.pages_ref,
            "MediaBox": [0, 0, size[0], size[1]],
            **{key: list(box) for key, box in (boxes or {}).items()},
            "Resources": resources,
            "Contents": contents,
        }
        self.pages.append(self._put(self._reserve(), page))

    def record_page(self, size: tuple[float, float], content: Content) -> PageRun:
        """add_page (a page that shows no image) and what it made as a run, which
        `replay_page` adds again to a document in the same state without the contents: a
        large charts.pdf of which one page changed puts together the others' objects instead
        of encoding them again."""
        start, fonts, defined = self.next_number, self.font_numbers(), len(self.defined)
        self.add_page(size, content)
        names = tuple(self.defined[defined:])
        numbers = tuple(self.forms[form_name].number for form_name in names)
        new = set(names)
        chars: dict[tuple[str, str], None] = dict.fromkeys(content.chars.items())
        outside: dict[str, int] = {}
        for form_name, form in _shown_forms(content, new):
            if form_name in new:
                chars.update(dict.fromkeys(form.chars.items()))
            else:
                outside[form_name] = self.forms[form_name].number
        made = tuple(n for n in range(start, self.next_number) if n in self.objects)
        written, ends = _written(made, list(map(self.objects.__getitem__, made)))
        return PageRun(
            start,
            self.next_number,
            fonts,
            tuple((f, r.number) for f, r in self.font_refs.items() if (f, r.number) not in fonts),
            names,
            tuple(self.tags[form_name] for form_name in names),
            numbers,
            tuple(sorted(outside.items())),
            made,
            written,
            tuple(ends),
            self.pages[-1].number,
            _unique_chars(chars),
        )

    def replay_pages(self, runs: Sequence[PageRun]) -> int:
        """replay_page of each run in turn, up to the first that is not of this document's
        state: how many pages were added (a run of pages kept together, read back in one
        piece)."""
        for done, run in enumerate(runs):
            if not self.replay_page(run):
                return done
        return len(runs)

    def replay_page(self, run: PageRun) -> bool:
        """Add again a page recorded by record_page, when this document is in the state it
        was recorded in: the same next object number and fonts, none of the forms it defined
        defined already, those it showed from earlier pages defined under the same numbers.
        False (nothing added) otherwise."""
        if run.start != self.next_number or run.fonts_before != self.font_numbers():
            return False
        if any(form_name in self.forms for form_name in run.names):
            return False
        for form_name, number in run.outside:
            found = self.forms.get(form_name)
            if found is None or found.number != number:
                return False
        self._replay(run.fonts, run.chars, (), ())
        self._add_written(run.numbers, run.written, run.ends)
        self._replay_names(run.names, run.form_numbers, run.tags)
        self.pages.append(Ref(run.page))
        self.next_number = run.end
        return True

    # ---- fonts --------------------------------------------------------------------------------

    def _embed_font(
        self, font: FontFile, ref: Ref, glyphs: dict[int, str], program: tuple[int, bytes]
    ) -> None:
        """Type0 font over a CIDFontType2 subset (`program`: its length and its bytes
        compressed, holding `glyphs`), with widths and a ToUnicode map."""
        gids = tuple(sorted(glyphs))
        base = f"{pdffonts.subset_tag(font, gids)}+{font.name}"
        face = metrics(font).face
        file_ref = self._stream(self._reserve(), {"Length1": program[0]}, program[1])
        descriptor = self._put(
            self._reserve(),
            {
                "Type": Name("FontDescriptor"),
                "FontName": Name(base),
                "Flags": 4,
                "FontBBox": [round(v) for v in face.bbox],
                "ItalicAngle": face.italicAngle,
                "Ascent": round(face.ascent),
                "Descent": round(face.descent),
                "CapHeight": round(face.capHeight),
                "StemV": face.stemV,
                "FontFile2": file_ref,
            },
        )
        cid_font = self._put(
            self._reserve(),
            {
                "Type": Name("Font"),
                "Subtype": Name("CIDFontType2"),
                "BaseFont": Name(base),
                "CIDSystemInfo": {"Registry": "Adobe", "Ordering": "Identity", "Supplement": 0},
                "FontDescriptor": descriptor,
                "DW": 1000,
                "W": pdffonts.widths_array(font, glyphs),
                "CIDToGIDMap": Name("Identity"),
            },
        )
        cmap = pdffonts.to_unicode_cmap(glyphs)
        unicode_ref = self._stream(self._reserve(), {}, compress(cmap))
        self._put(
            ref,
            {
                "Type": Name("Font"),
                "Subtype": Name("Type0"),
                "BaseFont": Name(base),
                "Encoding": Name("Identity-H"),
                "DescendantFonts": [cid_font],
                "ToUnicode": unicode_ref,
            },
        )

    def _programs(
        self, requests: list[tuple[FontFile, tuple[int, ...]]]
    ) -> list[tuple[int, bytes]]:
        """Each font's subset program for its glyph ids: its length and its bytes compressed,
        read from `kept_fonts` when it has them (cutting a font file down and compressing it
        is most of what writing a document that uses the same glyphs again costs)."""
        if self.kept_fonts is None:
            return [(len(p), compress(p)) for p in pdffonts.subsets(requests)]
        found: list[tuple[int, bytes]] = []
        for font, gids in requests:
            glyphs = hashlib.sha256(repr(gids).encode()).hexdigest()
            key = digest_key("pdf-font", font.name, glyphs)
            program = _program(self.kept_fonts(key))
            if program is None:
                made = pdffonts.subsets([(font, gids)])[0]
                program = (len(made), compress(made))
                self.keep_font(key, marshal.dumps(program))
            found.append(program)
        return found

    # ---- output -------------------------------------------------------------------------------

    def _embed_fonts(self) -> None:
        """Every reserved font, subset to the characters set in it."""
        used = [
            (FONTS_BY_NAME[font_name], ref) for font_name, ref in sorted(self.font_refs.items())
        ]
        glyph_maps = [
            pdffonts.used_glyphs(font, "".join(self.chars.get(font.name, ()))) for font, _ in used
        ]
        requests = [
            (font, tuple(sorted(glyphs)))
            for (font, _), glyphs in zip(used, glyph_maps, strict=True)
        ]
        programs = self._programs(requests)
        for (font, ref), glyphs, program in zip(used, glyph_maps, programs, strict=True):
            self._embed_font(font, ref, glyphs, program)

    def _finish_objects(self, info: Mapping[str, str]) -> tuple[Ref, Ref]:
        """The fonts embedded, the page tree, the catalog and the document information put:
        the catalog's and the information's references."""
        self._embed_fonts()
        self._put(
            self.pages_ref,
            {"Type": Name("Pages"), "Kids": list(self.pages), "Count": len(self.pages)},
        )
        catalog = self._put(self._reserve(), {"Type": Name("Catalog"), "Pages": self.pages_ref})
        return catalog, self._put(self._reserve(), {"Producer": "countermix", **info})

    def _trailer(self, catalog: Ref, info: Ref, identifier: str, xref: int) -> bytes:
        """The file's trailer: its identifier the hex digest `identifier`, its cross-reference
        table at offset `xref`."""
        ident = Raw(b"<" + identifier.upper().encode("ascii") + b">")
        trailer = {"Size": self.next_number, "Root": catalog, "Info": info, "ID": [ident, ident]}
        return b"trailer\n" + serialise(trailer) + b"\nstartxref\n%d\n%%%%EOF\n" % xref

    def write(self, info: Mapping[str, str]) -> bytes:
        """The whole file, joined once: its body's parts are hashed as they are, not joined
        first (a large charts.pdf is megabytes: joined twice, each a copy into memory the
        process had not touched yet)."""
        catalog, info_ref = self._finish_objects(info)
        if self.written:
            body, offsets = _mixed_bytes(self.objects, self.written, self.next_number)
        else:
            body, offsets = _objects_bytes(self.objects, self.next_number)
        xref = b"xref\n0 %d\n0000000000 65535 f \n" % self.next_number
        xref += b"".join(map(XREF_ENTRY.__mod__, offsets))
        identifier = hashlib.md5()  # of the file up to its trailer
        for part in body:
            identifier.update(part)
        identifier.update(xref)
        length = sum(map(len, body))
        tail = self._trailer(catalog, info_ref, identifier.hexdigest(), length)
        return b"".join((*body, xref, tail))


HEADER = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
END_OBJECT = b"\nendobj\n"
XREF_ENTRY = b"%010d 00000 n \n"


def _objects_bytes(objects: Mapping[int, bytes], end: int) -> tuple[list[bytes], list[int]]:
    """The file's header and objects 1 to `end` - 1 written out, as parts to join, and where
    each object starts (in passes that stay in C but for each object's first line: a large
    charts.pdf is thousands of objects)."""
    numbers = range(1, end)
    written, ends = _written(numbers, list(map(objects.__getitem__, numbers)))
    if not ends:
        return [HEADER], []
    return [HEADER, written], list(chain((len(HEADER),), map(len(HEADER).__add__, ends[:-1])))


def _written(numbers: Sequence[int], bodies: Sequence[bytes]) -> tuple[bytes, list[int]]:
    """Objects written out one after the other as in the file, and where each ends."""
    heads = [b"%d 0 obj\n" % number for number in numbers]
    sizes = map(operator.add, map(len, heads), map(len, bodies))
    ends = list(accumulate(map(operator.add, sizes, repeat(len(END_OBJECT)))))
    return b"".join(chain.from_iterable(zip(heads, bodies, repeat(END_OBJECT)))), ends


def _mixed_bytes(
    objects: Mapping[int, bytes], written: Mapping[int, tuple[bytes, tuple[int, ...]]], end: int
) -> tuple[list[bytes], list[int]]:
    """_objects_bytes for a document with objects written out already (PdfDocument.written):
    each run of those a part as it is, its objects' offsets from where they start in it."""
    parts = [HEADER]
    offsets: list[int] = []
    at, number = len(HEADER), 1
    while number < end:
        found = written.get(number)
        if found is None:
            head, body = b"%d 0 obj\n" % number, objects[number]
            parts += (head, body, END_OBJECT)
            offsets.append(at)
            at += len(head) + len(body) + len(END_OBJECT)
            number += 1
            continue
        piece, starts = found
        parts.append(piece)
        offsets += map(at.__add__, starts)
        at += len(piece)
        number += len(starts)
    return parts, offsets
