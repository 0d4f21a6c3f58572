"""deck-size and hand-size: card counts per deck, starting hands, the hand limit."""

from __future__ import annotations

from collections.abc import Iterator

from compiler.diagnostics import Finding, Related
from compiler.model.constraints import DeckSize, HandSize
from compiler.rules.base import finding, views
from compiler.rules.context import Context


def check_deck_size(ctx: Context, c: DeckSize) -> Iterator[Finding]:
    for limit in c.decks:
        deck = ctx.game.deck(limit.deck)
        if deck is None:
            continue
        total = sum(card.copies for card in ctx.game.cards if card.deck == deck.id)
        problems = []
        if limit.size is not None and total != limit.size:
            problems.append(f"exactly {limit.size}")
        if limit.min is not None and total < limit.min:
            problems.append(f"at least {limit.min}")
        if limit.max is not None and total > limit.max:
            problems.append(f"at most {limit.max}")
        if problems:
            yield finding(
                c,
                deck.loc,
                f"deck `{deck.id}` holds {total} cards; the rules give " + " and ".join(problems),
                (Related(limit.loc, "deck size set here"),),
            )


def check_hand_size(ctx: Context, c: HandSize) -> Iterator[Finding]:
    if c.starting > c.limit:
        yield finding(
            c,
            c.locate("starting"),
            f"starting hand {c.starting} is larger than the hand limit {c.limit}",
        )
    for view in views(ctx, c):
        for player in view.scenario.decks:
            if player.hand != c.starting:
                yield finding(
                    c,
                    player.locate("hand"),
                    f"`{player.side}` starts scenario `{view.scenario.id}` with "
                    f"{player.hand} cards; the rules deal {c.starting} "
                    f"(hand limit {c.limit})",
                )
