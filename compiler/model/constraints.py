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
    min: Limit | None = field(default=None, metadata=doc("Lowest value, or $param."))
    max: Limit | None = field(default=None, metadata=doc("Highest value, or $param."))
    allowed: tuple[Scalar, ...] = field(default=(), metadata=doc("Allowed values."))
    required: bool = field(default=False, metadata=doc("The value must be present."))
    integer: bool = field(default=False, metadata=doc("The value must be a whole number."))


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
    max: Limit = field(metadata=doc("Most allowed per location, or $param."))
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
    size: int | None = field(default=None, metadata=doc("Exact number of cards."))
    min: int | None = field(default=None, metadata=doc("Fewest cards."))
    max: int | None = field(default=None, metadata=doc("Most cards.", example="60"))


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
    starting: int = field(metadata=doc("Cards in each starting hand."))
    limit: int = field(metadata=doc("Most cards in a hand."))


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
)
