"""Game-level records: identity, sides, nationalities, dice, turn track, titles of a series."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from compiler.model.common import NO_TEXT, Node, Number, Text, doc

NO_PARAMS: Mapping[str, Number] = MappingProxyType({})


@dataclass(frozen=True, slots=True, kw_only=True)
class Side(Node):
    """A side (player) of the game, listed under `game: sides:`. Nationalities, formations, units,
    boxes and decks name their side by its id."""

    id: str = field(metadata=doc("Side id, e.g. union, french, allied."))
    name: Text = field(metadata=doc("Side name."))
    colour: str = field(default="#808080", metadata=doc("Colour as #rrggbb."))


@dataclass(frozen=True, slots=True, kw_only=True)
class ColourVariant(Node):
    """Other colours for a nationality's units that carry a tag, under a nationality's `variants:`
    (e.g. the French Guard's green label centre). A colour left empty keeps the nationality's."""

    tag: str = field(
        metadata=doc("Units of the nationality carrying this tag (e.g. guard) use it.")
    )
    colour: str = field(
        default="",
        metadata=doc("Background colour, #rrggbb; empty: unchanged.", example="'#1b5e20'"),
    )
    text_colour: str = field(
        default="", metadata=doc("Text colour, #rrggbb; empty: unchanged.", example="'#ffffff'")
    )
    centre_colour: str = field(
        default="", metadata=doc("Block label centre colour, #rrggbb; empty: unchanged.")
    )


@dataclass(frozen=True, slots=True)
class UnitColours:
    """The colours a unit is drawn in (strings as written; checked by the bad-colour rule)."""

    colour: str
    text_colour: str
    centre_colour: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Nationality(Node):
    """A nationality under `game: nationalities:`: the side it fights for and the colours its
    counters or block labels are printed in."""

    id: str = field(metadata=doc("Nationality id, e.g. prussian, dutch, ru."))
    name: Text = field(metadata=doc("Nationality name."))
    side: str = field(metadata=doc("The side this nationality fights for."))
    colour: str = field(metadata=doc("Counter background colour, #rrggbb."))
    text_colour: str = field(default="#000000", metadata=doc("Counter text colour, #rrggbb."))
    centre_colour: str = field(
        default="",
        metadata=doc(
            "Block label centre colour, #rrggbb: the label is the background colour with a "
            "centre panel of this colour (as on Columbia Games labels). Empty: a plain label."
        ),
    )
    variants: tuple[ColourVariant, ...] = field(
        default=(),
        metadata=doc("Other colours for units with a tag, e.g. the French Guard's green centre."),
    )

    def colours_for(self, tags: tuple[str, ...]) -> UnitColours:
        """The colours of a unit with `tags`: the first variant whose tag it carries wins."""
        colours = UnitColours(self.colour, self.text_colour, self.centre_colour)
        for variant in self.variants:
            if variant.tag in tags:
                return UnitColours(
                    variant.colour or colours.colour,
                    variant.text_colour or colours.text_colour,
                    variant.centre_colour or colours.centre_colour,
                )
        return colours


@dataclass(frozen=True, slots=True, kw_only=True)
class Die(Node):
    """A dice button of the VASSAL module, under `game: dice:`, e.g. `2d6`: two six-sided dice
    rolled together."""

    id: str = field(metadata=doc("Dice button id, e.g. 1d6, 2d6, 1d10."))
    count: int = field(default=1, metadata=doc("Number of dice rolled."))
    faces: int = field(default=6, metadata=doc("Faces per die."))
    name: Text = field(default=NO_TEXT, metadata=doc("Button label."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn(Node):
    """One box of the turn record track, under `game: turns:` (or a title's `turns:` in a
    series), numbered from 1, with its label, date and marks."""

    n: int = field(metadata=doc("Turn number, counting from 1."))
    label: Text = field(default=NO_TEXT, metadata=doc("Label on the turn track."))
    date: str = field(default="", metadata=doc("Date or period, e.g. 1862-06-27, 'Aug 1914'."))
    time: Literal["day", "night", ""] = field(default="", metadata=doc("Day or night turn."))
    season: str = field(default="", metadata=doc("Season or weather class."))
    side: str = field(default="", metadata=doc("Side whose turn this is (Napoleon F/A turns)."))
    interphase: bool = field(default=False, metadata=doc("An interphase follows this turn."))
    marks: tuple[str, ...] = field(default=(), metadata=doc("Other marks on the track box."))


@dataclass(frozen=True, slots=True, kw_only=True)
class ValueDef(Node):
    """A value printed on counters or kept in the setup state, under `game: values:` (combat value,
    manpower, fatigue ...). Units' `front` and `back` and setup `state` use only the ids declared
    here."""

    id: str = field(metadata=doc("Value id used in unit faces and setup states."))
    name: Text = field(metadata=doc("Value name."))
    kind: Literal["number", "text"] = field(default="number", metadata=doc("Value kind."))
    min: Number | None = field(default=None, metadata=doc("Lowest value any counter may show."))
    max: Number | None = field(default=None, metadata=doc("Highest value any counter may show."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Title(Node):
    """One title of a series, under `game: titles:` (GCACW: SJW, HCR, RTG, ...). Its `params`
    override the game's for records that carry its id in `title:`, and its `turns:` (its own
    turn record track and dates) replace the game's for its scenarios."""

    id: str = field(metadata=doc("Title id, e.g. RTG."))
    name: Text = field(metadata=doc("Title name."))
    year: int = field(default=0, metadata=doc("Year class of the title (GCACW 1862/1863/1864)."))
    params: Mapping[str, Number] = field(
        default_factory=lambda: NO_PARAMS,
        metadata=doc("Overrides of the game's parameters for this title."),
    )
    turns: tuple[Turn, ...] = field(
        default=(),
        metadata=doc(
            "This title's own turn record track, numbered from 1 (its scenarios' turns and the "
            "module's and player aids' track for it); empty: the game's `turns:`."
        ),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class TerrainType(Node):
    """A terrain type under `game: terrain:`; sheets, hexes and areas name it by id, and hexside
    features (rivers, roads) are terrain types too."""

    id: str = field(metadata=doc("Terrain id, e.g. clear, woods, mountain, sea."))
    name: Text = field(metadata=doc("Terrain name."))
    colour: str = field(default="#e8e0c8", metadata=doc("Board colour, #rrggbb."))
    water: bool = field(default=False, metadata=doc("Land units cannot be set up here."))
    hexside: bool = field(default=False, metadata=doc("A hexside or road feature, not a hex."))


@dataclass(frozen=True, slots=True, kw_only=True)
class PrintSettings(Node):
    """How this game's counter and card sheets are printed, under `game: print:`; the command line
    can override each setting."""

    counter_size: str = field(
        default="5/8in",
        metadata=doc("Counter size: 1/2in, 9/16in, 5/8in, 3/4in, 1in or 16mm.", example="9/16in"),
    )
    paper: Literal["A4", "Letter"] = field(
        default="A4", metadata=doc("Paper size.", example="Letter")
    )
    margin_mm: float = field(default=10.0, metadata=doc("Page margin in mm.", example="12"))
    gutter_mm: float = field(
        default=0.0, metadata=doc("Space between counters (0: edge to edge).", example="1.5")
    )
    bleed_mm: float = field(default=1.0, metadata=doc("Bleed in mm.", example="0"))
    duplex: Literal["mirror", "gutter-fold", "none"] = field(
        default="mirror",
        metadata=doc("Backs on mirrored pages, folded, or none.", example="gutter-fold"),
    )
    back_offset_mm: tuple[float, float] = field(
        default=(0.0, 0.0),
        metadata=doc("Shift of back pages (x, y) in mm for your printer.", example="[0.5, -0.3]"),
    )
    card_size: str = field(
        default="63x88mm", metadata=doc("Card size (poker: 63x88mm).", example="57x89mm")
    )
    lang: Literal["en", "ja"] = field(
        default="en", metadata=doc("Language of printed text.", example="ja")
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Game(Node):
    """The game itself, under `game:` in exactly one file: its id and title, sides,
    nationalities, dice, turn track, values, terrain and parameters. A series (GCACW) also lists
    its titles here."""

    id: str = field(metadata=doc("Game id; equals the folder name under sources/."))
    title: Text = field(metadata=doc("Game title, English and Japanese."))
    version: str = field(default="0.1", metadata=doc("Version of this data / module."))
    publisher: str = field(default="", metadata=doc("Publisher."))
    series: str = field(default="", metadata=doc("Series name when the game is a series."))
    rules: str = field(default="", metadata=doc("Rulebook this data follows."))
    description: Text = field(default=NO_TEXT, metadata=doc("Short description."))
    notes: str = field(default="", metadata=doc("Notes on sources; say here what is illustrative."))
    sides: tuple[Side, ...] = field(metadata=doc("The sides (players)."))
    nationalities: tuple[Nationality, ...] = field(default=(), metadata=doc("Nationalities."))
    dice: tuple[Die, ...] = field(default=(), metadata=doc("Dice the game uses."))
    turns: tuple[Turn, ...] = field(
        default=(),
        metadata=doc("The turn record track (of every title without a `turns:` of its own)."),
    )
    values: tuple[ValueDef, ...] = field(
        default=(), metadata=doc("Values printed on counters or kept in setup state.")
    )
    terrain: tuple[TerrainType, ...] = field(default=(), metadata=doc("Terrain types."))
    params: Mapping[str, Number] = field(
        default_factory=lambda: NO_PARAMS,
        metadata=doc("Named numbers that constraints refer to as $name."),
    )
    titles: tuple[Title, ...] = field(default=(), metadata=doc("Titles of a series."))
    print: PrintSettings | None = field(
        default=None,
        metadata=doc("Print sheet settings.", example="{counter_size: 1/2in, paper: Letter}"),
    )

    def turns_for(self, title_id: str) -> tuple[Turn, ...]:
        """The turn track of records of title `title_id`: the title's own `turns:` when it has
        them, else the game's (also for no title or an unknown one)."""
        title = next((t for t in self.titles if t.id == title_id), None) if title_id else None
        return title.turns if title is not None and title.turns else self.turns

    def turn_tracks(self) -> tuple[TurnTrack, ...]:
        """Every turn track the game shows: one per title with its own `turns:`, then the
        game's when it has one and something may use it (no titles, or a title without its
        own track)."""
        own = tuple(TurnTrack(t, t.turns) for t in self.titles if t.turns)
        needs_game = not self.titles or any(not t.turns for t in self.titles)
        game = (TurnTrack(None, self.turns),) if self.turns and needs_game else ()
        return own + game


@dataclass(frozen=True, slots=True)
class TurnTrack:
    """One turn record track as shown: a title's own (`title` set) or the game's."""

    title: Title | None
    turns: tuple[Turn, ...]
