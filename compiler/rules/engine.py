"""Run every built-in rule and every configured constraint over a game."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from compiler.diagnostics import Finding, sort_findings
from compiler.gcpause import no_cyclic_gc
from compiler.model.constraints import Constraint, FieldCompare, ValueRange
from compiler.model.gamedata import GameData
from compiler.rules import integrity, translations
from compiler.rules.aggregate import check_aggregate
from compiler.rules.context import Context
from compiler.rules.decks import (
    check_deck_numbers,
    check_deck_rules,
    check_deck_size,
    check_hand_size,
)
from compiler.rules.kept import KeptFindings, kept_here
from compiler.rules.mix import check_counter_mix, check_marker_supply, marker_supply_runs
from compiler.rules.placement import check_attachment, check_stack_with, stack_with_runs
from compiler.rules.runs import RunCheck
from compiler.rules.stacking import (
    check_mixed_sides,
    check_setup_zone,
    check_stacking,
    mixed_sides_runs,
    setup_zone_runs,
    stacking_runs,
)
from compiler.rules.values import check_compare, check_range, setup_runs, units_checked

KIND_CHECKS: dict[str, Callable[[Context, Any], Iterable[Finding]]] = {
    "value-range": check_range,
    "field-compare": check_compare,
    "stacking": check_stacking,
    "mixed-sides": check_mixed_sides,
    "setup-zone": check_setup_zone,
    "counter-mix": check_counter_mix,
    "marker-supply": check_marker_supply,
    "stack-with": check_stack_with,
    "attachment-limit": check_attachment,
    "deck-size": check_deck_size,
    "hand-size": check_hand_size,
    "deck-numbers": check_deck_numbers,
    "deck-rules": check_deck_rules,
    "aggregate": check_aggregate,
}

RUN_CHECKS: dict[str, Callable[[Context, Any], RunCheck | None]] = {
    "value-range": setup_runs,
    "field-compare": setup_runs,
    "stacking": stacking_runs,
    "mixed-sides": mixed_sides_runs,
    "setup-zone": setup_zone_runs,
    "stack-with": stack_with_runs,
    "marker-supply": marker_supply_runs,
}
"""The check of one run of a scenario's pieces (compiler.rules.runs) by each kind of
scenario constraint (compiler.rules.kept.kept_here); None when it must be checked whole."""


def rule_ids(game: GameData) -> frozenset[str]:
    """The ids of the game's own rules: what their findings report follows from the data's
    faults (sort_findings puts those first)."""
    return frozenset(constraint.id for constraint in game.constraints)


def validate(game: GameData, untranslated: bool = False) -> list[Finding]:
    """All findings of the game's data against its rules, sorted by place. With
    `untranslated`, also one warning when texts the module shows have no Japanese
    (`untranslated-text`: on request, a translator's to-do list)."""
    with no_cyclic_gc():
        ctx = Context(game)
        kept = KeptFindings.open(game, ctx)
        if kept is not None:
            ctx.kept_units = kept.unit_checks
            ctx.kept_runs = kept.run_checks
        findings = list(integrity.check(ctx))
        for constraint in game.constraints:
            findings.extend(_constraint_findings(ctx, constraint, kept))
        if kept is not None:
            kept.save()
        if untranslated:
            findings.extend(translations.check(ctx))
        return sort_findings(findings, rule_ids(game))


def _constraint_findings(
    ctx: Context, constraint: Constraint, kept: KeptFindings | None
) -> list[Finding]:
    """A constraint's findings: a scenario constraint's checked again only in the runs of
    pieces where what it reads changed, a constraint over units only in the groups of units
    that changed; else those the last build kept when nothing it reads changed
    (compiler.rules.kept), else found now (and kept)."""
    if kept is not None and kept_here(constraint):
        check = RUN_CHECKS[constraint.kind](ctx, constraint)
        by_runs = None if check is None else kept.run_findings(constraint, check)
        if by_runs is not None:
            return by_runs
    if kept is not None and isinstance(constraint, ValueRange | FieldCompare):
        by_units = kept.unit_findings(constraint, partial(units_checked, ctx, constraint))
        if by_units is not None:
            return by_units
    key = None if kept is None else kept.key(constraint)
    found = None if key is None or kept is None else kept.findings(key)
    if found is None:
        found = list(KIND_CHECKS[constraint.kind](ctx, constraint))
        if key is not None and kept is not None:
            kept.keep(key, found)
    return found
