"""bench.bench_growth's arithmetic: each function's growth between two sizes, and how few
functions hold a share of it."""

from __future__ import annotations

import pytest

from bench.bench_growth import Function, Own, growth, held_by

A: Function = ("compiler/a.py", 1, "a")
B: Function = ("compiler/b.py", 2, "b")
C: Function = ("~", 0, "<built-in method marshal.loads>")
D: Function = ("compiler/d.py", 4, "d")


def test_growth_subtracts_the_small_size_and_sorts_most_first() -> None:
    small = {A: Own(0.010, 1), B: Own(0.020, 5), D: Own(0.004, 1)}
    large = {A: Own(0.050, 1), B: Own(0.025, 80), C: Own(0.030, 300)}
    rows = growth(small, large)
    assert [row.function for row in rows] == [A, C, B, D]
    assert [round(row.grown, 6) for row in rows] == [0.040, 0.030, 0.005, -0.004]
    assert rows[1].small == Own(0.0, 0.0)  # not called at the small size
    assert rows[3].large == Own(0.0, 0.0)  # not called at the large size


@pytest.mark.parametrize(
    ("grown", "share", "count"),
    [
        ([0.5, 0.3, 0.2], 0.5, 1),
        ([0.5, 0.3, 0.2], 0.8, 2),
        ([0.5, 0.3, 0.2], 0.81, 3),
        ([0.1] * 10, 0.5, 5),
        ([0.1] * 10 + [-1.0], 0.8, 8),  # shrinking functions are not in the total
        ([], 0.5, 0),
    ],
)
def test_held_by_counts_the_functions_that_hold_a_share(
    grown: list[float], share: float, count: int
) -> None:
    small = {("f.py", n, "f"): Own(1.0, 1) for n in range(len(grown))}
    large = {("f.py", n, "f"): Own(1.0 + value, 1) for n, value in enumerate(grown)}
    assert held_by(growth(small, large), share) == count
