"""Fuzzing, the short run for CI: random byte, YAML and file-system mutations of every seed game
(and of each game `countermix new` writes) give findings, never a traceback, a hang, a finding
at a place that does not exist, or raw control characters on the terminal.

The mutations and the checks are in scripts/fuzz.py (its docstring lists them); the long run is
`python -m scripts.fuzz --minutes 10`. A failure here prints the case's report: the mutations, a
diff, the traceback or the finding, and `--replay GAME:SEED` to run it again.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from scripts.fuzz import Case, Corpus, describe, run_case, seed_game_names

EXAMPLES_PER_GAME = 24
"""13 games x 24 cases: 25-35 s on two cores (a case takes 0.03-0.5 s)."""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    made = Corpus(tmp_path_factory.mktemp("fuzz-corpus"))
    made.warm_up()  # every unmutated game passes every check
    return made


@pytest.fixture(scope="module")
def keep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-failures")


@pytest.mark.slow
@pytest.mark.parametrize("game", seed_game_names())
@settings(
    derandomize=True,
    max_examples=EXAMPLES_PER_GAME,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # a case seed does not shrink meaningfully
    suppress_health_check=[HealthCheck.too_slow],
)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_mutated_game_gives_findings_not_failures(
    corpus: Corpus, keep: Path, game: str, seed: int
) -> None:
    outcome = run_case(corpus, Case(game, seed), keep=keep)
    assert not outcome.failed, describe(outcome)


def test_print_settings_reads_no_huge_file_and_writes_through_no_link(tmp_path: Path) -> None:
    """The print-settings mutation, after others made a game's files a sparse terabyte and a
    link to a file outside the case (which holds a `game:` section), neither reads the one
    (a MemoryError stopped a long run) nor writes the other; it gives the case's own file its
    settings."""
    import random

    from scripts.fuzz import SeedGame, print_settings

    case = tmp_path / "case"
    case.mkdir()
    with (case / "a-huge.yaml").open("wb") as handle:
        handle.truncate(1 << 40)
    outside = tmp_path / "outside.yaml"
    outside.write_bytes(b"game:\n  id: elsewhere\n")
    (case / "b-link.yaml").symlink_to(outside)
    own = case / "c-game.yaml"
    own.write_bytes(b"game:\n  id: mine\n")
    said = print_settings(own, random.Random(7), SeedGame("case", case, (), (), ()), case)
    assert outside.read_bytes() == b"game:\n  id: elsewhere\n"
    assert b"print:" in own.read_bytes() and said.startswith("give c-game.yaml")
