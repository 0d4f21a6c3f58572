"""Validation: built-in integrity rules and generic constraint kinds configured per game."""
