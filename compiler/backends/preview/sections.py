"""The sections of one edition on the preview page: pieces as the trays group them, markers,
cards by deck, scenarios, sheet page thumbnails and charts."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain, groupby
from operator import attrgetter, itemgetter
from typing import Protocol

from compiler.backends.art.faces import figure
from compiler.backends.preview import unitorder
from compiler.backends.preview.html import Sources, e
from compiler.backends.preview.kept import RUN_UNITS, KeptRuns
from compiler.backends.preview.sprites import Cell, distinct_faces
from compiler.backends.preview.thumbs import Thumb
from compiler.backends.preview.unitorder import Order
from compiler.backends.vassal.buildfile import ModulePlan
from compiler.backends.vassal.pieces import Images
from compiler.diagnostics import Location
from compiler.i18n import tr
from compiler.model.common import Scalar
from compiler.model.digests import content_digest
from compiler.model.gamedata import GameData
from compiler.model.units import Unit

Picture = Callable[[str], str]
"""An image of the module (its name inside images/) → the preview file's name."""
Pictures = Callable[[Iterable[str]], None]
"""Images of the module named at once (each preview file's name is what `Picture` gives)."""


class Sprites(Protocol):
    """The sprites of the units' faces (see sprites): build.SpriteFiles."""

    def name(self, faces: Sequence[str]) -> str:
        """The preview file of the sprite of `faces` (module image names, each once), which
        the page's images now include."""
        ...

    def cells(self, faces: Sequence[str]) -> Mapping[str, Cell]:
        """Each face's cell in that sprite."""
        ...


@dataclass(frozen=True)
class Context:
    """What every section needs: the edition's game and plan, the language, the anchor prefix,
    the source links and where each image went."""

    game: GameData
    plan: ModulePlan
    lang: str
    anchor: str
    sources: Sources
    picture: Picture
    pictures: Pictures | None = None
    """Images of the module named at once (None: one by one, with `picture`)."""
    kept: KeptRuns | None = None
    """The runs of units of the last build (None: every item is made)."""
    sprites: Sprites | None = None
    """The sprites of the units' faces (None: no units section can be made)."""

    def tr(self, message: str) -> str:
        return tr(message, self.lang)

    def sprite_sheets(self) -> Sprites:
        if self.sprites is None:
            raise ValueError("the units section is made with the sprites of its faces")
        return self.sprites


def _values(values: Mapping[str, Scalar] | None) -> str:
    if not values:
        return ""
    return ", ".join(f"{key} {figure(value)}" for key, value in values.items())


def _img(src: str, alt: str) -> str:
    return f'<img src="{e(src)}" alt="{e(alt)}" loading="lazy" decoding="async">'


def _faces(ctx: Context, name: str, images: Images) -> str:
    back = partial(_img, ctx.picture(images.back)) if images.back else None
    return _shown_faces(ctx, name, partial(_img, ctx.picture(images.front)), back)


def _shown_faces(
    ctx: Context, name: str, front: Callable[[str], str], back: Callable[[str], str] | None
) -> str:
    """A piece's faces, each an <img> made by `front` or `back` from its alt text (no back:
    None): a preview file's (`_img`) or a cell of a sprite's (`_cut`)."""
    shown = [front(f"{ctx.tr('Front')}: {name}")]
    if back is not None:
        shown.append(back(f"{ctx.tr('Back')}: {name}"))
    return f'<div class="faces">{"".join(shown)}</div>'


def _item(ctx: Context, kind: str, ident: str, faces: str, lines: list[str], loc: Location) -> str:
    meta = "".join(f"<br>{line}" for line in lines if line)
    return (
        f'<li id="{e(ctx.anchor)}-{kind}-{e(ident)}" class="{kind}">{faces}'
        f'<p class="meta"><code>{e(ident)}</code>{meta}<br>{ctx.sources.link(loc)}</p></li>\n'
    )


