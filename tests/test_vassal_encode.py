"""VASSAL's SequenceEncoder and piece definitions: awkward names survive the round trip."""

from __future__ import annotations

import pytest

from compiler.backends.vassal import encode as enc

AWKWARD = [
    "plain",
    "semi;colon",
    "slash/name",
    "back\\slash inside",
    "comma, list",
    "'quoted'",
    "'",
    "\\leading backslash",
    "tab\there",
    "日本語の名前 第1軍",
    "",
    "mixed ;/,\\' 混在",
]


@pytest.mark.parametrize("delimiter", [";", ",", "/", enc.TAB, enc.ESC])
def test_join_then_split_round_trips(delimiter: str) -> None:
    fields = [f for f in AWKWARD if delimiter not in ("\t",) or "\t" not in f]
    assert enc.split(enc.join(fields, delimiter), delimiter) == fields


@pytest.mark.parametrize(
    ("text", "delimiter", "encoded"),
    [
        ("a;b", ";", "a\\;b"),
        ("\\x", ";", "'\\x'"),
        ("'q'", ";", "''q''"),
        ("a/b", "/", "a\\/b"),
        ("", ";", ""),
    ],
)
def test_field_escaping_matches_vassal(text: str, delimiter: str, encoded: str) -> None:
    assert enc.field(text, delimiter) == encoded


def test_clean_strips_what_would_break_a_piece() -> None:
    assert enc.clean("ends with\\") == "ends with"
    assert enc.clean("two\nlines\tand tab") == "two lines and tab"


def test_nested_traits_escape_linearly() -> None:
    """The worked example of the format notes, byte for byte."""
    traits = [
        enc.prototype("Unit"),
        enc.marker([("Side", "Allies")]),
        enc.basic_piece("1st Infantry", gpid="1"),
    ]
    assert enc.add_piece(traits) == (
        "+/null/prototype;Unit\tmark;Side\\\tpiece;;;;1st Infantry/\tAllies\\\tnull;0;0;1;0"
    )


@pytest.mark.parametrize("name", AWKWARD[1:])
def test_awkward_names_decode_back_from_a_piece(name: str) -> None:
    text = enc.add_piece([enc.marker([("Name", name)]), enc.basic_piece(name, gpid="7")])
    assert text.startswith("+/")
    _, piece_id, type_, state = ["", *enc.split(text[2:], "/")]
    assert piece_id == "null"
    outer_type, inner_type = enc.split(type_, enc.TAB)
    outer_state, inner_state = enc.split(state, enc.TAB)
    assert enc.split(inner_type, ";")[-1] == enc.clean(name)
    assert enc.split(outer_state, ",") == [enc.clean(name)]
    assert enc.split(inner_state, ";")[3] == "7"
