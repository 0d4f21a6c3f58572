"""compiler.model.digests.are_digests: what a kept run must carry to be told to the model."""

from __future__ import annotations

import pytest

from compiler.model.digests import are_digests, digest_of

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
