"""Seat maps for cinema halls."""

from seating.hall import SeatMap, SeatTaken

__all__ = ["SeatMap", "SeatTaken"]
