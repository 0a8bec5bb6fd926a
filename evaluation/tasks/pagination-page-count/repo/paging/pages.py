"""Pages are numbered from 1; an empty list still has one (empty) page."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Generic, Optional, Sequence, TypeVar

T = TypeVar("T")


class PageOutOfRange(LookupError):
    pass


@dataclass(frozen=True)
class Page(Generic[T]):
    items: Sequence[T]
    number: int
    total_pages: int

    @property
    def has_next(self) -> bool:
        return self.number < self.total_pages

    @property
    def has_previous(self) -> bool:
        return self.number > 1


def page_count(total: int, per_page: int) -> int:
    """How many pages `total` items fill, at least 1."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    return max(1, math.floor(total / per_page))


def paginate(items: Sequence[T], number: int, per_page: int = 10) -> Page[T]:
    pages = page_count(len(items), per_page)
    if not 1 <= number <= pages:
        raise PageOutOfRange(f"page {number} of {pages}")
    start = (number - 1) * per_page
    return Page(items[start : start + per_page], number, pages)


def page_links(current: int, total_pages: int, window: int = 2) -> list[Optional[int]]:
    """Page numbers for a link bar: the first and last page, `window` pages either side of
    the current one, and None where pages are left out: [1, None, 4, 5, 6, None, 10]."""
    shown = {1, total_pages} | set(range(current - window, current + window + 1))
    links: list[Optional[int]] = []
    for number in sorted(n for n in shown if 1 <= n <= total_pages):
        if links and links[-1] is not None and number - links[-1] > 1:
            links.append(None)
        links.append(number)
    return links
