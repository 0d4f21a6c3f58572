"""The rule catalogue: built-in rules (ids, titles) and the generic constraint kinds."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RuleInfo:
    id: str
    title: str
    group: str


def _rules(group: str, *pairs: tuple[str, str]) -> list[RuleInfo]:
    return [RuleInfo(rule_id, title, group) for rule_id, title in pairs]


BUILTIN_RULES: tuple[RuleInfo, ...] = tuple(
    _rules(
        "files",
        ("file-unreadable", "A data file or game folder cannot be read"),
        ("file-too-large", "A data file is larger than 16 MiB"),
        ("binary-file", "A data file holds binary data"),
        ("not-utf8", "A data file is not UTF-8 text"),
        ("empty-file", "A data file holds no data"),
        ("yaml-syntax", "A data file is not valid YAML"),
        ("alias-bomb", "YAML aliases expand the data beyond reason"),
    )
    + _rules(
        "schema",
        ("duplicate-key", "A key appears twice in one mapping"),
        ("unknown-key", "A key the format does not know (with a suggestion)"),
        ("missing-key", "A required key is missing"),
        ("wrong-type", "A value has the wrong type or is not one of the allowed words"),
        ("missing-section", "The game has no `game:` section"),
    )
    + _rules(
        "integrity",
        ("duplicate-id", "Ids are unique within a game"),
        ("unresolved-reference", "Every reference by id names something defined"),
        ("reference-cycle", "Formations do not contain themselves; aliases do not recurse"),
        ("unknown-value", "Counter values and setup state keys are declared in game.values"),
        ("unknown-location", "Every setup and entry location exists on the scenario's maps"),
        ("reinforcement-turn", "Reinforcements and withdrawals fall inside the scenario"),
        ("scenario-turns", "A scenario's turns exist on the turn track"),
        ("turn-track", "Turns are numbered 1, 2, 3 ... without gaps"),
        ("placed-twice", "A unit is placed at most once per scenario"),
        ("too-many-copies", "A scenario uses no more of a counter than the mix holds"),
        ("no-back-side", "A piece set up on its back has a back side"),
        ("steps-range", "Steps at setup lie between 1 and the unit's full steps"),
        ("chart-shape", "Each chart row has one cell per column"),
        ("player-aids", "The player-aids template renders to valid chart data"),
        ("bad-colour", "Colours are written #rrggbb"),
        ("layout-slot", "Layout slots have text sizes and boxes that fit the face"),
        ("unknown-param", "A $parameter named in a constraint is defined"),
        (
            "bad-expression",
            "A bound or value written as an expression parses and reads only known values",
        ),
        (
            "path-outside-game",
            "Paths in the data stay inside the game folder (board and piece art); the game id "
            "is a plain folder name",
        ),
    )
    + _rules(
        "build",
        ("board-image", "Board art exists, is readable and of sane size"),
        (
            "art-error",
            "Every piece can be drawn (its symbol is known) and its pictures (piece art) read",
        ),
        ("missing-font", "The fonts the faces need are installed (Japanese: IPAex Gothic)"),
        ("print-settings", "The game's print settings can be used (sizes, paper, offsets)"),
        ("text-overflow", "Text that had to be shortened to fit its layout slot (a warning)"),
        (
            "untranslated-text",
            "Texts the module shows that have no Japanese yet, counted per game (a warning, "
            "on request)",
        ),
    )
    + _rules(
        "import",
        ("import-unknown-piece", "Every piece of an imported save is a unit, marker or card"),
        ("import-off-location", "Every piece of an imported save lies on a location"),
        ("import-no-entry", "A reinforcement in an imported save knows where it enters"),
        ("import-card", "Cards of an imported save lie in the game's decks"),
    )
)

KIND_TITLES: dict[str, str] = {
    "value-range": "A value lies within bounds or a set (per-title overrides through $params)",
    "field-compare": "Two values of one record compare as the rules say",
    "stacking": "Weighted caps per location at setup",
    "mixed-sides": "No location holds pieces of two sides",
    "setup-zone": "Pieces start only where the rules allow",
    "counter-mix": "Limits on the counter mix and on what a scenario uses",
    "marker-supply": "A setup needs no more markers of a value than the mix holds",
    "stack-with": "A piece (a leader) starts stacked with a suitable partner",
    "attachment-limit": "Formations attached to a parent stay within its printed limit",
    "deck-size": "Each deck holds the number of cards the rules give",
    "hand-size": "Starting hands and the hand limit (from the game's params)",
    "deck-numbers": "A numbered deck's cards: numbers unique, none missing, copies as printed",
    "deck-rules": "What a deck may never do (a deck that never goes into a hand)",
    "aggregate": "Sums and products of values across a stack, a formation or a side, "
    "against a bound that may read the group's current state",
}
