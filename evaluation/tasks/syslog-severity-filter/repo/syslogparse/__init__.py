"""Parse and filter BSD syslog messages."""

from syslogparse.message import Message, decode_priority, parse_line
from syslogparse.filters import at_least, by_facility

__all__ = ["Message", "at_least", "by_facility", "decode_priority", "parse_line"]
