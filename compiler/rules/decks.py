"""deck-size, hand-size, deck-numbers, deck-rules: card counts, hands, numbered decks, and what a
deck may never do. Every number comes from the constraint or the game's $params."""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import partial
from typing import Any

from compiler.diagnostics import Finding, Location, Related
from compiler.model.cards import Card, Deck
from compiler.model.common import Limit
from compiler.model.constraints import DeckNumbers, DeckRules, DeckSize, HandSize
from compiler.rules.base import (
    Bound,
    ParamError,
    bad_expressions,
    bound,
    finding,
    fmt,
    param_finding,
    views,
)
from compiler.rules.context import Context
from compiler.rules.select import MISSING, matches

MAX_NUMBERS = 100_000
"""The longest run of card numbers a deck-numbers rule checks."""


def _nothing(_: str) -> bool:
    return False


def check_deck_size(ctx: Context, c: DeckSize) -> Iterator[Finding]:
    fields = [(d, key, getattr(d, key)) for d in c.decks for key in ("size", "min", "max")]
    bad = bad_expressions(c, fields, known=_nothing)
    if bad:
        yield from bad
        return
    try:
        for limit in c.decks:
            deck = ctx.game.deck(limit.deck)
            if deck is None:
                continue
            total = sum(card.copies for card in ctx.game.cards if card.deck == deck.id)
            size, low, high = (bound(ctx, v, "") for v in (limit.size, limit.min, limit.max))
            problems = []
            if size is not None and total != size.value:
                problems.append(f"exactly {size.label}")
            if low is not None and total < low.value:
                problems.append(f"at least {low.label}")
            if high is not None and total > high.value:
                problems.append(f"at most {high.label}")
            if problems:
                yield finding(
                    c,
                    deck.loc,
                    f"deck `{deck.id}` holds {total} cards; the rules give "
                    + " and ".join(problems),
                    (Related(limit.loc, "deck size set here"),),
                )
    except ParamError as err:
        yield param_finding(c, "decks", str(err))


def _param_loc(ctx: Context, c: HandSize, key: str, limit: Limit) -> Location:
    """Where a hand-size number is written: the game's param when the constraint names one."""
    text = str(limit).strip()
    if isinstance(limit, str) and text.startswith("$") and text[1:] in ctx.game.game.params:
        return ctx.game.game.locate(f"params.{text[1:]}")
    return c.locate(key)


def check_hand_size(ctx: Context, c: HandSize) -> Iterator[Finding]:
    bad = bad_expressions(c, ((c, "starting", c.starting), (c, "limit", c.limit)), known=_nothing)
    if bad:
        yield from bad
        return
    try:
        starting, limit = bound(ctx, c.starting, ""), bound(ctx, c.limit, "")
    except ParamError as err:
        key = "starting" if str(err) == str(c.starting).strip() else "limit"
        yield param_finding(c, key, str(err))
        return
    assert starting is not None and limit is not None
    yield from _hands(ctx, c, starting, limit)


def _hands(ctx: Context, c: HandSize, starting: Bound, limit: Bound) -> Iterator[Finding]:
    if starting.value > limit.value:
        yield finding(
            c,
            _param_loc(ctx, c, "starting", c.starting),
            f"starting hand {starting.label} is larger than the hand limit {limit.label}",
            (Related(_param_loc(ctx, c, "limit", c.limit), "hand limit set here"),),
        )
    for view in views(ctx, c):
        for player in view.scenario.decks:
            if player.hand != starting.value:
                yield finding(
                    c,
                    player.locate("hand"),
                    f"`{player.side}` starts scenario `{view.scenario.id}` with "
                    f"{player.hand} cards; the rules deal {starting.label} "
                    f"(hand limit {limit.label})",
                    (
                        Related(
                            _param_loc(ctx, c, "starting", c.starting), "starting hand set here"
                        ),
                    ),
                )


