"""Texts the module shows that have no Japanese yet: one warning per game, for a translator.

Every module carries a Japanese translation built from the data's `{en, ja}` texts
(compiler/backends/vassal/translation.py). A text without `ja` is shown in English to a
Japanese player too (VASSAL falls back to the base text), which is allowed; this rule says how
many such texts are left and names the first few, so the work left is seen in one line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from compiler.diagnostics import Finding, Location, Severity
from compiler.model.common import Node, Text
from compiler.model.gamedata import GameData
from compiler.rules.context import Context

RULE = "untranslated-text"
LANGUAGE = "ja"
SHOWN = 5
"""How many untranslated texts the warning names."""


@dataclass(frozen=True, slots=True)
class ShownText:
    """A text of the data the module shows: what it names, the text, and where it is."""

    what: str
    text: Text
    location: Location


def _at(record: Node, key: str, what: str, text: Text) -> ShownText:
    return ShownText(what, text, record.locate(key))


def module_texts(game: GameData) -> Iterator[ShownText]:
    """Every text of the data a player reads in the module (names of the game, sides, pieces,
    trays, maps, decks, cards, dice, turns, charts and scenarios), in data order."""
    g = game.game
    yield _at(g, "title", "game title", g.title)
    for side in g.sides:
        yield _at(side, "name", f"side `{side.id}`", side.name)
    for formation in game.formations:
        yield _at(formation, "name", f"formation `{formation.id}`", formation.name)
    for unit in game.units:
        yield _at(unit, "name", f"unit `{unit.id}`", unit.name)
    for marker_set in game.marker_sets:
        yield _at(marker_set, "name", f"marker set `{marker_set.id}`", marker_set.name)
    for game_map in game.maps:
        yield _at(game_map, "name", f"map `{game_map.id}`", game_map.name)
    for deck in game.decks:
        yield _at(deck, "name", f"deck `{deck.id}`", deck.name)
    for card in game.cards:
        yield _at(card, "name", f"card `{card.id}`", card.name)
    for die in g.dice:
        yield _at(die, "name", f"die `{die.id}`", die.name)
    for track in g.turn_tracks():
        for turn in track.turns:
            yield _at(turn, "label", f"turn {turn.n}", turn.label)
    for chart in game.charts:
        yield _at(chart, "name", f"chart `{chart.id}`", chart.name)
    for scenario in game.scenarios:
        yield _at(scenario, "name", f"scenario `{scenario.id}`", scenario.name)


def untranslated(game: GameData, lang: str = LANGUAGE) -> list[ShownText]:
    """The shown texts that have English but nothing of their own in `lang` (each text once,
    as the bundle keys it: a turn track shared by titles is one set of labels)."""
    seen: set[tuple[str, str]] = set()
    out: list[ShownText] = []
    for shown in module_texts(game):
        text = shown.text
        if not text.en or _own(text, lang):
            continue
        key = (shown.what, text.en)
        if key not in seen:
            seen.add(key)
            out.append(shown)
    return out


def _own(text: Text, lang: str) -> str:
    """The text's own form in `lang` (the model holds English and Japanese)."""
    return {"en": text.en, "ja": text.ja}.get(lang, "")


def check(ctx: Context) -> Iterator[Finding]:
    """One warning for the game when texts the module shows lack Japanese."""
    left = untranslated(ctx.game)
    if not left:
        return
    names = ", ".join(f"{s.what} ({s.text.en!r}, {s.location})" for s in left[:SHOWN])
    more = f" and {len(left) - SHOWN} more" if len(left) > SHOWN else ""
    yield Finding(
        RULE,
        ctx.game.game.loc,
        f"{len(left)} text(s) the module shows have no Japanese: {names}{more}",
        "give them as `{en: ..., ja: ...}`; until then a Japanese player sees them in English",
        severity=Severity.WARNING,
    )
