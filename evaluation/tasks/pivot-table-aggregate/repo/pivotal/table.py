"""Pivot records into a nested dict table: table[row_key][column_key] -> aggregate."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Mapping

AGGREGATES = ("sum", "mean", "count")


def pivot(
    records: Iterable[Mapping[str, Any]],
    index: str,
    columns: str,
    values: str,
    agg: str = "sum",
    fill: float = 0,
) -> dict[Any, dict[Any, float]]:
    """One row per distinct `index` value and one column per distinct `columns` value.

    Each cell aggregates the `values` field of the records that fall into it; cells no record
    falls into hold `fill`. Rows and columns come out sorted.
    """
    if agg not in AGGREGATES:
        raise ValueError(f"unknown aggregate {agg!r}; expected one of {AGGREGATES}")
    sums: dict[tuple[Any, Any], float] = defaultdict(float)
    counts: dict[tuple[Any, Any], int] = defaultdict(int)
    row_keys, column_keys = set(), set()
    for record in records:
        key = (record[index], record[columns])
        row_keys.add(key[0])
        column_keys.add(key[1])
        sums[key] = record[values]
        counts[key] += 1

    def cell(key: tuple[Any, Any]) -> float:
        if key not in counts:
            return fill
        if agg == "count":
            return counts[key]
        if agg == "mean":
            return sums[key] / counts[key]
        return sums[key]

    return {row: {col: cell((row, col)) for col in sorted(column_keys)} for row in sorted(row_keys)}


def totals(table: Mapping[Any, Mapping[Any, float]]) -> tuple[dict[Any, float], dict[Any, float], float]:
    """(row totals, column totals, grand total) of a pivoted table."""
    row_totals = {row: sum(cells.values()) for row, cells in table.items()}
    column_totals: dict[Any, float] = defaultdict(float)
    for cells in table.values():
        for column, value in cells.items():
            column_totals[column] += value
    return row_totals, dict(column_totals), sum(row_totals.values())
