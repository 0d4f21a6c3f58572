"""A saved or palette piece decoded from its type and state strings: its traits from the
outside in, the BasicPiece last, and what the importers read from them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from compiler.sequence import TAB, split

MAX_TRAITS = 500


@dataclass(frozen=True, slots=True)
class Trait:
    """One decorator (or the BasicPiece): its kind (`emb2`, `mark`, `piece` ...), the fields
    of its type after the kind, and its state."""

    kind: str
    fields: tuple[str, ...]
    state: str

    def at(self, index: int) -> str:
        return self.fields[index] if index < len(self.fields) else ""


@dataclass(frozen=True, slots=True)
class Piece:
    """A decoded piece. `props` are the values of its Marker traits and the BasicPiece's
    persistent properties; `layers` the level of each Layer by name (1 = first image)."""

    traits: tuple[Trait, ...]
    name: str
    image: str
    map: str
    x: int
    y: int
    gpid: str
    props: Mapping[str, str] = field(default_factory=dict)
    layers: Mapping[str, int] = field(default_factory=dict)
    rotation: int | None = None
    prototypes: tuple[str, ...] = ()

    def kinds(self) -> list[str]:
        return [t.kind for t in self.traits]


class PieceError(ValueError):
    """A type or state string that is not a piece definition."""


def split_traits(type_: str, state: str) -> list[Trait]:
    """Decorators from the outside in, each with its state; the BasicPiece last."""
    traits: list[Trait] = []
    while True:
        if len(traits) > MAX_TRAITS:
            raise PieceError(f"more than {MAX_TRAITS} traits")
        types = split(type_, TAB) if TAB in type_ else [type_]
        states = split(state, TAB) if TAB in state else [state]
        kind, _, rest = types[0].partition(";")
        if len(types) == 1:
            traits.append(Trait(kind, tuple(split(rest, ";")), states[0]))
            return traits
        traits.append(Trait(kind, tuple(split(rest, ";")), states[0]))
        type_ = types[1] if len(types) == 2 else TAB.join(types[1:])
        state = states[1] if len(states) > 1 else ""


def decode_piece(type_: str, state: str) -> Piece:
    """A piece from its type and state strings (PieceError when they are not one)."""
    traits = split_traits(type_, state)
    basic = traits[-1]
    if basic.kind != "piece":
        raise PieceError(f"the innermost trait is `{basic.kind}`, not a BasicPiece")
    place = split(basic.state, ";") if basic.state else []
    props: dict[str, str] = {}
    layers: dict[str, int] = {}
    rotation: int | None = None
    prototypes: list[str] = []
    for trait in traits[:-1]:
        if trait.kind == "mark":
            keys = split(trait.at(0), ",")
            values = split(trait.state, ",") if trait.state else []
            for index, key in enumerate(keys):
                props.setdefault(key, values[index] if index < len(values) else "")
        elif trait.kind == "emb2":
            layers.setdefault(trait.at(18), _level(trait.state))
        elif trait.kind == "rotate" and rotation is None:
            rotation = _int(split(trait.state, ";")[0], 0)
        elif trait.kind == "prototype":
            prototypes.append(trait.at(0))
    props.update(_persistent(place))
    return Piece(
        traits=tuple(traits),
        name=basic.at(3),
        image=basic.at(2),
        map=place[0] if place else "null",
        x=_int(place[1], 0) if len(place) > 1 else 0,
        y=_int(place[2], 0) if len(place) > 2 else 0,
        gpid=place[3] if len(place) > 3 else "",
        props=props,
        layers=layers,
        rotation=rotation,
        prototypes=tuple(prototypes),
    )


def _persistent(place: list[str]) -> dict[str, str]:
    """BasicPiece state: map;x;y;gpid;count;key;value;..."""
    if len(place) < 5:
        return {}
    count = _int(place[4], 0)
    values = place[5:]
    return {values[2 * i]: values[2 * i + 1] for i in range(min(count, len(values) // 2))}


def _level(state: str) -> int:
    """A Layer's state is its level, negative while the layer is switched off."""
    return abs(_int(split(state, ";")[0], 1))


def _int(text: str, default: int) -> int:
    try:
        return int(text.strip())
    except ValueError:
        try:
            return round(float(text))
        except (ValueError, OverflowError):
            return default
