"""report.html's SVG charts, as data for the template: the timeline of the heal's stages with a
tick per screening, and the candidates tried per mutation family."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

WIDTH = 960  # of the charts, in SVG units
MAX_TICKS = 3000  # screenings drawn on the timeline
MAX_LISTED = 40  # candidates listed per family
# the candidates chart is drawn at its own size (not scaled), so its 11 px labels stay legible
BAR_BOX = 180  # its width, in SVG units and pixels
DIGIT_W = 7.0  # more than one digit's advance at 11 px in any sans-serif font
LABEL_GAP = 4


def timeline(events: list[dict[str, Any]]) -> dict[str, Any]:
    """A lane per stage, its bars in WIDTH units of the heal's time, and a tick per screening. The
    lanes' names are the page's text, not the chart's: a chart scaled to a phone's width would
    shrink them past reading."""
    timed = [e for e in events if isinstance(e.get("start"), (int, float))]
    if not timed:
        return {"lanes": [], "ticks": [], "total_s": 0.0, "width": WIDTH}
    t0 = min(e["start"] for e in timed)
    t1 = max(e.get("end", e["start"]) for e in timed)
    total = max(t1 - t0, 1e-6)
    scale = WIDTH / total
    lanes: dict[str, list[dict[str, Any]]] = {}
    for event in timed:
        if event["node"] == "screen":
            continue
        duration = float(event.get("duration_s", 0.0))
        lanes.setdefault(event["node"], []).append({
            "x": round((event["start"] - t0) * scale, 2),
            "w": round(max(duration * scale, 1.5), 2),
            "title": f"{event['node']}: {duration:.2f} s",
        })  # fmt: skip
    rows = [
        {"name": name, "bars": bars, "total_s": _lane_seconds(events, name)} for name, bars in lanes.items()
    ]
    screens = [e for e in timed if e["node"] == "screen"][:MAX_TICKS]
    ticks = [
        {"x": round((e["start"] - t0) * scale, 2), "plausible": bool(e.get("plausible")),
         "colour": "#1a7f37" if e.get("plausible") else "#8c959f",
         "title": f"#{e.get('n')} {e.get('family', '')}: {str(e.get('candidate', ''))[:80]}"}
        for e in screens
    ]  # fmt: skip
    return {"lanes": rows, "ticks": ticks, "total_s": round(total, 2), "width": WIDTH}


def _lane_seconds(events: list[dict[str, Any]], node: str) -> float:
    return round(sum(float(e.get("duration_s", 0.0)) for e in events if e.get("node") == node), 2)


def bar_geometry(count: int, most: int, box: float = BAR_BOX) -> dict[str, float]:
    """The bar of `count` candidates (the longest family tried `most`) and where its label starts:
    the longest bar leaves room for the longest label, so no count is drawn past the box."""
    room = LABEL_GAP + DIGIT_W * len(str(max(most, 1))) + 1
    width = (box - room) * count / most if most > 0 else 0.0
    return {"bar": round(max(width, 1.0), 1), "label_x": round(max(width, 1.0) + LABEL_GAP, 1)}


def families(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    tried: Counter[str] = Counter()
    outcomes: dict[str, Counter[str]] = defaultdict(Counter)
    listed: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        if event.get("node") != "screen":
            continue
        family = str(event.get("family", "?"))
        tried[family] += 1
        outcome = _outcome(event)
        outcomes[family][outcome] += 1
        if len(listed[family]) < MAX_LISTED:
            listed[family].append(
                {"n": event.get("n"), "candidate": event.get("candidate"), "outcome": outcome}
            )
    most = max(tried.values(), default=1)
    return [
        {"family": family, "tried": count, **bar_geometry(count, most),
         "plausible": outcomes[family]["plausible"], "improving": outcomes[family]["fixed some"],
         "broken": outcomes[family]["broke a test"], "error": outcomes[family]["error"],
         "listed": listed[family], "more": count - len(listed[family])}
        for family, count in tried.most_common()
    ]  # fmt: skip


def _outcome(event: dict[str, Any]) -> str:
    if event.get("error"):
        return "error"
    if event.get("plausible"):
        return "plausible"
    if event.get("broken"):
        return "broke a test"
    if event.get("fixed"):
        return "fixed some"
    return "no change"
