"""Plan and write one game's module: images, board layouts, gpids, build file, scenario saves,
then a deterministic zip written next to its target and renamed over it."""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

from PIL import Image

from compiler.backends.art import cards as art_cards
from compiler.backends.art import pieces as art
from compiler.backends.vassal import pieces as pc
from compiler.backends.vassal.boardart import load_board_art
from compiler.backends.vassal.boards import render_board
from compiler.backends.vassal.buildfile import (
    REINFORCEMENTS_MAP,
    ModulePlan,
    build_file,
    moduledata,
    turn_zone,
)
from compiler.backends.vassal.geometry import MapLayout, box_strip, layout_map
from compiler.backends.vassal.saves import ZIP_DATE, save_file
from compiler.backends.vassal.xml import serialise
from compiler.diagnostics import Finding
from compiler.model.common import Text
from compiler.model.gamedata import GameData
from compiler.model.maps import GameMap

PIECE_SIZE = 64


class ImageStore:
    """Images by content: the same picture is stored once, under a name made from its bytes."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def add(self, image: Image.Image, prefix: str) -> str:
        data = art.png_bytes(image)
        name = f"{prefix}-{hashlib.sha1(data).hexdigest()[:16]}.png"
        self.files[name] = data
        return name


class ArtError(Exception):
    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


def _render(
    call: Callable[[], tuple[Image.Image, Image.Image | None]], rule_loc: Finding
) -> tuple[Image.Image, Image.Image | None]:
    try:
        return call()
    except ValueError as err:
        raise ArtError(
            Finding(rule_loc.rule, rule_loc.location, f"{rule_loc.message}: {err}", rule_loc.hint)
        ) from err


def _unit_images(game: GameData, store: ImageStore) -> dict[str, pc.Images]:
    out: dict[str, pc.Images] = {}
    overlays: dict[int, str] = {}
    for unit in game.units:
        unit_type = game.unit_type(unit.type)
        where = Finding(
            "art-error",
            unit_type.loc if unit_type else unit.loc,
            f"cannot draw unit `{unit.id}`",
            "check the unit type's symbol",
        )
        if unit_type is not None and unit_type.shape == "block":
            face, back = _render(partial(art.block_faces, game, unit, PIECE_SIZE), where)
            out[unit.id] = pc.Images(
                store.add(face, "block"), store.add(back, "blockback") if back else ""
            )
            continue
        front, reverse = _render(partial(art.counter_faces, game, unit, PIECE_SIZE), where)
        steps: list[str] = []
        for lost in range(1, unit.steps):
            if lost not in overlays:
                overlays[lost] = store.add(art.step_overlay(lost, PIECE_SIZE), "step")
            steps.append(overlays[lost])
        out[unit.id] = pc.Images(
            store.add(front, "unit"), store.add(reverse, "unit") if reverse else "", tuple(steps)
        )
    return out


def _marker_images(game: GameData, store: ImageStore) -> dict[str, pc.Images]:
    out = {}
    for marker in game.markers.values():
        front, back = art.marker_faces(game, marker, PIECE_SIZE)
        out[marker.id] = pc.Images(
            store.add(front, "marker"), store.add(back, "marker") if back else ""
        )
    return out


def map_names(maps: tuple[GameMap, ...]) -> dict[str, str]:
    names: dict[str, str] = {}
    used: set[str] = {REINFORCEMENTS_MAP}
    for game_map in maps:
        name = game_map.name.en or game_map.id
        if name in used:
            name = f"{name} ({game_map.id})"
        used.add(name)
        names[game_map.id] = name
    return names


def _gpids(game: GameData) -> dict[str, int]:
    keys = [f"unit:{u.id}" for u in game.units] + [f"marker:{m}" for m in game.markers]
    keys += [f"card:{c.id}:{n}" for c in game.cards for n in range(c.copies)]
    return pc.assign_gpids(keys)


def _reinforcements(game: GameData, store: ImageStore) -> tuple[list[int], MapLayout | None, str]:
    turns = sorted({r.turn for s in game.scenarios for r in s.reinforcements})
    if not turns:
        return [], None, ""
    holding = GameMap(id=REINFORCEMENTS_MAP, name=Text(REINFORCEMENTS_MAP), kind="none")
    zones, height = box_strip([(turn_zone(t), turn_zone(t)) for t in turns], 0, 1200)
    layout = MapLayout(
        holding, 1200, height, (), (), tuple(zones), 0, {z.id: z.point for z in zones}
    )
    return turns, layout, store.add(render_board(game, layout), "board")


def render_plan(game: GameData) -> tuple[ModulePlan, dict[str, bytes]]:
    """The slow half: lay out and draw every board and piece; returns the plan and the images."""
    store = ImageStore()
    arts = {m.id: load_board_art(game, m) for m in game.maps}
    layouts = {m.id: layout_map(m, _size(arts[m.id])) for m in game.maps}
    boards = {
        m.id: store.add(render_board(game, layouts[m.id], arts[m.id]), "board") for m in game.maps
    }
    turns, holding, holding_image = _reinforcements(game, store)
    if holding is not None:
        layouts[REINFORCEMENTS_MAP] = holding
    cards = {c.id: store.add(art_cards.card_face(game, c), "card") for c in game.cards}
    backs = {d.id: store.add(art_cards.deck_back(game, d), "cardback") for d in game.decks}
    plan = ModulePlan(
        game,
        layouts,
        map_names(game.maps),
        boards,
        _unit_images(game, store),
        _marker_images(game, store),
        cards,
        backs,
        _gpids(game),
        turns,
        holding_image,
    )
    return plan, {f"images/{name}": data for name, data in store.files.items()}


def _size(image: Image.Image | None) -> tuple[int, int] | None:
    return image.size if image is not None else None


def assemble(plan: ModulePlan, images: dict[str, bytes]) -> dict[str, bytes]:
    """The module step proper: scenario saves, buildFile.xml and moduledata beside the images."""
    files = dict(images)
    for scenario in plan.game.scenarios:
        if scenario.setup or scenario.reinforcements:
            plan.scenario_files[scenario.id] = f"{_safe(scenario.id)}.vsav"
            files[plan.scenario_files[scenario.id]] = save_file(plan, scenario)
    files["buildFile.xml"] = serialise(build_file(plan))
    files["moduledata"] = moduledata(plan.game)
    return files


def plan_module(game: GameData) -> tuple[ModulePlan, dict[str, bytes]]:
    plan, images = render_plan(game)
    return plan, assemble(plan, images)


def _safe(ident: str) -> str:
    return "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_.") else "_" for ch in ident)


def zip_bytes(files: dict[str, bytes]) -> bytes:
    """A deterministic zip: sorted names, fixed dates, PNGs stored, text deflated."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = (
                zipfile.ZIP_STORED if name.endswith(".png") else zipfile.ZIP_DEFLATED
            )
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name])
    return buffer.getvalue()


def write_atomically(target: Path, data: bytes) -> None:
    """Write beside the target, then rename over it: a failed build leaves the old file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def build_module(game: GameData, out_dir: Path) -> Path:
    _plan, files = plan_module(game)
    target = out_dir / game.game.id / f"{game.game.id}.vmod"
    write_atomically(target, zip_bytes(files))
    return target
