"""Charts as data: tables with columns, rows, cells and notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from compiler.model.common import NO_TEXT, Node, Scalar, Text, doc


@dataclass(frozen=True, slots=True, kw_only=True)
class Column(Node):
    """A column of a chart, under a chart's `columns:`: an id and its heading."""

    id: str = field(metadata=doc("Column id."))
    label: Text = field(metadata=doc("Column heading."))


@dataclass(frozen=True, slots=True, kw_only=True)
class Row(Node):
    """A row of a chart, under a chart's `rows:`: its heading and one cell per column, optionally
    with shaded cells and counter images."""

    label: Text = field(metadata=doc("Row heading."))
    cells: tuple[Scalar | Text, ...] = field(metadata=doc("One cell per column."))
    terrain: str = field(default="", metadata=doc("Terrain id (terrain-effects charts)."))
    shaded: tuple[int, ...] = field(default=(), metadata=doc("Indexes of shaded cells."))
    pieces: tuple[str, ...] = field(
        default=(),
        metadata=doc(
            "Unit ids drawn as counter images in the row (`id:back` for the back side); "
            "a chart with pieces gets a column of them.",
            example="[fr-guard-light-cav, 'nl-perponcher:back']",
        ),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Chart(Node):
    """A chart or table under `charts:` (terrain effects, combat results ...) as columns, rows and
    footnotes; drawn on the chart sheets and in the module."""

    id: str = field(metadata=doc("Chart id."))
    name: Text = field(metadata=doc("Chart title."))
    kind: Literal["table", "terrain", "combat", "other"] = field(
        default="table", metadata=doc("Chart kind.")
    )
    title: str = field(
        default="", metadata=doc("Series title the chart belongs to.", example="HCR")
    )
    reference: str = field(default="", metadata=doc("Rulebook section, e.g. 7.4."))
    corner: Text = field(default=NO_TEXT, metadata=doc("Text of the top-left cell."))
    columns: tuple[Column, ...] = field(metadata=doc("Columns."))
    rows: tuple[Row, ...] = field(metadata=doc("Rows."))
    notes: tuple[Text, ...] = field(default=(), metadata=doc("Footnotes."))


@dataclass(frozen=True, slots=True, kw_only=True)
class AidCard(Node):
    """A player-aid card under `aid_cards:`: charts printed together on one page of
    `charts.pdf` under the card's title (a combat card: the combat results, the terrain
    effects and the modifiers). Cards come first in `charts.pdf`, in the order they are
    listed, each on a page of its own (landscape when one of its charts is wide, drawn smaller,
    down to 60 %, when it would not fit); the charts no card names follow, then the derived
    player aids."""

    id: str = field(metadata=doc("Card id.", example="combat-card"))
    name: Text = field(metadata=doc("Card title, printed at the top of its page."))
    charts: tuple[str, ...] = field(
        metadata=doc(
            "Ids of the charts on the card (from `charts:`), in the order they are printed.",
            example="[combat-results, terrain-effects, combat-modifiers]",
        )
    )
