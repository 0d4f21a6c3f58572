"""Constraints: which generic rule kinds a game uses, with which numbers (its rulebook as data).

A selector (`where`, `partner`, `locations` ...) maps attribute names to a value, a list of
values (any of them), or a string starting with "!" (anything but). See docs/data-format.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from compiler.model.common import Limit, Node, Number, Scalar, Text, doc

Selector = Mapping[str, Scalar | tuple[Scalar, ...]]
ANY: Selector = MappingProxyType({})
Target = Literal["units", "setup", "markers", "cards", "formations"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ConstraintBase(Node):
    """The keys every constraint has, whatever its `kind`: its id, what it says, the rulebook
    section, severity, and the titles and scenarios it applies to."""

    id: str = field(metadata=doc("Stable kebab-case rule id, printed in findings."))
    title: Text = field(metadata=doc("What the rule says, in a line."))
    ref: str = field(default="", metadata=doc("Rulebook section enforced, e.g. 2.2."))
    severity: Literal["error", "warning"] = field(default="error", metadata=doc("Severity."))
    hint: str = field(default="", metadata=doc("How to fix a finding."))
    titles: tuple[str, ...] = field(
        default=(), metadata=doc("Series titles it applies to.", example="[RTG, SIV]")
    )
    scenarios: tuple[str, ...] = field(default=(), metadata=doc("Scenarios it applies to."))


@dataclass(frozen=True, slots=True, kw_only=True)
class ValueRange(ConstraintBase):
    """A `value-range` constraint: a value of each matching record (a unit's front value, a setup
    state) lies within bounds or is one of a set."""

    kind: Literal["value-range"] = field(metadata=doc("Value within bounds or a set."))
    target: Target = field(metadata=doc("What is checked."))
    path: str = field(metadata=doc("Attribute path, e.g. front.cv, state.manpower."))
    where: Selector = field(default_factory=lambda: ANY, metadata=doc("Which records are checked."))
    min: Limit | None = field(
        default=None,
        metadata=doc(
            "Lowest value: a number, $param, or an expression over the record's values.",
            example="$min_army_tracks",
        ),
    )
    max: Limit | None = field(
        default=None,
        metadata=doc(
            "Highest value: a number, $param, or an expression over the record's values "
            "(its current state at setup), e.g. `2 * steps`.",
            example='"2 * steps"',
        ),
    )
    allowed: tuple[Scalar, ...] = field(default=(), metadata=doc("Allowed values."))
    required: bool = field(default=False, metadata=doc("The value must be present."))
    integer: bool = field(default=False, metadata=doc("The value must be a whole number."))
    absent: bool = field(
        default=False,
        metadata=doc(
            "The value must not be set: a matching record that sets it is a finding.",
            example="true",
        ),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldCompare(ConstraintBase):
    """A `field-compare` constraint: two values of the same record compare as stated, e.g. a unit's
    back strength is at most its front strength."""

    kind: Literal["field-compare"] = field(metadata=doc("Compare two values of one record."))
    target: Target = field(default="units", metadata=doc("What is checked."))
    where: Selector = field(default_factory=lambda: ANY, metadata=doc("Which records are checked."))
    left: str = field(metadata=doc("Attribute path, e.g. back.strength."))
    op: Literal["<=", "<", "==", "!=", ">=", ">"] = field(metadata=doc("Comparison."))
    right: str = field(metadata=doc("Attribute path, e.g. front.strength."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Weight(Node):
    """What each matching piece or formation weighs, under a `stacking` cap's or an `attachment-
    limit`'s `weights:`; the first matching weight applies."""

    where: Selector = field(
        default_factory=lambda: ANY, metadata=doc("Pieces this weight applies to.")
    )
    weight: Number = field(metadata=doc("Weight of each matching piece."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Cap(Node):
    """One cap of a `stacking` constraint, under its `caps:`: the most a location may hold, counted
    in weights."""

    name: Text = field(metadata=doc("What is counted, e.g. division equivalents."))
    max: Limit = field(
        metadata=doc(
            "Most allowed per location: a number, $param, or an expression over the counted "
            "pieces (sum(steps), count() ...)."
        )
    )
    weights: tuple[Weight, ...] = field(
        default=(), metadata=doc("First matching weight applies; none matching weighs `default`.")
    )
    default: Number = field(default=0, metadata=doc("Weight of pieces no rule matches."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Stacking(ConstraintBase):
    """A `stacking` constraint: at setup, the weighted pieces in each location stay within every
    cap."""

    kind: Literal["stacking"] = field(metadata=doc("Weighted caps per location at setup."))
    where: Selector = field(
        default_factory=lambda: ANY,
        metadata=doc("Pieces counted at all.", example="{category: [combat, leader]}"),
    )
    locations: Selector = field(
        default_factory=lambda: ANY, metadata=doc("Locations the caps apply to.")
    )
    caps: tuple[Cap, ...] = field(metadata=doc("Caps, each with its own weights."))


@dataclass(frozen=True, slots=True, kw_only=True)
class MixedSides(ConstraintBase):
    """A `mixed-sides` constraint: no location starts with pieces of two sides."""

    kind: Literal["mixed-sides"] = field(metadata=doc("No location holds pieces of two sides."))
    where: Selector = field(
        default_factory=lambda: ANY,
        metadata=doc("Pieces that count.", example="{category: combat}"),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class SetupZone(ConstraintBase):
    """A `setup-zone` constraint: matching pieces start only in allowed locations (and, optionally,
    enter only there as reinforcements)."""

    kind: Literal["setup-zone"] = field(metadata=doc("Where matching pieces may be set up."))
    where: Selector = field(default_factory=lambda: ANY, metadata=doc("Pieces checked."))
    allowed: Selector = field(
        default_factory=lambda: ANY, metadata=doc("Locations they must be in.")
    )
    forbidden: Selector | None = field(default=None, metadata=doc("Locations they may not be in."))
    reinforcements: bool = field(default=False, metadata=doc("Also check entry locations."))


@dataclass(frozen=True, slots=True, kw_only=True)
class MixLimit(Node):
    """One limit of a `counter-mix` constraint, under its `limits:`: the most (or exactly how many)
    units of a group the counter mix holds."""

    name: Text = field(metadata=doc("What is limited, e.g. French blocks."))
    where: Selector = field(
        default_factory=lambda: ANY, metadata=doc("Units counted (copies add up).")
    )
    max: Limit = field(metadata=doc("Most allowed, or $param."))
    exact: bool = field(default=False, metadata=doc("The counter mix must hold exactly max."))


@dataclass(frozen=True, slots=True, kw_only=True)
class CounterMix(ConstraintBase):
    """A `counter-mix` constraint: groups of units stay within their limits, both in the counter mix
    and in what each scenario sets up and brings in."""

    kind: Literal["counter-mix"] = field(metadata=doc("Limits on the counter mix and its use."))
    limits: tuple[MixLimit, ...] = field(metadata=doc("Limits per group of units."))


@dataclass(frozen=True, slots=True, kw_only=True)
class MarkerSupply(ConstraintBase):
    """A `marker-supply` constraint: a setup needs no more markers of each value than the counter
    mix has (e.g. GCACW strength markers)."""

    kind: Literal["marker-supply"] = field(
        metadata=doc("A setup needs no more markers of a value than the mix has.")
    )
    state: str = field(metadata=doc("State key whose value needs a marker, e.g. manpower."))
    markers: str = field(metadata=doc("Marker set id providing those markers."))
    zero_needs_marker: bool = field(
        default=False, metadata=doc("Value 0 needs a marker too.", example="true")
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class StackWith(ConstraintBase):
    """A `stack-with` constraint: matching pieces (e.g. leaders) must start stacked with a partner
    piece."""

    kind: Literal["stack-with"] = field(metadata=doc("Pieces must start with a partner piece."))
    where: Selector = field(metadata=doc("Pieces checked (e.g. leaders)."))
    partner: Selector = field(default_factory=lambda: ANY, metadata=doc("What a partner must be."))
    subordinate: bool = field(
        default=False, metadata=doc("The partner must belong to the formation the leader commands.")
    )
    same_side: bool = field(
        default=True, metadata=doc("The partner is of the same side.", example="false")
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class AttachmentLimit(ConstraintBase):
    """An `attachment-limit` constraint: the weighted formations attached to a parent formation stay
    within the parent's printed attachment limit."""

    kind: Literal["attachment-limit"] = field(
        metadata=doc("Weighted formations attached to a parent stay within its printed limit.")
    )
    parents: Selector = field(
        default_factory=lambda: ANY, metadata=doc("Parent formations checked.")
    )
    weights: tuple[Weight, ...] = field(metadata=doc("Weights of attached formations."))
    default: Number = field(default=0, metadata=doc("Weight of formations no rule matches."))
    arm_match: bool = field(
        default=False,
        metadata=doc("Cavalry-only parents take cavalry only; other parents take no cavalry."),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class DeckLimit(Node):
    """The size of one deck in a `deck-size` constraint, under its `decks:`: exactly `size` cards,
    or between `min` and `max`."""

    deck: str = field(metadata=doc("Deck id."))
    size: Limit | None = field(
        default=None, metadata=doc("Exact number of cards, or $param.", example="$german_deck")
    )
    min: Limit | None = field(default=None, metadata=doc("Fewest cards, or $param."))
    max: Limit | None = field(default=None, metadata=doc("Most cards, or $param.", example="60"))


@dataclass(frozen=True, slots=True, kw_only=True)
class DeckSize(ConstraintBase):
    """A `deck-size` constraint: each listed deck holds the right number of cards (copies add
    up)."""

    kind: Literal["deck-size"] = field(metadata=doc("Card counts per deck (copies add up)."))
    decks: tuple[DeckLimit, ...] = field(metadata=doc("Sizes per deck."))


@dataclass(frozen=True, slots=True, kw_only=True)
class HandSize(ConstraintBase):
    """A `hand-size` constraint: the cards in each starting hand and the most a hand may hold."""

    kind: Literal["hand-size"] = field(metadata=doc("Starting hand and hand limit."))
    starting: Limit = field(
        default="$starting_hand",
        metadata=doc(
            "Cards in each starting hand: a number or $param (default: the game's "
            "`starting_hand` param).",
            example="$starting_hand",
        ),
    )
    limit: Limit = field(
        default="$hand_limit",
        metadata=doc(
            "Most cards in a hand: a number or $param (default: the game's `hand_limit` param).",
            example="$hand_limit",
        ),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class DeckNumbers(ConstraintBase):
    """A `deck-numbers` constraint: the cards of a numbered deck carry the numbers `first` to
    `last`, each once and none missing, and each card's copies match the printed list."""

    kind: Literal["deck-numbers"] = field(
        metadata=doc("Card numbers unique, contiguous, in range; copies as printed.")
    )
    deck: str = field(metadata=doc("Deck id.", example="tactics"))
    first: Limit = field(default=1, metadata=doc("Lowest card number, or $param."))
    last: Limit | None = field(
        default=None,
        metadata=doc("Highest card number, or $param (none: the highest used).", example="92"),
    )
    unique: bool = field(default=True, metadata=doc("No number is used twice.", example="false"))
    contiguous: bool = field(
        default=True, metadata=doc("No number between first and last is missing.", example="false")
    )
    copies: int | None = field(
        default=None,
        metadata=doc("Copies of every card (a list that prints no copy column).", example="1"),
    )
    printed: Mapping[str, int] = field(
        default_factory=lambda: MappingProxyType({}),
        metadata=doc(
            "The printed copy count per card, by card number or card id.",
            example="{1: 2, t05-1500-yards: 1}",
        ),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class DeckRules(ConstraintBase):
    """A `deck-rules` constraint: what a deck may never do, e.g. go into a hand."""

    kind: Literal["deck-rules"] = field(metadata=doc("What a deck may never do."))
    never_in_hand: Selector | None = field(
        default=None,
        metadata=doc(
            "Decks (by id, kind, side) whose cards never go into a hand: marking one "
            "`hand: true` is a finding.",
            example="{kind: formation}",
        ),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Holder(Node):
    """Under an `aggregate`'s `holder:`: the piece a location group belongs to, e.g. the carrier
    whose air-group box it is. Its values are `holder.<name>` in the bound."""

    where: Selector = field(metadata=doc("Pieces that hold a box.", example="{type: cv}"))
    at: str = field(
        metadata=doc(
            "The id of the location a holder holds, with `{name}` replaced by the holder's values.",
            example='"air-group-{id}"',
        )
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Aggregate(ConstraintBase):
    """An `aggregate` constraint: a value summed (or multiplied, or its least or greatest) over
    the members of each group (a location at setup, a formation, a side) compares with a bound,
    which may itself depend on the group's current state."""

    kind: Literal["aggregate"] = field(
        metadata=doc("Sums and products of values across a stack, formation or side.")
    )
    group: Literal["location", "formation", "side"] = field(
        metadata=doc("What members are grouped by.", example="location")
    )
    target: Literal["setup", "units"] = field(
        default="setup",
        metadata=doc(
            "Members: pieces each scenario sets up, or the units of the counter mix (copies "
            "count), for formation and side groups.",
            example="units",
        ),
    )
    where: Selector = field(default_factory=lambda: ANY, metadata=doc("Members counted."))
    groups: Selector = field(
        default_factory=lambda: ANY,
        metadata=doc(
            "Groups checked: a location, formation or side (`id`) selector.",
            example="{level: corps}",
        ),
    )
    value: str = field(
        default="1",
        metadata=doc(
            "Expression over each member's values, e.g. `front.cv`, `steps >= 2` (1 or 0); "
            "default 1 (counts members).",
            example="front.cv",
        ),
    )
    total: Literal["sum", "product", "min", "max"] = field(
        default="sum", metadata=doc("How members' values combine.", example="product")
    )
    op: Literal["<=", "<", "==", "!=", ">=", ">"] = field(
        default="<=", metadata=doc("Comparison of the total with the bound.", example='">="')
    )
    bound: Limit = field(
        metadata=doc(
            "Number, $param, or expression over the group: `holder.<name>`, sum(...), count(...).",
            example='"2 * holder.steps"',
        )
    )
    holder: Holder | None = field(
        default=None,
        metadata=doc("For location groups: the piece whose box the location is."),
    )


Constraint = (
    ValueRange
    | FieldCompare
    | Stacking
    | MixedSides
    | SetupZone
    | CounterMix
    | MarkerSupply
    | StackWith
    | AttachmentLimit
    | DeckSize
    | HandSize
    | DeckNumbers
    | DeckRules
    | Aggregate
)
