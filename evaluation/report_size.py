"""How large do report.html and report.json grow on a long search heal?

A real heal, no model: a small bookkeeping module whose bug needs a new statement (transfers
between one's own accounts are neither income nor spending), which no mutation of the existing
code writes. Every line of `statement()` and its helpers runs in the failing test, so the search
has many suspect sites and screens until its candidate budget is spent. Printed: the heal's
status, the candidates it screened, and the sizes of report.html, report.json and trace.jsonl.

    python evaluation/report_size.py [--max-candidates 2000] [--max-minutes 30] [--keep DIR]

The heal is `python -m selfheal heal` with the local sandbox, as a user would run it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

GIT = ["git", "-c", "user.name=selfheal-eval", "-c", "user.email=eval@selfheal.invalid",
       "-c", "commit.gpgsign=false"]  # fmt: skip

MODULE = """\"\"\"Monthly statements of a household's accounts, from lines `date;category;amount`.\"\"\"

ALIASES = {"food": "groceries", "supermarket": "groceries", "wage": "salary", "pay": "salary"}
WIDTH = 12
DIGITS = 10


def is_comment(line):
    stripped = line.strip()
    return not stripped or stripped.startswith("#") or stripped.startswith("//")


def parse_amount(text):
    \"\"\"'12.50' -> 12.5, '(4.25)' -> -4.25 (an accountant's negative), '1 000' -> 1000.0.\"\"\"
    text = text.strip().replace(" ", "")
    negative = text.startswith("(") and text.endswith(")")
    if negative:
        text = text[1:-1]
    value = float(text)
    return -value if negative else value


def normalise_category(name):
    name = " ".join(name.strip().lower().split())
    if name.endswith("s") and name[:-1] in ALIASES:
        name = name[:-1]
    return ALIASES.get(name, name)


def parse_line(line):
    \"\"\"'2024-03-01;Groceries;-12.50' -> ('2024-03-01', 'groceries', -12.5).\"\"\"
    parts = line.split(";")
    if len(parts) != 3:
        raise ValueError(f"expected date;category;amount, got {line!r}")
    date, category, amount = parts
    return date.strip(), normalise_category(category), parse_amount(amount)


def day_of(date):
    parts = date.split("-")
    if len(parts) != 3:
        raise ValueError(f"expected year-month-day, got {date!r}")
    day = int(parts[2])
    if not 1 <= day <= 31:
        raise ValueError(f"no day {day} in {date}")
    return day


def month_of(date):
    year, month = date.split("-")[:2]
    if not 1 <= int(month) <= 12:
        raise ValueError(f"no month {month} in {date}")
    return f"{int(year):04d}-{int(month):02d}"


def monthly_totals(lines):
    totals = {}
    for line in lines:
        if is_comment(line):
            continue
        date, category, amount = parse_line(line)
        day_of(date)
        bucket = totals.setdefault(month_of(date), {})
        bucket[category] = round(bucket.get(category, 0.0) + amount, 2)
    return totals


def split(totals):
    income = sum(value for value in totals.values() if value > 0)
    spent = -sum(value for value in totals.values() if value < 0)
    return round(income, 2), round(spent, 2)


def format_money(value, digits=DIGITS, decimals=2):
    text = f"{abs(value):,.{decimals}f}".replace(",", "")
    sign = "-" if value < 0 else ""
    return f"{sign + text:>{digits}}"


def format_row(name, value, width=WIDTH, digits=DIGITS):
    label = name if len(name) <= width else name[: width - 1] + "~"
    return f"{label:<{width}}{format_money(value, digits)}"


def balance_note(income, spent):
    if spent > income:
        return "overspent"
    if income and spent / income > 0.9:
        return "tight"
    return ""


def statement(lines, month, width=WIDTH, digits=DIGITS):
    totals = monthly_totals(lines).get(month, {})
    income, spent = split(totals)
    balance = round(income - spent, 2)
    names = sorted(totals)
    rows = [format_row(name, totals[name], width, digits) for name in names]
    rows.append(format_row("income", income, width, digits))
    rows.append(format_row("spent", spent, width, digits))
    note = balance_note(income, spent)
    last = format_row("balance", balance, width, digits)
    rows.append(last + (f"  {note}" if note else ""))
    return "\\n".join(rows)
"""

TESTS = """from books.ledger import (
    balance_note,
    day_of,
    format_money,
    format_row,
    is_comment,
    month_of,
    monthly_totals,
    normalise_category,
    parse_amount,
    parse_line,
    split,
    statement,
)

LINES = [
    "# March",
    "2024-03-01;Wage;2500.00",
    "2024-03-02;Supermarket;-80.25",
    "2024-03-09;groceries;(19.75)",
    "2024-03-15;Rent;-900",
    "",
    "// April",
    "2024-04-01;Salary;2 500.00",
]


def test_parse_line():
    assert parse_line("2024-03-01; Groceries ;-12.50") == ("2024-03-01", "groceries", -12.5)


def test_parse_amount():
    assert [parse_amount(t) for t in ("12.50", "-3", "(4.25)", "1 000")] == [12.5, -3.0, -4.25, 1000.0]


