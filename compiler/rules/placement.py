"""stack-with and attachment-limit: leaders with their troops, formations within limits."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial

from compiler.diagnostics import Finding, Related
from compiler.model.constraints import AttachmentLimit, StackWith
from compiler.model.gamedata import GameData
from compiler.model.units import Formation, Unit
from compiler.rules.base import finding, fmt, views
from compiler.rules.context import Context, ScenarioView
from compiler.rules.placed import Placement
from compiler.rules.runs import Run, RunCheck
from compiler.rules.select import formation_attr, matches


def formation_chain(game: GameData, formation_id: str) -> list[str]:
    """The formation and its parents upwards; stops at a cycle."""
    chain: list[str] = []
    current = game.formation(formation_id)
    while current is not None and current.id not in chain:
        chain.append(current.id)
        current = game.formation(current.parent)
    return chain


def is_subordinate(game: GameData, unit: Unit, leader: Unit) -> bool:
    if leader.leader is None or not leader.leader.commands:
        return True
    return leader.leader.commands in formation_chain(game, unit.formation)


def _partner_ok(ctx: Context, c: StackWith, piece: Placement, other: Placement) -> bool:
    if other is piece or other.unit is None:
        return False
    if c.same_side and other.side != piece.side:
        return False
    if not ctx.piece_matches(c.partner, other):
        return False
    return not (
        c.subordinate
        and piece.unit is not None
        and not is_subordinate(ctx.game, other.unit, piece.unit)
    )


def check_stack_with(ctx: Context, c: StackWith) -> Iterator[Finding]:
    for view in views(ctx, c):
        yield from _stacked_with(ctx, c, view, view.setup, view.by_location())


def stack_with_runs(ctx: Context, c: StackWith) -> RunCheck:
    """The check of a run (compiler.rules.runs: it holds each of its pieces' location
    whole)."""

    def check(view: ScenarioView, run: Run) -> list[Finding]:
        groups = {pieces[0].at: pieces for pieces in run.by_location()}
        return list(_stacked_with(ctx, c, view, run.setup, groups))

    return check


def _stacked_with(
    ctx: Context,
    c: StackWith,
    view: ScenarioView,
    setup: Iterable[Placement],
    groups: dict[str, list[Placement]],
) -> Iterator[Finding]:
    """The findings of the pieces of `setup`, each with the pieces at its location
    (`groups`)."""
    for piece in setup:
        if not ctx.piece_matches(c.where, piece):
            continue
        mates = [o for o in groups.get(piece.at, []) if _partner_ok(ctx, c, piece, o)]
        wanted = getattr(piece.entry, "attached_to", "")
        if wanted and wanted not in {m.piece_id for m in mates}:
            yield finding(
                c,
                piece.entry.locate("attached_to"),
                f"`{piece.piece_id}` is attached to `{wanted}`, which is not a "
                f"suitable partner at {piece.at} in scenario `{view.scenario.id}`",
            )
        elif not mates:
            yield finding(
                c,
                piece.loc,
                f"`{piece.piece_id}` starts at {piece.at} in scenario "
                f"`{view.scenario.id}` without a suitable unit to stack with",
            )


def _weight(c: AttachmentLimit, child: Formation) -> float:
    for rule in c.weights:
        if matches(rule.where, lambda n: formation_attr(child, n)):
            return float(rule.weight)
    return float(c.default)


def check_attachment(ctx: Context, c: AttachmentLimit) -> Iterator[Finding]:
    game = ctx.game
    for parent in game.formations:
        if not matches(c.parents, partial(formation_attr, parent)):
            continue
        children = [f for f in game.formations if f.parent == parent.id]
        if c.arm_match:
            yield from _arms(c, parent, children)
        if parent.attachment_limit is None or not children:
            continue
        total = sum(_weight(c, child) for child in children)
        if total > parent.attachment_limit:
            related = tuple(
                Related(ch.locate("parent"), f"`{ch.id}` is attached here")
                for ch in children[:-1][:8]
            )
            yield finding(
                c,
                children[-1].locate("parent"),
                f"`{parent.id}` has {fmt(total)} attached (limit {fmt(parent.attachment_limit)})",
                related,
            )


def _arms(c: AttachmentLimit, parent: Formation, children: list[Formation]) -> Iterator[Finding]:
    for child in children:
        cavalry = child.arm == "cavalry"
        if parent.cavalry_only and not cavalry:
            yield finding(
                c,
                child.locate("parent"),
                f"cavalry corps `{parent.id}` takes cavalry only; `{child.id}` is {child.arm}",
            )
        elif cavalry and not parent.cavalry_only:
            yield finding(
                c,
                child.locate("parent"),
                f"`{parent.id}` is not a cavalry corps and may not take cavalry "
                f"formation `{child.id}`",
            )