def unit_words(lang: str) -> tuple[str, ...]:
    """The words of the language a unit's item is written with (in a kept record's shared
    part)."""
    return tuple(tr(word, lang) for word in ("Front", "Back", "Steps", "Copies"))


def _cut(src: str, cell: Cell, alt: str) -> str:
    """A face shown from its sprite `src`: the sprite cut to the face's cell (html.STYLE)."""
    return (
        f'<img class="sp" src="{e(src)}" alt="{e(alt)}" loading="lazy" decoding="async" '
        f'style="width:{cell.width}px;object-position:0 {-cell.top}px">'
    )


def _unit_item(ctx: Context, unit: Unit, src: str, shown: Cell, turned: Cell | None) -> str:
    """A unit's item made: its faces (its front's and its back's cells of the sprite `src`;
    no back: None), name and values."""
    name = unit.name.get(ctx.lang)
    lines = [e(name)]
    front, back = _values(unit.front), _values(unit.back)
    if front:
        lines.append(f"{e(ctx.tr('Front'))}: {e(front)}")
    if back:
        lines.append(f"{e(ctx.tr('Back'))}: {e(back)}")
    if unit.steps > 1:
        lines.append(f"{e(ctx.tr('Steps'))}: {unit.steps}")
    if unit.copies != 1:
        lines.append(f"{e(ctx.tr('Copies'))}: {unit.copies}")
    back_cut = partial(_cut, src, turned) if turned is not None else None
    faces = _shown_faces(ctx, name, partial(_cut, src, shown), back_cut)
    return _item(ctx, "unit", unit.id, faces, lines, unit.loc)


def _opening(ctx: Context, part: str, title: str) -> str:
    """The start of one of an edition's sections: its anchor (the edition's, then `part`) and
    its heading."""
    return f'<section id="{e(ctx.anchor)}-{part}"><h3>{e(title)}</h3>\n'


def units_section(ctx: Context) -> str | bytes:
    """Counters and blocks by side, then by formation (the module's trays): in runs of units
    kept from the last build (see kept), each made again only when one of its units, or what
    comes before one, changed; the order of the units and the runs' keys kept too (see
    unitorder), so that a warm build works out again only the runs of the units that
    changed. With the runs kept, the section is UTF-8 bytes (the runs' own: see
    kept.KeptRuns.found)."""
    game = ctx.game
    if not game.units:
        return ""
    opening = _opening(ctx, "units", ctx.tr("Counters and blocks"))
    if ctx.kept is not None:
        runs = kept_units(ctx, ctx.kept)
        return b"".join([opening.encode("utf-8"), *runs, b"</ul>\n</section>\n"])
    blocks = _unit_blocks(ctx)
    units = list(chain.from_iterable(members for _, members in blocks))
    images = list(map(ctx.plan.unit_images.__getitem__, map(attrgetter("id"), units)))
    fronts = list(map(attrgetter("front"), images))
    backs = list(map(attrgetter("back"), images))
    before = _before(blocks, len(units))
    items = [  # in the runs the kept path makes (see kept_units), each with its sprite
        _run_items(ctx, units[at:end], fronts[at:end], backs[at:end], before[at:end])
        for at in range(0, len(units), RUN_UNITS)
        for end in [at + RUN_UNITS]
    ]
    return "".join([opening, *items, "</ul>\n</section>\n"])


def _before(blocks: list[tuple[str, list[Unit]]], count: int) -> list[str]:
    """The HTML before each of `count` units of `blocks` (a block's heading before its
    first)."""
    before = [""] * count
    start = 0
    for heading, members in blocks:
        before[start] = heading
        start += len(members)
    return before


