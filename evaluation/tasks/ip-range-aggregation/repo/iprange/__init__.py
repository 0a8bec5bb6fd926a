"""Aggregate IPv4 address ranges into the smallest list of CIDR blocks."""

from iprange.addresses import int_to_ip, ip_to_int
from iprange.ranges import aggregate, parse_range, summarize, to_cidrs

__all__ = ["aggregate", "int_to_ip", "ip_to_int", "parse_range", "summarize", "to_cidrs"]
