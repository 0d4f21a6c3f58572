"""The module's turn trackers: one per turn track the game shows (model `Game.turn_tracks`).

A game without titles, or whose titles share the game's track, gets one tracker named `Turn`.
A series whose titles have tracks of their own gets one tracker per such title, named for it
(`Turn: Roads to Gettysburg`, button `RTG turn`, property `Turn_RTG`), with that title's labels
and dates. VASSAL 3.6 cannot show or hide a tracker by the scenario that is running, so every
tracker stays on the toolbar; the player steps the one of the scenario's title.
"""

from __future__ import annotations

import re

from lxml import etree

from compiler.backends.vassal.encode import join
from compiler.backends.vassal.xml import MODULE, node
from compiler.model.game import Game, Turn, TurnTrack

GAME_PROPERTY = "Turn"


def add_turn_trackers(root: etree._Element, game: Game) -> None:
    """A TurnTracker under `root` for each turn track of `game`, titles' first."""
    for track in game.turn_tracks():
        _tracker(root, track)


def tracker_name(track: TurnTrack) -> str:
    """The tracker's name: `Turn`, or `Turn: <title name>` for a title's own track."""
    return f"Turn: {track.title.name.en}" if track.title is not None else "Turn"


def turn_property(track: TurnTrack) -> str:
    """The global property holding the tracker's current turn label."""
    if track.title is None:
        return GAME_PROPERTY
    return f"{GAME_PROPERTY}_{re.sub(r'[^0-9A-Za-z]', '_', track.title.id)}"


def turn_label(turn: Turn) -> str:
    """A box of the track as the tracker lists it: label, (date), night."""
    return (
        (turn.label.en or f"Turn {turn.n}")
        + (f" ({turn.date})" if turn.date else "")
        + (" night" if turn.time == "night" else "")
    )


def _tracker(root: etree._Element, track: TurnTrack) -> None:
    title = track.title
    tracker = node(
        root,
        MODULE + "turn.TurnTracker",
        name=tracker_name(track),
        buttonText=f"{title.id} turn" if title is not None else "Turn",
        hotkey="",
        turnFormat="$level1$",
        reportFormat=f"* {title.id + ' new turn' if title is not None else 'New turn'}: $newTurn$",
    )
    node(
        tracker,
        MODULE + "turn.ListTurnLevel",
        property=turn_property(track),
        name=tracker_name(track),
        list=join([turn_label(t) for t in track.turns], ","),
        configList="false",
        configFirst="false",
    )