def check_deck_numbers(ctx: Context, c: DeckNumbers) -> Iterator[Finding]:
    bad = bad_expressions(c, ((c, "first", c.first), (c, "last", c.last)), known=_nothing)
    if bad:
        yield from bad
        return
    deck = ctx.game.deck(c.deck)
    if deck is None:
        return
    try:
        first, last = bound(ctx, c.first, ""), bound(ctx, c.last, "")
    except ParamError as err:
        yield param_finding(c, "first", str(err))
        return
    cards = [card for card in ctx.game.cards if card.deck == deck.id]
    yield from _numbers(c, deck, cards, first, last)
    yield from _copies(c, cards)


def _numbers(
    c: DeckNumbers, deck: Deck, cards: list[Card], first: Bound | None, last: Bound | None
) -> Iterator[Finding]:
    seen: dict[int, Card] = {}
    for card in cards:
        if card.number is None:
            yield finding(c, card.loc, f"card `{card.id}` of deck `{deck.id}` has no number")
            continue
        where = card.locate("number")
        if (first and card.number < first.value) or (last and card.number > last.value):
            span = f"{first.label if first else '?'} to {last.label if last else '?'}"
            yield finding(
                c, where, f"card `{card.id}` has number {card.number}; deck `{deck.id}` runs {span}"
            )
            continue
        if c.unique and card.number in seen:
            other = seen[card.number]
            yield finding(
                c,
                where,
                f"cards `{other.id}` and `{card.id}` of deck `{deck.id}` both have number "
                f"{card.number}",
                (Related(other.locate("number"), f"`{other.id}` has it here"),),
            )
        seen.setdefault(card.number, card)
    if c.contiguous and seen:
        yield from _gaps(c, deck, seen, first, last)


def _gaps(
    c: DeckNumbers, deck: Deck, seen: dict[int, Card], first: Bound | None, last: Bound | None
) -> Iterator[Finding]:
    low = int(first.value) if first and math.isfinite(first.value) else min(seen)
    high = int(last.value) if last and math.isfinite(last.value) else max(seen)
    if high - low > MAX_NUMBERS:
        yield finding(c, c.locate("last"), f"deck `{deck.id}` cannot run {low} to {high}")
        return
    missing = [n for n in range(low, high + 1) if n not in seen]
    runs: list[list[int]] = []
    for n in missing:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    for run in runs:
        after = [n for n in seen if n > run[-1]]
        if after:
            card = seen[min(after)]
            where, note = card.locate("number"), Related(c.locate("deck"), "numbered deck")
        else:
            card = seen[max(seen)]
            where, note = c.locate("last"), Related(card.locate("number"), "highest number")
        shown = f"#{run[0]}" if len(run) == 1 else f"#{run[0]}-#{run[-1]}"
        span = f"{fmt(low)} to {fmt(high)}"
        yield finding(c, where, f"deck `{deck.id}` has no card {shown} (numbered {span})", (note,))


def _copies(c: DeckNumbers, cards: list[Card]) -> Iterator[Finding]:
    by_key = {card.id: card for card in cards}
    by_key.update({str(card.number): card for card in cards if card.number is not None})
    for key in c.printed:
        if key not in by_key:
            yield finding(
                c, c.locate(f"printed.{key}"), f"the printed list names `{key}`: no such card"
            )
    for card in cards:
        key = card.id if card.id in c.printed else str(card.number)
        wanted = c.printed.get(key, c.copies)
        if wanted is not None and card.copies != wanted:
            source = "the printed list gives" if key in c.printed else "every card has"
            yield finding(
                c,
                card.locate("copies"),
                f"card `{card.id}` has {card.copies} copies; {source} {wanted}",
                (
                    Related(
                        c.locate(f"printed.{key}" if key in c.printed else "copies"), "set here"
                    ),
                ),
            )


def _deck_attr(deck: Deck, name: str) -> Any:
    if name in ("id", "side", "kind", "hand"):
        return getattr(deck, name)
    return MISSING


def check_deck_rules(ctx: Context, c: DeckRules) -> Iterator[Finding]:
    if c.never_in_hand is None:
        return
    for deck in ctx.game.decks:
        if deck.hand and matches(c.never_in_hand, partial(_deck_attr, deck)):
            yield finding(
                c,
                deck.locate("hand"),
                f"deck `{deck.id}` is marked `hand: true`, but its cards never go into a hand",
                (Related(c.locate("never_in_hand"), "rule set here"),),
            )
