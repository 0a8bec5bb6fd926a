"""Network addresses out of infrastructure messages before they are published.

A Docker engine, pip or git says what failed in words that name hosts, resolvers and ports
(`lookup registry-1.docker.io on 10.255.255.53:53: no such host`). In a pull request, a job
summary or a comment that is noise to a maintainer and tells the world about the runner's
network; the report keeps the words as they were. Meant for such messages only: a test's own
output may hold an address the maintainer needs to see.
"""

from __future__ import annotations

import ipaddress
import re
from typing import TypeVar

E = TypeVar("E", bound=BaseException)

ADDRESS = "[address]"

# a URL ends before the punctuation that follows it in a sentence
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'()<>\[\]{}]*[^\s\"'()<>\[\]{}:.,;!?]")
_BRACKETED_IPV6 = re.compile(r"\[[0-9A-Fa-f:.]+\](?::\d{1,5})?")
# candidates only: `ipaddress` decides (a time of day or a version string is not an address)
_IPV4 = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d{1,3}){3})(?::\d{1,5})?(?![\w.])")
_IPV6 = re.compile(r"(?<![\w:.])([0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7})(?![\w:.])")
_HOST = re.compile(
    r"(?<![\w.@/\\-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,24})|localhost)"
    r"(?::\d{1,5})?(?![\w-])",
    re.IGNORECASE,
)
# the last label of a host name: the generic top-level domains such messages name, the suffixes
# of private networks, and two letters (a country's domain) after two dots, but those that end
# file names
_GENERIC_TLDS = frozenset({
    "com", "org", "net", "io", "dev", "ai", "app", "cloud", "co", "me", "info", "biz", "edu", "gov",
    "mil", "int", "xyz", "tech", "site", "online", "run", "gg", "internal", "local", "localdomain",
    "lan", "corp", "home", "intranet", "svc", "cluster", "test", "example", "invalid", "arpa",
})  # fmt: skip
_FILE_SUFFIXES = frozenset({
    "py", "md", "gz", "js", "ts", "so", "sh", "rs", "go", "cc", "hh", "pl", "rb", "in", "db", "mo",
    "po", "cs", "vb", "xz", "bz", "lz", "h5",
})  # fmt: skip


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _host(match: re.Match[str]) -> str:
    name, tld = match.group(1), (match.group(2) or "").lower()
    # two letters after one dot are as often a field (`comment.id`) as a country's domain
    country = len(tld) == 2 and tld not in _FILE_SUFFIXES and name.count(".") >= 2
    if name.lower() == "localhost" or tld in _GENERIC_TLDS or country:
        return ADDRESS
    return match.group(0)


def without_addresses(text: str) -> str:
    """`text` with every URL, IP address (with its port) and host name in it replaced by
    `[address]`."""
    text = _URL.sub(ADDRESS, text)
    text = _BRACKETED_IPV6.sub(
        lambda m: ADDRESS if _is_ip(m.group(0).split("]")[0][1:]) else m.group(0), text
    )
    text = _IPV4.sub(lambda m: ADDRESS if _is_ip(m.group(1)) else m.group(0), text)
    text = _IPV6.sub(lambda m: ADDRESS if _is_ip(m.group(1)) else m.group(0), text)
    return _HOST.sub(_host, text)


def published(error: BaseException) -> str:
    """What may be published of `error`: its own plain line where it has one (`plain`), else its
    message without network addresses."""
    return getattr(error, "plain", "") or without_addresses(str(error))


def with_plain(error: E, plain: str) -> E:
    """`error` carrying `plain` as what may be published of it: an error that wraps another says
    in its plain line what the other's plain line says."""
    error.plain = plain  # type: ignore[attr-defined]
    return error
