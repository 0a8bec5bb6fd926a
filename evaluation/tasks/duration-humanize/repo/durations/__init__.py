"""Human-friendly durations."""

from durations.units import format_clock, humanize, parse_duration, split

__all__ = ["format_clock", "humanize", "parse_duration", "split"]
