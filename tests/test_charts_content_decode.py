"""Cached content streams (chart parts, faces' forms) read back: the same content, and the
garbage collector, paused while thousands of records are made, left as it was found."""

from __future__ import annotations

import gc

import pytest

from compiler.backends.pdf.document import Content, decode_content, encode_content

FACE = Content(b"face", {"F1": "ab"})
PART = Content(b"part", {"F1": "xyz", "F2": "q"}, (("inset.face", FACE, (0.0, 0.0, 100.0, 100.0)),))


def test_content_read_back_is_the_content() -> None:
    content, extra = decode_content(encode_content(PART, "name", (1.0, 2.0)))
    assert content == PART
    assert extra == ("name", (1.0, 2.0))


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_left_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        if enabled:
            gc.enable()
        else:
            gc.disable()
        decode_content(encode_content(PART))
        assert gc.isenabled() == enabled
        with pytest.raises(ValueError):
            decode_content(b"\x00not a content stream")
        assert gc.isenabled() == enabled
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()
