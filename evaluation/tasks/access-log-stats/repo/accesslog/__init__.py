"""Statistics from web server access logs in the common log format."""

from accesslog.parse import LogEntry, parse_line, parse_log
from accesslog.stats import bytes_served, error_rate, is_server_error, status_counts, top_paths

__all__ = [
    "LogEntry",
    "bytes_served",
    "error_rate",
    "is_server_error",
    "parse_line",
    "parse_log",
    "status_counts",
    "top_paths",
]
