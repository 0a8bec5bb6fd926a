"""A hall of `rows` rows (A, B, C, ...) of `seats_per_row` seats numbered from 1.

Seats are stored row after row in one flat list: A1, A2, ..., then B1, B2, ...
"""

from __future__ import annotations

import string


class SeatTaken(Exception):
    pass


class SeatMap:
    def __init__(self, rows: int, seats_per_row: int) -> None:
        if not 1 <= rows <= 26 or seats_per_row < 1:
            raise ValueError("a hall has 1-26 rows and at least one seat per row")
        self.rows = rows
        self.seats_per_row = seats_per_row
        self._taken = [False] * (rows * seats_per_row)

    def index_of(self, label: str) -> int:
        """'C7' -> the position of row C, seat 7 in the flat list."""
        letter, number = label[:1].upper(), label[1:]
        row = string.ascii_uppercase.find(letter)
        if not number.isdigit() or not 0 <= row < self.rows:
            raise ValueError(f"no such seat: {label!r}")
        seat = int(number)
        if not 1 <= seat <= self.seats_per_row:
            raise ValueError(f"no such seat: {label!r}")
        return row * self.rows + seat - 1

    def label_of(self, index: int) -> str:
        if not 0 <= index < len(self._taken):
            raise IndexError(index)
        row, seat = divmod(index, self.rows)
        return f"{string.ascii_uppercase[row]}{seat + 1}"

    def book(self, *labels: str) -> None:
        """Book all the seats or none of them."""
        indexes = [self.index_of(label) for label in labels]
        taken = [label for label, index in zip(labels, indexes) if self._taken[index]]
        if taken:
            raise SeatTaken(", ".join(taken))
        for index in indexes:
            self._taken[index] = True

    def is_free(self, label: str) -> bool:
        return not self._taken[self.index_of(label)]

    def free_seats(self) -> list[str]:
        return [self.label_of(index) for index, taken in enumerate(self._taken) if not taken]

    def free_block(self, size: int) -> list[str] | None:
        """The first `size` adjacent free seats in one row, front row first."""
        for row in range(self.rows):
            run: list[str] = []
            for seat in range(1, self.seats_per_row + 1):
                label = f"{string.ascii_uppercase[row]}{seat}"
                run = run + [label] if self.is_free(label) else []
                if len(run) == size:
                    return run
        return None