def kept_units(ctx: Context, kept: KeptRuns) -> list[bytes]:
    """The units' items in runs kept by the last build: when the last build's order of the
    units is still theirs (see unitorder.Order), only the runs of the units that changed
    are worked out (their keys, and the items of those not kept); else every run's key."""
    units = ctx.game.units
    paths = list(map(attrgetter("loc.path"), units))
    kept.share(_file_links(ctx, paths))
    kept.share(unitorder.heading_words(ctx.game, ctx.lang, ctx.tr("Other units")))
    images = list(map(ctx.plan.unit_images.__getitem__, map(attrgetter("id"), units)))
    fronts = list(map(attrgetter("front"), images))
    backs = list(map(attrgetter("back"), images))
    facts = unitorder.facts(ctx.game, paths, fronts, backs, kept.seed.hexdigest())
    order = unitorder.read_order(kept.cache, ctx.anchor, facts, ctx.game, RUN_UNITS)
    if order is None:
        blocks = _unit_blocks(ctx)
        listed = list(chain.from_iterable(members for _, members in blocks))
        before = _before(blocks, len(listed))
        order = unitorder.made_order(ctx.game, listed, before, facts, RUN_UNITS)
    runs = Runs(ctx, kept, order, (fronts, backs, paths))
    out = [runs.text(number) for number in range(len(order.keys))]
    unitorder.keep_order(kept.cache, ctx.anchor, order)
    return out


class Runs:
    """The runs of the units section in the `order` kept (or made): a run that no changed
    unit is in is read back under the key the order keeps for it; the others are keyed
    from their units' rows (and the order's keys updated)."""

    def __init__(
        self,
        ctx: Context,
        kept: KeptRuns,
        order: Order,
        columns: tuple[list[str], list[str], list[str]],
    ) -> None:
        self.ctx, self.kept, self.order = ctx, kept, order
        self.fronts, self.backs, self.paths = columns

    def text(self, number: int) -> bytes:
        order = self.order
        key = order.keys[number]
        start = number * order.size
        indices = order.order[start : start + order.size]
        fronts = list(map(self.fronts.__getitem__, indices))
        backs = list(map(self.backs.__getitem__, indices))
        # the run's sprite, whether its items are read back or made: the one its faces name
        self.ctx.sprite_sheets().name(distinct_faces(fronts, backs))
        if key is not None:
            found = self.kept.found(key)
            if found is not None:
                return found
        units = list(map(self.ctx.game.units.__getitem__, indices))
        paths = list(map(self.paths.__getitem__, indices))
        before = [order.before.get(at, "") for at in range(start, start + len(indices))]
        key = self.kept.key(_rows(units, paths, fronts, backs, before))
        order.keys[number] = key
        make = partial(_run_items, self.ctx, units, fronts, backs, before)
        return self.kept.run(key, make)


def _rows(
    units: list[Unit], paths: list[str], fronts: list[str], backs: list[str], before: list[str]
) -> list[str]:
    """Each unit's row of what decides its item (see kept.run_key): its content digest, file,
    image names, line and the repr of the HTML before it, joined by NULs (none of them holds
    one), in passes that stay in C."""
    digests = map(content_digest, units)
    lines = map(str, map(attrgetter("loc.line"), units))
    fields = zip(digests, paths, fronts, backs, lines, map(repr, before), strict=True)
    return list(map("\0".join, fields))


def _file_links(ctx: Context, paths: list[str]) -> list[str]:
    """How the link to each of the data files in `paths` is shown (its name and href), in the
    order of their names."""
    return ["\0".join((name, *ctx.sources.file(name))) for name in sorted(set(paths))]


