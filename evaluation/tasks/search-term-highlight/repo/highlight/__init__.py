"""Find search terms in text and mark them up for display."""

from highlight.matches import find_spans, merge_spans
from highlight.render import highlight, snippet

__all__ = ["find_spans", "highlight", "merge_spans", "snippet"]
