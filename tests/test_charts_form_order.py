"""A chart part's and a page's forms are defined in the order they are first shown, not by
name: a counter whose look changed (its form named anew) takes the number its old form had,
and the forms after it keep theirs, so the later pages that show them replay as kept."""

from __future__ import annotations

from compiler.backends.charts.printed import shown_order
from compiler.backends.pdf.content import Canvas
from compiler.backends.pdf.document import Content, PdfDocument

BOX = (0.0, 0.0, 10.0, 10.0)


def _page(names: list[str]) -> Content:
    canvas = Canvas()
    for name in names:
        canvas.show_form((name, Content(name.encode()), BOX), 0.0, 0.0, 10.0)
    return shown_order(canvas)


def test_forms_are_listed_as_first_shown() -> None:
    content = _page(["inset.c", "inset.a", "inset.b", "inset.a"])
    assert [name for name, _form, _box in content.nested] == ["inset.c", "inset.a", "inset.b"]


def test_a_form_named_anew_keeps_the_others_numbers() -> None:
    numbers = []
    for changed in ("inset.0", "inset.z"):  # sorted first, then last: the same place shown
        pdf = PdfDocument()
        pdf.add_page((100.0, 100.0), _page(["inset.m", changed, "inset.n", "inset.p"]))
        numbers.append({name: pdf.forms[name].number for name in ("inset.m", "inset.n", "inset.p")})
    assert numbers[0] == numbers[1]