def _unit_blocks(ctx: Context) -> list[tuple[str, list[Unit]]]:
    """The units by side, in the game's order of sides, then by formation, in the order the
    formations first appear among the side's units: each group with the HTML that comes
    before its first item (the list before closed, the side's heading for its first group,
    the formation's heading and the list opened). Units stand in the game's list mostly in
    such groups already: they are taken in stretches."""
    units = ctx.game.units
    keys = map(attrgetter("side", "formation"), units)
    stretches: dict[tuple[str, str], list[tuple[Unit, ...]]] = {}
    start = 0
    for key, stretch in groupby(keys):
        end = start + len(list(stretch))
        stretches.setdefault(key, []).append(units[start:end])
        start = end
    by_side: dict[str, list[tuple[str, str]]] = {}
    for key in stretches:
        by_side.setdefault(key[0], []).append(key)
    blocks: list[tuple[str, list[Unit]]] = []
    for side in ctx.game.game.sides:
        side_heading = f"<h4>{e(side.name.get(ctx.lang))}</h4>\n"
        for key in by_side.get(side.id, ()):
            formation = ctx.game.formation(key[1])
            label = formation.name.get(ctx.lang) if formation else ctx.tr("Other units")
            heading = "</ul>\n" if blocks else ""
            heading += f'{side_heading}<h5>{e(label)}</h5>\n<ul class="grid">\n'
            side_heading = ""
            blocks.append((heading, list(chain.from_iterable(stretches[key]))))
    return blocks


def _run_items(
    ctx: Context, units: list[Unit], fronts: list[str], backs: list[str], before: list[str]
) -> str:
    """The items of a run of units, each after what comes before it, their faces from the
    run's sprite."""
    faces = distinct_faces(fronts, backs)
    sheets = ctx.sprite_sheets()
    src, laid = sheets.name(faces), sheets.cells(faces)
    out = []
    for unit, front, back, heading in zip(units, fronts, backs, before, strict=True):
        out.append(heading)
        out.append(_unit_item(ctx, unit, src, laid[front], laid[back] if back else None))
    return "".join(out)


def markers_section(ctx: Context) -> str:
    """Markers by set."""
    if not ctx.game.markers:
        return ""
    out = [_opening(ctx, "markers", ctx.tr("Markers"))]
    current = ""
    for marker in ctx.game.markers.values():
        if marker.set.id != current:
            if current:
                out.append("</ul>\n")
            current = marker.set.id
            out.append(f'<h4>{e(marker.set.name.get(ctx.lang))}</h4>\n<ul class="grid">\n')
        name = marker.set.name.get(ctx.lang)
        if marker.value is not None:
            name = f"{name} {figure(marker.value)}"
        faces = _faces(ctx, name, ctx.plan.marker_images[marker.id])
        out.append(_item(ctx, "marker", marker.id, faces, [e(name)], marker.set.loc))
    out.append("</ul>\n</section>\n")
    return "".join(out)


def cards_section(ctx: Context) -> str:
    """Cards by deck, each deck with its back first."""
    if not ctx.game.cards:
        return ""
    out = [_opening(ctx, "cards", ctx.tr("Cards"))]
    for deck in ctx.game.decks:
        cards = [c for c in ctx.game.cards if c.deck == deck.id]
        deck_name = deck.name.get(ctx.lang)
        out.append(f'<h4>{e(deck_name)}</h4>\n<ul class="grid wide">\n')
        back = ctx.plan.deck_backs.get(deck.id)
        if back:
            faces = _faces(ctx, deck_name, Images(back))
            out.append(_item(ctx, "deck", deck.id, faces, [e(ctx.tr("Back"))], deck.loc))
        for card in cards:
            name = card.name.get(ctx.lang)
            faces = _faces(ctx, name, Images(ctx.plan.card_images[card.id]))
            lines = [e(name), e(_values(card.fields))]
            if card.copies != 1:
                lines.append(f"{e(ctx.tr('Copies'))}: {card.copies}")
            out.append(_item(ctx, "card", card.id, faces, lines, card.loc))
        out.append("</ul>\n")
    out.append("</section>\n")
    return "".join(out)


