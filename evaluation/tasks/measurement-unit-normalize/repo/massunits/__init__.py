"""Weights written by people, normalised."""

from massunits.mass import UnknownUnit, convert, parse_mass, to_grams

__all__ = ["UnknownUnit", "convert", "parse_mass", "to_grams"]
