"""Data files countermix reads at run time (not code).

This folder ships inside the installed package as `compiler.templates` (see pyproject.toml) and
is found through the package by `compiler.resources`: `layouts.yaml` (the standard face
layouts), `player_aids.yaml.j2` (the player aids derived from a game's data) and `new-game/` (the
games `countermix new` writes, one folder per map kind).
"""