def scenarios_section(ctx: Context, pictures: Mapping[str, str | None]) -> str:
    """Each scenario with its picture on the map (`pictures`: scenario id → preview file,
    None when the scenario pictures are not available)."""
    if not ctx.game.scenarios:
        return ""
    out = [_opening(ctx, "scenarios", ctx.tr("Scenarios"))]
    out.append('<ul class="grid scenes">\n')
    for scenario in ctx.game.scenarios:
        name = scenario.name.get(ctx.lang)
        found = pictures.get(scenario.id)
        if found is None:
            # PLACE OF THE SCENARIO PICTURE: compiler.backends.scenepics.scenario_svg draws it
            shown = f'<p class="missing">{e(ctx.tr("No scenario picture in this build"))}</p>'
        else:
            picture = _img(found, f"{ctx.tr('Scenario set-up on the map')}: {name}")
            shown = f'<a href="{e(found)}">{picture}</a>'
        out.append(_item(ctx, "scenario", scenario.id, shown, [e(name)], scenario.loc))
    out.append("</ul>\n</section>\n")
    return "".join(out)


def thumbs_section(ctx: Context, pdfs: list[tuple[str, list[Thumb]]], thumb: Picture) -> str:
    """Every page of every PDF as a thumbnail linking to that page (`thumb`: PNG bytes' key
    → preview file; a page without a thumbnail is an outline with its number)."""
    if not pdfs:
        return ""
    out = [_opening(ctx, "pdfs", ctx.tr("Print files"))]
    word = e(ctx.tr("page"))  # escaped once: escaping goes character by character
    for name, thumbs in pdfs:
        shown = e(name)
        out.append(f'<h4><a href="{shown}">{shown}</a></h4>\n<ul class="thumbs">\n')
        for page in thumbs:
            label = f"{shown}, {word} {page.number}"
            if page.png is None:
                width = round(160 * page.size[0] / page.size[1]) if page.size[1] else 113
                inner = f'<span class="outline" style="width:{width}px">{word} {page.number}</span>'
            else:
                src = e(thumb(f"{name}:{page.number}"))
                inner = f'<img src="{src}" alt="{label}" loading="lazy" decoding="async">'
            out.append(
                f'<li><a href="{shown}#page={page.number}" aria-label="{label}">{inner}</a></li>\n'
            )
        out.append("</ul>\n")
    out.append("</section>\n")
    return "".join(out)


def charts_section(ctx: Context) -> str | bytes:
    """The charts as the module's charts window shows them: with the runs kept (`ctx.kept`),
    in runs of CHART_RUN charts, each the last build's when it made the same charts (titles
    and images) at the same place (an order of battle shows its units' values: one unit
    changed makes one run again), the images named at once (a preview file is named
    `picture` of its module image: see build.Files.add_from)."""
    charts = ctx.plan.charts
    if not charts:
        return ""
    opening = _opening(ctx, "charts", ctx.tr("Charts"))
    if ctx.kept is None or ctx.pictures is None:
        return "".join([opening, _charts_items(ctx, 0, charts), "</section>\n"])
    ctx.pictures(list(map(itemgetter(1), charts)))
    runs = [
        ctx.kept.section(
            "charts",
            f"{start}:{charts[start : start + CHART_RUN]!r}",
            partial(_charts_items, ctx, start, charts[start : start + CHART_RUN]),
        )
        for start in range(0, len(charts), CHART_RUN)
    ]
    return b"".join([opening.encode("utf-8"), *runs, b"</section>\n"])


CHART_RUN = 32
"""Charts whose items are kept together."""


def _charts_items(ctx: Context, start: int, charts: list[tuple[str, str]]) -> str:
    """The items of `charts`, the first the chart numbered `start` + 1 of the section."""
    out = []
    for number, (title, image) in enumerate(charts, start=start + 1):
        out.append(
            f'<figure class="chart" id="{e(ctx.anchor)}-chart-{number}">'
            f"<figcaption>{e(title)}</figcaption>{_img(ctx.picture(image), title)}</figure>\n"
        )
    return "".join(out)