def test_normalise_category():
    assert [normalise_category(n) for n in ("Food", " Eating  Out ", "wages", "Rent")] == [
        "groceries", "eating out", "salary", "rent",
    ]


def test_is_comment():
    assert [is_comment(x) for x in ("# x", "  ", "// y", "2024-01-01;a;1")] == [True, True, True, False]


def test_day_of():
    assert [day_of("2024-03-07"), day_of("2024-3-31")] == [7, 31]


def test_format_money():
    assert [format_money(-3.5), format_money(1234.5, digits=8), format_money(0)] == [
        "     -3.50", " 1234.50", "      0.00",
    ]


def test_month_of():
    assert month_of("2024-3-07") == "2024-03"


def test_monthly_totals_by_month_and_category():
    assert monthly_totals(LINES) == {
        "2024-03": {"salary": 2500.0, "groceries": -100.0, "rent": -900.0},
        "2024-04": {"salary": 2500.0},
    }


def test_split():
    assert split({"salary": 2500.0, "rent": -900.0, "groceries": -100.0}) == (2500.0, 1000.0)


def test_format_row():
    assert format_row("entertainment", 12.5) == "entertainme~     12.50"


def test_balance_note():
    assert [balance_note(100, 120), balance_note(100, 95), balance_note(100, 50), balance_note(0, 0)] == [
        "overspent", "tight", "", "",
    ]


def test_statement():
    assert statement(LINES, "2024-03").splitlines() == [
        "groceries      -100.00",
        "rent           -900.00",
        "salary         2500.00",
        "income         2500.00",
        "spent          1000.00",
        "balance        1500.00",
    ]


def test_statement_of_an_overspent_month():
    lines = [*LINES, "2024-04-03;Rent;-2600"]
    assert statement(lines, "2024-04").splitlines()[-1] == "balance        -100.00  overspent"


def test_statement_leaves_transfers_out_of_income_and_spending():
    lines = [*LINES, "2024-03-20;Transfer;-500", "2024-03-20;Transfer;500", "2024-03-21;Transfer;-250"]
    assert statement(lines, "2024-03").splitlines() == [
        "groceries      -100.00",
        "rent           -900.00",
        "salary         2500.00",
        "transfer       -250.00",
        "income         2500.00",
        "spent          1000.00",
        "balance        1500.00",
    ]
"""


def make_repo(repo: Path) -> None:
    (repo / "books").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "books" / "__init__.py").write_text("", encoding="utf-8")
    (repo / "books" / "ledger.py").write_text(MODULE, encoding="utf-8")
    (repo / "tests" / "test_ledger.py").write_text(TESTS, encoding="utf-8")
    subprocess.run([*GIT, "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run([*GIT, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-q", "-m", "statements"], check=True)


@dataclass(frozen=True)
class Figures:
    status: str
    exit_code: int
    wall_s: float
    candidates_tried: int
    candidates_screened: int
    screen_events: int  # in trace.jsonl
    failures_before: tuple[str, ...]
    sizes: dict[str, int]  # bytes of report.html, report.json and trace.jsonl


def measure(work: Path, max_candidates: int, max_minutes: float) -> Figures:
    """Heal the ledger repository (made in `work/repo`, the run folder `work/run`) and measure."""
    repo, out = work / "repo", work / "run"
    shutil.rmtree(repo, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    make_repo(repo)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "selfheal", "heal", str(repo), "--out", str(out), "--sandbox", "local",
         "--memory", "off", "--max-candidates", str(max_candidates), "--max-minutes", str(max_minutes)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    took = time.monotonic() - started
    if not (out / "report.json").is_file():
        raise RuntimeError(f"the heal wrote no report.json:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    trace = (out / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    return Figures(
        status=report["status"],
        exit_code=done.returncode,
        wall_s=took,
        candidates_tried=report["metrics"]["candidates_tried"],
        candidates_screened=report["metrics"]["candidates_screened"],
        screen_events=sum(1 for line in trace if json.loads(line).get("node") == "screen"),
        failures_before=tuple(report["failures_before"]),
        sizes={name: (out / name).stat().st_size for name in ("report.html", "report.json", "trace.jsonl")},
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--max-candidates", type=int, default=2000)
    parser.add_argument("--max-minutes", type=float, default=30.0)
    parser.add_argument("--keep", metavar="DIR", help="keep the repository and the run folder here")
    args = parser.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="selfheal-report-size-"))
    try:
        try:
            figures = measure(work, args.max_candidates, args.max_minutes)
        except RuntimeError as exc:
            print(exc, file=sys.stderr)
            return 1
        print(f"status               {figures.status} (exit {figures.exit_code}, {figures.wall_s:.0f} s)")
        print(f"candidates tried     {figures.candidates_tried}")
        print(
            f"candidates screened  {figures.candidates_screened} "
            f"({figures.screen_events} screen events in trace.jsonl)"
        )
        for name, size in figures.sizes.items():
            print(f"{name:<20} {size:>9} bytes ({size / 1024 / 1024:.2f} MB)")
        if args.keep:
            print(f"run folder           {work / 'run'}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
