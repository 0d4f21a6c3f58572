"""The sections of one edition on the preview page: pieces as the trays group them, markers,
cards by deck, scenarios, sheet page thumbnails and charts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial

from compiler.backends.art.faces import figure
from compiler.backends.art.identity import unit_identity
from compiler.backends.preview.html import Sources, e
from compiler.backends.preview.kept import KeptItems
from compiler.backends.preview.thumbs import Thumb
from compiler.backends.vassal.buildfile import ModulePlan
from compiler.backends.vassal.pieces import Images
from compiler.diagnostics import Location
from compiler.i18n import tr
from compiler.model.common import Scalar
from compiler.model.gamedata import GameData
from compiler.model.units import Unit

Picture = Callable[[str], str]
"""An image of the module (its name inside images/) → the preview file's name."""


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
    kept: KeptItems | None = None
    """The units' items of the last build (None: every item is made)."""

    def tr(self, message: str) -> str:
        return tr(message, self.lang)


def _values(values: Mapping[str, Scalar] | None) -> str:
    if not values:
        return ""
    return ", ".join(f"{key} {figure(value)}" for key, value in values.items())


def _img(src: str, alt: str) -> str:
    return f'<img src="{e(src)}" alt="{e(alt)}" loading="lazy" decoding="async">'


def _faces(ctx: Context, name: str, images: Images) -> str:
    back = ctx.picture(images.back) if images.back else ""
    return _shown_faces(ctx, name, ctx.picture(images.front), back)


def _shown_faces(ctx: Context, name: str, front: str, back: str) -> str:
    """A piece's images (preview files; no `back`: none)."""
    shown = [_img(front, f"{ctx.tr('Front')}: {name}")]
    if back:
        shown.append(_img(back, f"{ctx.tr('Back')}: {name}"))
    return f'<div class="faces">{"".join(shown)}</div>'


def _item(ctx: Context, kind: str, ident: str, faces: str, lines: list[str], loc: Location) -> str:
    meta = "".join(f"<br>{line}" for line in lines if line)
    return (
        f'<li id="{e(ctx.anchor)}-{kind}-{e(ident)}" class="{kind}">{faces}'
        f'<p class="meta"><code>{e(ident)}</code>{meta}<br>{ctx.sources.link(loc)}</p></li>\n'
    )


def _unit(ctx: Context, unit: Unit) -> str:
    """A unit's item: the last build's when nothing it is made of changed (see kept)."""
    images = ctx.plan.unit_images[unit.id]
    front = ctx.picture(images.front)
    back = ctx.picture(images.back) if images.back else ""
    if ctx.kept is None:
        return _unit_item(ctx, unit, front, back)
    shown, href = ctx.sources.file(unit.loc.path)  # as its link shows it
    key = f"{unit_identity(ctx.game, unit)}\0{shown}\0{href}\0{unit.loc.line}\0{front}\0{back}"
    return ctx.kept.item(key, partial(_unit_item, ctx, unit, front, back))


def unit_words(lang: str) -> tuple[str, ...]:
    """The words of the language a unit's item is written with (in a kept record's shared
    part)."""
    return tuple(tr(word, lang) for word in ("Front", "Back", "Steps", "Copies"))


def _unit_item(ctx: Context, unit: Unit, front_image: str, back_image: str) -> str:
    """A unit's item made: its images (preview files; no back image: ""), name and values."""
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
    faces = _shown_faces(ctx, name, front_image, back_image)
    return _item(ctx, "unit", unit.id, faces, lines, unit.loc)


def _opening(ctx: Context, part: str, title: str) -> str:
    """The start of one of an edition's sections: its anchor (the edition's, then `part`) and
    its heading."""
    return f'<section id="{e(ctx.anchor)}-{part}"><h3>{e(title)}</h3>\n'


def units_section(ctx: Context) -> str:
    """Counters and blocks by side, then by formation (the module's trays)."""
    game = ctx.game
    out = [_opening(ctx, "units", ctx.tr("Counters and blocks"))]
    for side in game.game.sides:
        units = [u for u in game.units if u.side == side.id]
        if not units:
            continue
        out.append(f"<h4>{e(side.name.get(ctx.lang))}</h4>\n")
        groups: dict[str, list[Unit]] = {}
        for unit in units:
            groups.setdefault(unit.formation, []).append(unit)
        for formation_id, members in groups.items():
            formation = game.formation(formation_id)
            label = formation.name.get(ctx.lang) if formation else ctx.tr("Other units")
            out.append(f'<h5>{e(label)}</h5>\n<ul class="grid">\n')
            out.extend(_unit(ctx, unit) for unit in members)
            out.append("</ul>\n")
    out.append("</section>\n")
    return "".join(out) if game.units else ""


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
    for name, thumbs in pdfs:
        out.append(f'<h4><a href="{e(name)}">{e(name)}</a></h4>\n<ul class="thumbs">\n')
        for page in thumbs:
            label = f"{name}, {ctx.tr('page')} {page.number}"
            if page.png is None:
                width = round(160 * page.size[0] / page.size[1]) if page.size[1] else 113
                inner = (
                    f'<span class="outline" style="width:{width}px">'
                    f"{e(ctx.tr('page'))} {page.number}</span>"
                )
            else:
                inner = _img(thumb(f"{name}:{page.number}"), label)
            out.append(
                f'<li><a href="{e(name)}#page={page.number}" aria-label="{e(label)}">'
                f"{inner}</a></li>\n"
            )
        out.append("</ul>\n")
    out.append("</section>\n")
    return "".join(out)


def charts_section(ctx: Context) -> str:
    """The charts as the module's charts window shows them."""
    if not ctx.plan.charts:
        return ""
    out = [_opening(ctx, "charts", ctx.tr("Charts"))]
    for number, (title, image) in enumerate(ctx.plan.charts, start=1):
        out.append(
            f'<figure class="chart" id="{e(ctx.anchor)}-chart-{number}">'
            f"<figcaption>{e(title)}</figcaption>{_img(ctx.picture(image), title)}</figure>\n"
        )
    out.append("</section>\n")
    return "".join(out)
