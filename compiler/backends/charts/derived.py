"""Player aids derived from the game data, as chart tables: the turn record track, each
scenario's setup card and reinforcement schedule, order-of-battle sheets and deck lists."""

from __future__ import annotations

from collections.abc import Iterator

from compiler.model.charts import Chart, Column, Row
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from compiler.model.scenarios import Scenario

MAX_ROWS = 38  # rows per page; longer tables continue on the next page
MAX_ROWS_WITH_PIECES = 22  # rows with counter images are taller


def _t(en: str, ja: str = "") -> Text:
    return Text(en, ja)


def _chart(
    ident: str,
    name: Text,
    columns: list[Text],
    rows: list[list[str | Text]],
    pieces: list[tuple[str, ...]] | None = None,
) -> Chart:
    shown = pieces or [()] * len(rows)
    return Chart(
        id=ident,
        name=name,
        columns=tuple(Column(id=f"c{i}", label=c) for i, c in enumerate(columns[1:])),
        corner=columns[0],
        rows=tuple(
            Row(
                label=r[0] if isinstance(r[0], Text) else _t(r[0]),
                cells=tuple(r[1:]),
                pieces=refs,
            )
            for r, refs in zip(rows, shown, strict=True)
        ),
    )


def _pages(chart: Chart) -> Iterator[Chart]:
    """A long table split into pages, "(2/3)" added to the title."""
    per_page = MAX_ROWS_WITH_PIECES if any(r.pieces for r in chart.rows) else MAX_ROWS
    count = max(1, -(-len(chart.rows) // per_page))
    for page in range(count):
        rows = chart.rows[page * per_page : (page + 1) * per_page]
        suffix = f" ({page + 1}/{count})" if count > 1 else ""
        name = Text(chart.name.en + suffix, chart.name.ja + suffix if chart.name.ja else "")
        yield Chart(
            id=f"{chart.id}-{page + 1}",
            name=name,
            columns=chart.columns,
            corner=chart.corner,
            rows=rows,
        )


def turn_track(game: GameData) -> Chart | None:
    turns = game.game.turns
    if not turns:
        return None
    rows: list[list[str | Text]] = [
        [
            str(t.n),
            t.label if t.label.en else _t(""),
            t.date,
            t.time,
            t.season,
            t.side,
            "✓" if t.interphase else "",
            ", ".join(t.marks),
        ]
        for t in turns
    ]
    return _chart(
        "turn-track",
        _t("Turn record track", "ターン記録トラック"),
        [
            _t("Turn", "ターン"),
            _t("Label", "表示"),
            _t("Date", "日付"),
            _t("Day/night", "昼夜"),
            _t("Season", "季節"),
            _t("Side", "手番"),
            _t("Interphase", "インターフェイズ"),
            _t("Marks", "記号"),
        ],
        rows,
    )


def _unit_name(game: GameData, unit_id: str, lang: str) -> str:
    unit = game.unit(unit_id)
    return unit.name.get(lang) if unit else unit_id


def setup_card(game: GameData, scenario: Scenario, lang: str) -> Chart:
    places: dict[str, list[str]] = {}
    refs: dict[str, list[str]] = {}
    for entry in scenario.setup:
        ids = ([entry.unit] if entry.unit else []) + list(entry.units)
        names = [_unit_name(game, uid, lang) for uid in ids]
        if entry.marker:
            names.append(entry.marker)
        back = entry.face == "back"
        if back:
            names = [f"{n} (back)" for n in names]
        places.setdefault(entry.at, []).extend(names)
        refs.setdefault(entry.at, []).extend(f"{uid}:back" if back else uid for uid in ids)
    rows: list[list[str | Text]] = [
        [_place_label(game, scenario, at, lang), ", ".join(names)] for at, names in places.items()
    ]
    return _chart(
        f"setup-{scenario.id}",
        _t(f"Setup: {scenario.name.en}", f"初期配置：{scenario.name.get('ja')}"),
        [_t("Location", "配置場所"), _t("Units", "ユニット")],
        rows,
        [tuple(refs[at]) for at in places],
    )


def _place_label(game: GameData, scenario: Scenario, at: str, lang: str) -> str:
    place = game.place(scenario, at)
    name = place.name.get(lang) if place is not None else ""
    return f"{name} ({at})" if name and name != at else at


def reinforcement_schedule(game: GameData, scenario: Scenario, lang: str) -> Chart | None:
    if not scenario.reinforcements:
        return None
    arrivals = sorted(scenario.reinforcements, key=lambda r: r.turn)
    rows: list[list[str | Text]] = [
        [
            str(r.turn),
            ", ".join(_unit_name(game, u, lang) for u in r.units),
            _place_label(game, scenario, r.at, lang),
        ]
        for r in arrivals
    ]
    return _chart(
        f"reinforcements-{scenario.id}",
        _t(f"Reinforcements: {scenario.name.en}", f"増援：{scenario.name.get('ja')}"),
        [_t("Turn", "ターン"), _t("Units", "ユニット"), _t("Entry", "登場場所")],
        rows,
        [tuple(r.units) for r in arrivals],
    )


def order_of_battle(game: GameData, side_id: str, side: Text, lang: str) -> Chart | None:
    units = [u for u in game.units if u.side == side_id]
    if not units:
        return None
    formations = {f.id: f for f in game.formations}
    rows: list[list[str | Text]] = []
    pieces: list[tuple[str, ...]] = []
    for unit in units:
        pieces.append((unit.id,))
        formation = formations.get(unit.formation)
        values = "-".join(
            str(v)
            for v in unit.front.values()
            if isinstance(v, int | float) and not isinstance(v, bool)
        )
        rows.append(
            [
                unit.name.get(lang),
                formation.name.get(lang) if formation else "",
                unit.type,
                unit.size,
                values,
                str(unit.copies),
            ]
        )
    return _chart(
        f"oob-{side_id}",
        _t(f"Order of battle: {side.en}", f"戦闘序列：{side.get('ja')}"),
        [
            _t("Unit", "ユニット"),
            _t("Formation", "所属"),
            _t("Type", "兵科"),
            _t("Size", "規模"),
            _t("Values", "数値"),
            _t("Copies", "枚数"),
        ],
        rows,
        pieces,
    )


def deck_list(game: GameData, deck_id: str, name: Text, lang: str) -> Chart:
    cards = [c for c in game.cards if c.deck == deck_id]
    rows: list[list[str | Text]] = []
    for card in cards:
        fields = ", ".join(
            f"{k} {v}"
            for k, v in card.fields.items()
            if not isinstance(v, bool) and len(str(v)) < 12
        )
        rows.append([card.name.get(lang), card.category or card.type, fields, str(card.copies)])
    return _chart(
        f"deck-{deck_id}",
        _t(f"Deck list: {name.en}", f"デッキリスト：{name.get('ja')}"),
        [_t("Card", "カード"), _t("Category", "分類"), _t("Values", "数値"), _t("Copies", "枚数")],
        rows,
    )


def derived_charts(game: GameData, lang: str) -> list[Chart]:
    """All derived player aids, long ones split into pages."""
    charts: list[Chart | None] = [turn_track(game)]
    for scenario in game.scenarios:
        if scenario.setup:
            charts.append(setup_card(game, scenario, lang))
        charts.append(reinforcement_schedule(game, scenario, lang))
    for side in game.game.sides:
        charts.append(order_of_battle(game, side.id, side.name, lang))
    for deck in game.decks:
        charts.append(deck_list(game, deck.id, deck.name, lang))
    return [page for chart in charts if chart is not None for page in _pages(chart)]
