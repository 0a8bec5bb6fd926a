"""Pagination helpers for list views."""

from paging.pages import Page, PageOutOfRange, page_count, page_links, paginate

__all__ = ["Page", "PageOutOfRange", "page_count", "page_links", "paginate"]
