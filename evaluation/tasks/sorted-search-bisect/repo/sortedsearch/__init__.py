"""Binary search over sorted sequences."""

from sortedsearch.search import count_between, contains, insert_sorted, lower_bound, upper_bound

__all__ = ["contains", "count_between", "insert_sorted", "lower_bound", "upper_bound"]
