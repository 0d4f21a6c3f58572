"""compiler.model.digests.are_digests: what a kept run must carry to be told to the model."""

from __future__ import annotations

import pytest

from compiler.model.digests import are_digests, content_digests, digest_of, remember_all

DIGESTS = [digest_of(number) for number in range(32)]


def test_digests_as_digest_of_writes_them_are_digests() -> None:
    assert are_digests(DIGESTS)
    assert are_digests([])


@pytest.mark.parametrize(
    "odd",
    [
        "g" * 64,  # not hexadecimal
        DIGESTS[0].upper(),  # not lowercase
        "é" * 64,  # not ASCII
        DIGESTS[0][:-1],  # too short
        DIGESTS[0] + "0",  # too long
        " " + DIGESTS[0][1:],  # a space
        b"0" * 64,  # not a text
        64,
        None,
    ],
)
def test_one_value_that_is_not_a_digest_makes_the_run_none(odd: object) -> None:
    assert not are_digests([*DIGESTS, odd])
    assert not are_digests([odd, *DIGESTS])


def test_records_some_remembered_some_not_get_each_its_own_digest() -> None:
    """content_digests of records only some of which are remembered (a warm build's changed
    rows among rows read back) works out the others and gives each its own digest."""
    records = [("row", number) for number in range(6)]
    remember_all(records[::2], [digest_of(record) for record in records[::2]])
    found = content_digests(records)
    assert found == [digest_of(record) for record in records]
    assert content_digests(records) == found  # now all remembered: the same
