"""The module's turn trackers: one per turn track the game shows (model `Game.turn_tracks`).

A game without titles, or whose titles share the game's track, gets one tracker named `Turn`.
A series whose titles have tracks of their own gets one tracker per such title, named for it
(`Turn: Roads to Gettysburg`, button `RTG turn`, property `Turn_RTG`), with that title's labels
and dates. VASSAL 3.6 cannot show or hide a tracker by the scenario that is running, so every
tracker stays on the toolbar; the player steps the one of the scenario's title.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml import etree

from compiler.backends.vassal.encode import join
from compiler.backends.vassal.translation import LANGUAGES, Translations
from compiler.backends.vassal.xml import MODULE, node
from compiler.i18n import tr
from compiler.model.game import Game, Turn, TurnTrack

GAME_PROPERTY = "Turn"


def add_turn_trackers(root: etree._Element, game: Game, texts: Translations | None = None) -> None:
    """A TurnTracker under `root` for each turn track of `game`, titles' first; with `texts`,
    its names, button, report and turn labels are recorded for the module's translations."""
    for track in game.turn_tracks():
        _tracker(root, track, texts)


def tracker_name(track: TurnTrack, lang: str = "en") -> str:
    """The tracker's name: `Turn`, or `Turn: <title name>` for a title's own track."""
    if track.title is None:
        return tr("Turn", lang)
    return tr("Turn: {title}", lang, title=track.title.name.get(lang))


def turn_property(track: TurnTrack) -> str:
    """The global property holding the tracker's current turn label."""
    if track.title is None:
        return GAME_PROPERTY
    return f"{GAME_PROPERTY}_{re.sub(r'[^0-9A-Za-z]', '_', track.title.id)}"


def turn_label(turn: Turn, lang: str = "en") -> str:
    """A box of the track as the tracker lists it: label, (date), night."""
    return (
        (turn.label.get(lang) or tr("Turn {n}", lang, n=turn.n))
        + (f" ({turn.date})" if turn.date else "")
        + (" " + tr("night", lang) if turn.time == "night" else "")
    )


def _button_text(track: TurnTrack, lang: str) -> str:
    if track.title is None:
        return tr("Turn", lang)
    return tr("{title} turn", lang, title=track.title.id)


def _report(track: TurnTrack, lang: str) -> str:
    if track.title is None:
        return "* " + tr("New turn", lang) + ": $newTurn$"
    return "* " + tr("{title} new turn", lang, title=track.title.id) + ": $newTurn$"


def _turn_list(track: TurnTrack, lang: str) -> str:
    return join([turn_label(t, lang) for t in track.turns], ",")


def _tracker(root: etree._Element, track: TurnTrack, texts: Translations | None) -> None:
    tracker = node(
        root,
        MODULE + "turn.TurnTracker",
        name=tracker_name(track),
        buttonText=_button_text(track, "en"),
        hotkey="",
        turnFormat="$level1$",
        reportFormat=_report(track, "en"),
    )
    level = node(
        tracker,
        MODULE + "turn.ListTurnLevel",
        property=turn_property(track),
        name=tracker_name(track),
        list=_turn_list(track, "en"),
        configList="false",
        configFirst="false",
    )
    if texts is None:
        return
    for element, attribute, text in (
        (tracker, "name", lambda lang: tracker_name(track, lang)),
        (tracker, "buttonText", lambda lang: _button_text(track, lang)),
        (tracker, "reportFormat", lambda lang: _report(track, lang)),
        (level, "name", lambda lang: tracker_name(track, lang)),
        (level, "list", lambda lang: _turn_list(track, lang)),
    ):
        texts.attribute(element, attribute, _only(text))


def _only(text: Callable[[str], str]) -> Callable[[str], str]:
    """`text` in the module's translated languages only (the base text is English)."""
    return lambda lang: text(lang) if lang in LANGUAGES else ""
