"""The sandbox a game's own player-aids template runs in (see compiler.load.aids): a module of
its own so that Jinja2 is imported only when a template is rendered."""

from __future__ import annotations

import jinja2
from jinja2.exceptions import SecurityError
from jinja2.sandbox import SandboxedEnvironment

from compiler.load.aids import MAX_COUNT


class Sandbox(SandboxedEnvironment):
    """A game's own template comes with the game's data, so it is no more trusted than the
    data: Jinja2's sandbox (no Python internals: `__class__`, `__globals__` ... are refused, so
    no code runs), `range()` counting at most MAX_COUNT numbers in all, and no `*` or `**` that
    makes a huge text, list or number."""

    intercepted_binops = frozenset({"*", "**"})

    def __init__(self) -> None:
        super().__init__(
            undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True
        )
        self.counted = 0
        self.globals["range"] = self.budget_range

    def budget_range(self, *args: int) -> range:
        numbers = range(*args)
        self.counted += len(numbers)
        if self.counted > MAX_COUNT:
            raise SecurityError(f"its loops count more than {MAX_COUNT:,} numbers")
        return numbers

    def call_binop(
        self, context: jinja2.runtime.Context, operator: str, left: object, right: object
    ) -> object:
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, str | list | tuple) and isinstance(times, int):
                    if len(seq) * times > MAX_COUNT:
                        raise SecurityError(f"`*` would make more than {MAX_COUNT:,} items")
        if operator == "**" and isinstance(right, int) and abs(right) > 64:
            raise SecurityError("`**` with an exponent over 64")
        return super().call_binop(context, operator, left, right)
