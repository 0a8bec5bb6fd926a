"""JUnit XML, as pytest writes it, into outcomes per test node id."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

NODEID_PROPERTY = "selfheal_nodeid"
ERROR_TYPE = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failed|Timeout))\b")
SEVERITY = {"passed": 0, "skipped": 1, "xfailed": 1, "failed": 3, "error": 3}


def error_type(message: str, outcome: str) -> str:
    """The exception's class name a failure message starts with (`KeyError: 'x'` -> KeyError),
    else the outcome itself.

    pytest words a rewritten assertion's crash line either way, `AssertionError: assert ...` or
    just `assert ...` (a comparison it explains with `+  where` lines, or one a fork-worker sees
    without its junit layer): both are an AssertionError.
    """
    found = ERROR_TYPE.match(message or "")
    if found:
        return found.group(1).rsplit(".", 1)[-1]
    return "AssertionError" if (message or "").lstrip().startswith("assert ") else outcome


@dataclass(frozen=True)
class TestOutcome:
    __test__ = False

    nodeid: str
    outcome: str  # passed | failed | error | skipped | xfailed
    message: str = ""
    details: str = ""
    duration: float = 0.0

    @property
    def failing(self) -> bool:
        return self.outcome in ("failed", "error")


@dataclass(frozen=True)
class ParsedJUnit:
    outcomes: dict[str, TestOutcome]
    collection_errors: dict[str, str]  # module or node -> error text


def parse_junit(xml_bytes: bytes) -> ParsedJUnit:
    root = ET.fromstring(xml_bytes)
    outcomes: dict[str, TestOutcome] = {}
    collection_errors: dict[str, str] = {}
    for case in root.iter("testcase"):
        nodeid = _nodeid(case)
        outcome, message, details = "passed", "", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed" if child.tag == "failure" else "error"
                message = child.get("message", "")
                details = child.text or ""
                break
            if child.tag == "skipped":
                outcome = "xfailed" if child.get("type") == "pytest.xfail" else "skipped"
                message = child.get("message", "")
        if nodeid is None or message == "collection failure":
            if outcome == "error":
                where = ".".join(p for p in (case.get("classname"), case.get("name")) if p)
                collection_errors[where or "<collection>"] = details or message
            continue
        found = TestOutcome(nodeid, outcome, message, details, _float(case.get("time")))
        earlier = outcomes.get(nodeid)
        if earlier is None or SEVERITY[found.outcome] > SEVERITY[earlier.outcome]:
            outcomes[nodeid] = found
    return ParsedJUnit(outcomes, collection_errors)


def _nodeid(case: ET.Element) -> str | None:
    for prop in case.iter("property"):
        if prop.get("name") == NODEID_PROPERTY and prop.get("value"):
            return prop.get("value")
    # Without our plugin: rebuild from xunit1's file attribute and the dotted class name.
    file, classname, name = case.get("file"), case.get("classname") or "", case.get("name")
    if not file or not name:
        return None
    module = file[:-3].replace("/", ".") if file.endswith(".py") else file
    inner = classname[len(module) + 1 :] if classname.startswith(module) else ""
    return "::".join([file, *[p for p in inner.split(".") if p], name])


def _float(value: str | None) -> float:
    try:
        return float(value or 0)
    except ValueError:
        return 0.0
