"""One whole heal per bug shape: a tiny package with one realistic bug (two in the last case).

Each shape is a different repair family. Every test checks the same proof obligations (healed,
no regressions, the patch applies on the base commit and the suite passes in a clean run of its
own) and then the concrete fix: the line the patch removes and the line it adds. Where more than
one minimal fix is equally correct, every correct one is accepted and the test says why.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from selfheal.agent.report.result import HealResult
from tests.conftest import apply_and_test, diff_lines

pytestmark = pytest.mark.slow

PYPROJECT = """
[tool.pytest.ini_options]
testpaths = ["tests"]
"""


def patched_files(patch: str) -> set[str]:
    headers = (line for line in patch.splitlines() if line.startswith("diff --git "))
    return {line.split(" b/", 1)[1] for line in headers}


def heal_repo(
    make_repo: Callable[..., Path],
    run_heal: Callable[..., HealResult],
    tmp_path: Path,
    files: dict[str, str],
    *,
    failing: set[str],
) -> HealResult:
    """Heal the repo and check every obligation that does not depend on the shape."""
    repo = make_repo({"pyproject.toml": PYPROJECT, **files})
    result = run_heal(repo)
    diagnostics = (
        f"status={result.status} error={result.error} notes={result.notes} "
        f"fixes={[f.description for f in result.fixes]} "
        f"rejections={[(r.candidate.description, r.verdict.status) for r in result.rejections]} "
        f"tried={result.metrics.candidates_tried} stopped={result.stopped_because!r}"
    )
    assert set(result.failures_before) == failing, diagnostics
    assert result.status == "healed", diagnostics
    assert result.regressions == []
    assert result.failures_after == []
    assert result.patch
    assert not any(path.startswith("tests/") for path in patched_files(result.patch))
    done = apply_and_test(repo, result.patch, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    return result


def test_off_by_one_in_a_range_bound(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "windows/__init__.py": "",
            "windows/sums.py": '''
            """Sliding-window sums."""


            def window_sums(values: list[int], width: int) -> list[int]:
                """The sum of every run of `width` consecutive values, left to right."""
                sums = []
                for start in range(len(values) - width):
                    sums.append(sum(values[start:start + width]))
                return sums
            ''',
            "tests/test_sums.py": """
            from windows.sums import window_sums


            def test_every_window_is_summed():
                assert window_sums([1, 2, 3, 4], 2) == [3, 5, 7]


            def test_one_window_when_width_equals_length():
                assert window_sums([5, 5], 2) == [10]


            def test_window_wider_than_values():
                assert window_sums([1, 2], 3) == []


            def test_no_values():
                assert window_sums([], 1) == []
            """,
        },
        failing={
            "tests/test_sums.py::test_every_window_is_summed",
            "tests/test_sums.py::test_one_window_when_width_equals_length",
        },
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    for start in range(len(values) - width):"]
    # Both spellings of "one more window" are the same fix.
    assert added in (
        ["    for start in range(len(values) - width + 1):"],
        ["    for start in range(len(values) + 1 - width):"],
    )


def test_wrong_boolean_operator(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "accounts/__init__.py": "",
            "accounts/names.py": '''
            """Username rules."""


            def is_valid_username(name: str) -> bool:
                """3 to 20 characters, letters and digits only."""
                return 3 <= len(name) <= 20 or name.isalnum()
            ''',
            "tests/test_names.py": """
            import pytest

            from accounts.names import is_valid_username


            @pytest.mark.parametrize("name", ["bob", "alice99", "x" * 20])
            def test_valid(name):
                assert is_valid_username(name)


            @pytest.mark.parametrize("name", ["al", "x" * 21, "bob smith", "ab!"])
            def test_invalid(name):
                assert not is_valid_username(name)
            """,
        },
        failing={
            "tests/test_names.py::test_invalid[al]",
            "tests/test_names.py::test_invalid[ab!]",
            "tests/test_names.py::test_invalid[xxxxxxxxxxxxxxxxxxxxx]",
            "tests/test_names.py::test_invalid[bob smith]",
        },
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    return 3 <= len(name) <= 20 or name.isalnum()"]
    assert added == ["    return 3 <= len(name) <= 20 and name.isalnum()"]


def test_wrong_comparison_in_a_loop_condition(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "readings/__init__.py": "",
            "readings/prefix.py": '''
            """Leading runs of readings."""


            def prefix_below(values: list[float], limit: float) -> list[float]:
                """The leading values that are strictly below `limit`."""
                taken = []
                index = 0
                while index < len(values) and values[index] <= limit:
                    taken.append(values[index])
                    index += 1
                return taken
            ''',
            "tests/test_prefix.py": """
            from readings.prefix import prefix_below


            def test_stops_at_a_value_equal_to_the_limit():
                assert prefix_below([1.0, 2.0, 3.0], 2.0) == [1.0]


            def test_stops_at_the_first_value_above_the_limit():
                assert prefix_below([0.5, 1.5, 2.5, 0.1], 2.0) == [0.5, 1.5]


            def test_all_values_below():
                assert prefix_below([0.1, 0.2], 5.0) == [0.1, 0.2]


            def test_empty():
                assert prefix_below([], 1.0) == []
            """,
        },
        failing={"tests/test_prefix.py::test_stops_at_a_value_equal_to_the_limit"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    while index < len(values) and values[index] <= limit:"]
    assert added == ["    while index < len(values) and values[index] < limit:"]


def test_min_instead_of_max(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "layout/__init__.py": "",
            "layout/columns.py": '''
            """Column widths for plain-text tables."""


            def column_width(cells: list[str], padding: int = 0) -> int:
                """Width that fits the longest cell, plus padding on both sides."""
                widest = min((len(cell) for cell in cells), default=0)
                return widest + 2 * padding
            ''',
            "tests/test_columns.py": """
            from layout.columns import column_width


            def test_fits_the_longest_cell():
                assert column_width(["a", "abc", "ab"]) == 3


            def test_padding_is_added_on_both_sides():
                assert column_width(["id", "name"], padding=1) == 6


            def test_equal_cells():
                assert column_width(["four", "five"]) == 4


            def test_empty_column():
                assert column_width([], padding=2) == 4
            """,
        },
        failing={
            "tests/test_columns.py::test_fits_the_longest_cell",
            "tests/test_columns.py::test_padding_is_added_on_both_sides",
        },
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    widest = min((len(cell) for cell in cells), default=0)"]
    assert added == ["    widest = max((len(cell) for cell in cells), default=0)"]


def test_wrong_slice_bound(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "lines/__init__.py": "",
            "lines/endings.py": '''
            """Line endings."""


            def strip_newline(line: str) -> str:
                """`line` without its one trailing newline, if it has one."""
                if line.endswith("\\n"):
                    return line[1:]
                return line
            ''',
            "tests/test_endings.py": """
            from lines.endings import strip_newline


            def test_trailing_newline_is_removed():
                assert strip_newline("hello\\n") == "hello"


            def test_only_one_newline_is_removed():
                assert strip_newline("a\\n\\n") == "a\\n"


            def test_line_without_newline_is_unchanged():
                assert strip_newline("hello") == "hello"


            def test_empty_line():
                assert strip_newline("") == ""
            """,
        },
        failing={
            "tests/test_endings.py::test_trailing_newline_is_removed",
            "tests/test_endings.py::test_only_one_newline_is_removed",
        },
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["        return line[1:]"]
    assert added == ["        return line[:-1]"]


def test_off_by_one_slice_bound(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "league/__init__.py": "",
            "league/table.py": '''
            """League tables."""


            def top_scores(scores: list[int], n: int) -> list[int]:
                """The `n` highest scores, highest first."""
                return sorted(scores, reverse=True)[:n - 1]
            ''',
            "tests/test_table.py": """
            from league.table import top_scores


            def test_top_three():
                assert top_scores([10, 40, 20, 30], 3) == [40, 30, 20]


            def test_more_than_there_are():
                assert top_scores([1, 2], 5) == [2, 1]


            def test_none_asked_for():
                assert top_scores([1, 2], 0) == []
            """,
        },
        failing={"tests/test_table.py::test_top_three", "tests/test_table.py::test_none_asked_for"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    return sorted(scores, reverse=True)[:n - 1]"]
    # `[:n - 0]` (constant 1 -> 0, the smallest edit) is the same fix as dropping the `- 1`.
    assert added in (
        ["    return sorted(scores, reverse=True)[:n]"],
        ["    return sorted(scores, reverse=True)[:n - 0]"],
    )


def test_return_inside_the_loop(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "shipping/__init__.py": "",
            "shipping/parcels.py": '''
            """Parcel weights."""

            from dataclasses import dataclass


            @dataclass(frozen=True)
            class Item:
                name: str
                weight_g: int


            def total_weight(items: list[Item]) -> int:
                """Total weight of the items in grams."""
                total = 0
                for item in items:
                    total += item.weight_g
                    return total
            ''',
            "tests/test_parcels.py": """
            from shipping.parcels import Item, total_weight


            def test_weights_add_up():
                assert total_weight([Item("book", 400), Item("mug", 350), Item("pen", 15)]) == 765


            def test_single_item():
                assert total_weight([Item("book", 400)]) == 400


            def test_empty_parcel_weighs_nothing():
                assert total_weight([]) == 0
            """,
        },
        failing={
            "tests/test_parcels.py::test_weights_add_up",
            "tests/test_parcels.py::test_empty_parcel_weighs_nothing",
        },
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["        return total"]
    assert added == ["    return total"]


def test_missing_none_guard(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "netconf/__init__.py": "",
            "netconf/ports.py": '''
            """Port settings."""

            from __future__ import annotations


            def parse_port(value: str | None) -> int | None:
                """The port number in `value`, or None when no port is configured."""
                port = int(value)
                if not 0 < port < 65536:
                    raise ValueError(f"port out of range: {port}")
                return port
            ''',
            "tests/test_ports.py": """
            import pytest

            from netconf.ports import parse_port


            def test_parse_port():
                assert parse_port("8080") == 8080


            def test_no_port_configured():
                assert parse_port(None) is None


            @pytest.mark.parametrize("value", ["", "0", "70000", "http"])
            def test_invalid_port(value):
                with pytest.raises(ValueError):
                    parse_port(value)
            """,
        },
        failing={"tests/test_ports.py::test_no_port_configured"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == []
    # `if not value` would also catch "" and break test_invalid_port[]: it must be `is None`.
    assert added == ["    if value is None:", "        return None"]


def test_swapped_call_arguments(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "tasks/__init__.py": "",
            "tasks/progress.py": '''
            """Progress labels."""


            def percent(part: float, whole: float) -> float:
                """`part` as a percentage of `whole`, to one decimal."""
                return round(100 * part / whole, 1)


            def progress_label(done: int, total: int) -> str:
                """"3 of 4 done" as "75.0% done"; "n/a" when there is nothing to do."""
                if total == 0:
                    return "n/a"
                share = percent(total, done)
                return f"{share}% done"
            ''',
            "tests/test_progress.py": """
            from tasks.progress import percent, progress_label


            def test_percent():
                assert percent(1, 8) == 12.5


            def test_progress_label():
                assert progress_label(1, 4) == "25.0% done"


            def test_nothing_done_yet():
                assert progress_label(0, 4) == "0.0% done"


            def test_all_done():
                assert progress_label(3, 3) == "100.0% done"


            def test_nothing_to_do():
                assert progress_label(0, 0) == "n/a"
            """,
        },
        failing={
            "tests/test_progress.py::test_progress_label",
            "tests/test_progress.py::test_nothing_done_yet",
        },
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    share = percent(total, done)"]
    assert added == ["    share = percent(done, total)"]


def test_wrong_constant(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "weather/__init__.py": "",
            "weather/units.py": '''
            """Temperature units."""


            def to_fahrenheit(celsius: float) -> float:
                return celsius * 9 / 5 + 31


            def to_celsius(fahrenheit: float) -> float:
                return (fahrenheit - 32) * 5 / 9
            ''',
            "tests/test_units.py": """
            import pytest

            from weather.units import to_celsius, to_fahrenheit


            @pytest.mark.parametrize(("c", "f"), [(0, 32), (100, 212), (-40, -40)])
            def test_to_fahrenheit(c, f):
                assert to_fahrenheit(c) == pytest.approx(f)


            def test_to_celsius():
                assert to_celsius(212) == pytest.approx(100)


            def test_a_degree_celsius_is_nine_fifths_fahrenheit():
                assert to_fahrenheit(10) - to_fahrenheit(5) == pytest.approx(9)
            """,
        },
        failing={
            "tests/test_units.py::test_to_fahrenheit[0-32]",
            "tests/test_units.py::test_to_fahrenheit[100-212]",
            "tests/test_units.py::test_to_fahrenheit[-40--40]",
        },
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    return celsius * 9 / 5 + 31"]
    assert added == ["    return celsius * 9 / 5 + 32"]


def test_bug_in_a_helper_of_another_module(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "samples/__init__.py": "",
            "samples/util.py": '''
            """Numeric helpers."""


            def mean(values: list[float]) -> float:
                return sum(values) / len(values)


            def variance(values: list[float]) -> float:
                """Population variance."""
                centre = mean(values)
                return sum((value + centre) ** 2 for value in values) / len(values)
            ''',
            "samples/report.py": '''
            """Descriptive statistics of a sample."""

            import math

            from samples.util import mean, variance


            def describe(values: list[float]) -> dict[str, float]:
                if not values:
                    raise ValueError("cannot describe an empty sample")
                return {
                    "count": len(values),
                    "mean": round(mean(values), 3),
                    "stdev": round(math.sqrt(variance(values)), 3),
                }
            ''',
            "tests/test_report.py": """
            import pytest

            from samples.report import describe


            def test_describe():
                assert describe([2, 4, 4, 4, 5, 5, 7, 9]) == {"count": 8, "mean": 5.0, "stdev": 2.0}


            def test_constant_sample_has_no_spread():
                assert describe([3, 3, 3])["stdev"] == 0.0


            def test_mean_and_count():
                result = describe([1, 2, 6])
                assert (result["count"], result["mean"]) == (3, 3.0)


            def test_empty_sample():
                with pytest.raises(ValueError):
                    describe([])
            """,
        },
        failing={
            "tests/test_report.py::test_describe",
            "tests/test_report.py::test_constant_sample_has_no_spread",
        },
    )
    assert patched_files(result.patch) == {"samples/util.py"}
    assert set(result.changes) == {"samples/util.py"}
    removed, added = diff_lines(result.patch)
    assert removed == ["    return sum((value + centre) ** 2 for value in values) / len(values)"]
    assert added == ["    return sum((value - centre) ** 2 for value in values) / len(values)"]


def test_wrong_augmented_assignment_operator(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "bank/__init__.py": "",
            "bank/ledger.py": '''
            """Account balances from a list of transactions."""


            def balance(opening: int, deposits: list[int], withdrawals: list[int]) -> int:
                """The balance after every deposit and withdrawal, in cents."""
                total = opening
                for amount in deposits:
                    total += amount
                for amount in withdrawals:
                    total += amount
                return total
            ''',
            "tests/test_ledger.py": """
            from bank.ledger import balance


            def test_deposits_only():
                assert balance(100, [50, 25], []) == 175


            def test_withdrawals_are_taken_off():
                assert balance(100, [50], [30]) == 120


            def test_withdrawals_only():
                assert balance(100, [], [40, 10]) == 50


            def test_no_transactions():
                assert balance(42, [], []) == 42
            """,
        },
        failing={
            "tests/test_ledger.py::test_withdrawals_are_taken_off",
            "tests/test_ledger.py::test_withdrawals_only",
        },
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["        total += amount"]
    assert added == ["        total -= amount"]


def test_two_bugs_in_two_functions(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "travel/__init__.py": "",
            "travel/convert.py": '''
            """Conversions for a travel planner."""

            KM_PER_MILE = 1.609344


            def celsius_to_fahrenheit(celsius: float) -> float:
                return celsius * 9 / 5 - 32


            def km_to_miles(km: float) -> float:
                return round(km * KM_PER_MILE, 3)


            def miles_to_km(miles: float) -> float:
                return round(miles * KM_PER_MILE, 3)
            ''',
            "tests/test_convert.py": """
            import pytest

            from travel.convert import celsius_to_fahrenheit, km_to_miles, miles_to_km


            def test_celsius_to_fahrenheit():
                assert celsius_to_fahrenheit(100) == pytest.approx(212)


            def test_km_to_miles():
                assert km_to_miles(42.195) == 26.219


            def test_miles_to_km():
                assert miles_to_km(26.219) == 42.195


            def test_zero_km():
                assert km_to_miles(0) == 0
            """,
        },
        failing={
            "tests/test_convert.py::test_celsius_to_fahrenheit",
            "tests/test_convert.py::test_km_to_miles",
        },
    )
    assert len(result.fixes) == 2  # one fix per round
    assert result.iterations == 2
    removed, added = diff_lines(result.patch)
    assert sorted(removed) == [
        "    return celsius * 9 / 5 - 32",
        "    return round(km * KM_PER_MILE, 3)",
    ]
    assert sorted(added) == [
        "    return celsius * 9 / 5 + 32",
        "    return round(km / KM_PER_MILE, 3)",
    ]


def test_overwrite_instead_of_accumulate(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "orders/__init__.py": "",
            "orders/totals.py": '''
            """Order totals per customer."""


            def totals(orders: list[tuple[str, int]]) -> dict[str, int]:
                """Sum of the amounts of each customer's orders, in cents."""
                result: dict[str, int] = {}
                for customer, amount in orders:
                    result.setdefault(customer, 0)
                    result[customer] = amount
                return result
            ''',
            "tests/test_totals.py": """
            from orders.totals import totals


            def test_one_order_each():
                assert totals([("ann", 5), ("bob", 7)]) == {"ann": 5, "bob": 7}


            def test_orders_of_a_customer_add_up():
                assert totals([("ann", 5), ("bob", 7), ("ann", 10)]) == {"ann": 15, "bob": 7}


            def test_no_orders():
                assert totals([]) == {}
            """,
        },
        failing={"tests/test_totals.py::test_orders_of_a_customer_add_up"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["        result[customer] = amount"]
    assert added == ["        result[customer] += amount"]


def test_two_lines_with_swapped_signs(make_repo, run_heal, tmp_path):
    """Each line alone, fixed, breaks the conservation test: only the pair passes everything."""
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "stock/__init__.py": "",
            "stock/depots.py": '''
            """Stock levels of an item across depots."""


            class Depots:
                def __init__(self, levels: dict[str, int]) -> None:
                    self.levels = dict(levels)

                def total(self) -> int:
                    return sum(self.levels.values())

                def receive(self, depot: str, count: int) -> None:
                    self.levels[depot] += count

                def move(self, origin: str, destination: str, count: int) -> None:
                    """Take `count` items out of `origin` and put them into `destination`."""
                    if count > self.levels[origin]:
                        raise ValueError("not enough stock")
                    self.levels[origin] += count
                    self.levels[destination] -= count
            ''',
            "tests/test_depots.py": """
            import pytest

            from stock.depots import Depots


            def test_move_takes_from_origin_and_adds_to_destination():
                depots = Depots({"north": 10, "south": 2})
                depots.move("north", "south", 4)
                assert depots.levels == {"north": 6, "south": 6}


            def test_moves_keep_the_total():
                depots = Depots({"north": 10, "south": 2})
                depots.move("north", "south", 3)
                assert depots.total() == 12


            def test_cannot_move_more_than_there_is():
                depots = Depots({"north": 1, "south": 0})
                with pytest.raises(ValueError):
                    depots.move("north", "south", 2)


            def test_receive():
                depots = Depots({"north": 1})
                depots.receive("north", 2)
                assert depots.levels == {"north": 3}
            """,
        },
        failing={"tests/test_depots.py::test_move_takes_from_origin_and_adds_to_destination"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["        self.levels[origin] += count", "        self.levels[destination] -= count"]
    assert added == ["        self.levels[origin] -= count", "        self.levels[destination] += count"]
