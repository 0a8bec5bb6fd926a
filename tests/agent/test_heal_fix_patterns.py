"""Whole heals whose fix is one of the classic fix patterns: an update modelled on a sibling
statement, an argument transformed like its sibling, a loop over a sibling attribute or over part
of its sequence, a computed value returned instead of a constant, a sub-expression removed, and an
in-place update with the other family's operator.

Each runs through the public API with the local sandbox and real pytest, checks the proof
obligations of `heal_repo`, then the concrete fix. None of these was healed by the search before
these families existed.
"""

from __future__ import annotations

import pytest

from tests.agent.test_heal_bug_shapes import heal_repo
from tests.conftest import diff_lines

pytestmark = pytest.mark.slow


def test_a_delivery_line_left_out_of_the_total_is_added_like_the_other_lines(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "checkout/__init__.py": "",
            "checkout/orders.py": '''
            """What an order costs, in cents."""

            from dataclasses import dataclass


            @dataclass
            class Line:
                name: str
                price: int
                quantity: int = 1


            def amount_due(lines: list[Line], delivery: Line) -> int:
                """Every line's price times its quantity, and the delivery line's the same way."""
                total = 0
                for line in lines:
                    total += line.price * line.quantity
                return total
            ''',
            "tests/test_orders.py": """
            from checkout.orders import Line, amount_due


            def test_collected_in_the_shop():
                assert amount_due([Line("tea", 300, 2)], Line("pickup", 0)) == 600


            def test_delivery_is_charged():
                lines = [Line("tea", 300, 2), Line("jam", 250)]
                assert amount_due(lines, Line("post", 450)) == 1300


            def test_two_parcels():
                assert amount_due([], Line("post", 450, 2)) == 900
            """,
        },
        failing={"tests/test_orders.py::test_delivery_is_charged", "tests/test_orders.py::test_two_parcels"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == []
    assert added == ["    total += delivery.price * delivery.quantity"]
    assert result.fixes[0].family == "sibling-insert"


def test_a_comparison_that_sorts_one_side_sorts_the_other_too(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "bags/__init__.py": "",
            "bags/compare.py": '''
            """Lists compared as bags: the same items as often, in any order."""


            def same_items(first: list, second: list) -> bool:
                if len(first) != len(second):
                    return False
                return all(a == b for a, b in zip(sorted(first), second))
            ''',
            "tests/test_compare.py": """
            from bags.compare import same_items


            def test_same_order():
                assert same_items([1, 2, 2], [1, 2, 2])


            def test_other_lengths():
                assert not same_items([1, 2], [1, 2, 2])


            def test_any_order():
                assert same_items([3, 1, 2], [2, 3, 1])
                assert not same_items([1, 1, 2], [2, 1, 2])
            """,
        },
        failing={"tests/test_compare.py::test_any_order"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    return all(a == b for a, b in zip(sorted(first), second))"]
    assert added == ["    return all(a == b for a, b in zip(sorted(first), sorted(second)))"]
    assert result.fixes[0].family == "sibling-argument"


def test_a_walk_of_a_folder_tree_recurses_into_the_folders_not_the_files(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "disk/__init__.py": "",
            "disk/tree.py": '''
            """A folder tree and the bytes it holds."""


            class File:
                def __init__(self, name, size):
                    self.name = name
                    self.size = size


            class Folder:
                def __init__(self, name):
                    self.name = name
                    self.files = []
                    self.folders = []

                def add(self, item):
                    (self.folders if isinstance(item, Folder) else self.files).append(item)
                    return item


            def total_size(folder: Folder) -> int:
                """Bytes of every file in the folder and in every folder under it."""
                size = sum(f.size for f in folder.files)
                for sub in folder.files:
                    size += total_size(sub)
                return size
            ''',
            "tests/test_tree.py": """
            from disk.tree import File, Folder, total_size


            def test_an_empty_folder():
                assert total_size(Folder("empty")) == 0


            def test_nested_folders():
                root = Folder("root")
                docs = root.add(Folder("docs"))
                docs.add(File("a.txt", 10))
                docs.add(Folder("old")).add(File("b.txt", 5))
                assert total_size(root) == 15
            """,
        },
        failing={"tests/test_tree.py::test_nested_folders"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    for sub in folder.files:"]
    assert added == ["    for sub in folder.folders:"]
    assert result.fixes[0].family == "iteration"


def test_gaps_between_times_start_from_the_second_time(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "timing/__init__.py": "",
            "timing/gaps.py": '''
            """Gaps between events."""


            def gaps(times: list[float]) -> list[float]:
                """The gap before each event after the first, in order."""
                result = []
                last = times[0]
                for moment in times:
                    result.append(moment - last)
                    last = moment
                return result
            ''',
            "tests/test_gaps.py": """
            from timing.gaps import gaps


            def test_one_event_has_no_gap():
                assert gaps([5.0]) == []


            def test_gaps_in_order():
                assert gaps([1.0, 4.0, 9.0]) == [3.0, 5.0]
            """,
        },
        failing={"tests/test_gaps.py::test_one_event_has_no_gap", "tests/test_gaps.py::test_gaps_in_order"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    for moment in times:"]
    assert added == ["    for moment in times[1:]:"]
    assert result.fixes[0].family == "iteration"


def test_a_lookup_that_returns_none_for_a_hit_returns_the_record(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "people/__init__.py": "",
            "people/directory.py": '''
            """A staff directory."""


            def find(staff: list, email: str):
                """The person with this e-mail address, in any case; None when nobody has it."""
                wanted = email.strip().lower()
                for person in staff:
                    if person["email"].lower() == wanted:
                        return None
                return None
            ''',
            "tests/test_directory.py": """
            from people.directory import find

            STAFF = [{"name": "Ada", "email": "ada@example.org"}, {"name": "Max", "email": "Max@example.org"}]


            def test_nobody():
                assert find(STAFF, "eve@example.org") is None


            def test_found_in_any_case():
                assert find(STAFF, " MAX@example.org")["name"] == "Max"
                assert find(STAFF, "ada@example.org")["name"] == "Ada"
            """,
        },
        failing={"tests/test_directory.py::test_found_in_any_case"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["            return None"]
    assert added == ["            return person"]
    assert result.fixes[0].family == "return-expression"


def test_a_net_price_that_adds_the_discount_back_drops_it(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "shop/__init__.py": "",
            "shop/pricing.py": '''
            """Prices after discount and tax."""


            def net_price(price: float, discount: float, tax_rate: float) -> float:
                """The price less the discount, with tax charged on what is left."""
                discounted = price - discount
                return round(discounted + discounted * tax_rate + discount, 2)
            ''',
            "tests/test_pricing.py": """
            from shop.pricing import net_price


            def test_no_discount():
                assert net_price(100.0, 0.0, 0.2) == 120.0


            def test_discount_is_taken_off():
                assert net_price(100.0, 10.0, 0.2) == 108.0
                assert net_price(50.0, 5.0, 0.0) == 45.0
            """,
        },
        failing={"tests/test_pricing.py::test_discount_is_taken_off"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    return round(discounted + discounted * tax_rate + discount, 2)"]
    assert added == ["    return round(discounted + discounted * tax_rate, 2)"]
    assert result.fixes[0].family == "subexpression-removal"


def test_flags_combined_twice_are_or_ed_not_added(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "perms/__init__.py": "",
            "perms/masks.py": '''
            """Permission bits."""

            READ, WRITE, EXECUTE = 4, 2, 1


            def combined(flags: list[int]) -> int:
                """One mask with every bit set in any of `flags`."""
                mask = 0
                for flag in flags:
                    mask += flag
                return mask
            ''',
            "tests/test_masks.py": """
            from perms.masks import EXECUTE, READ, WRITE, combined


            def test_distinct_flags():
                assert combined([READ, WRITE]) == 6
                assert combined([]) == 0


            def test_a_flag_given_twice_counts_once():
                assert combined([READ, READ]) == READ
                assert combined([READ | WRITE, WRITE, EXECUTE]) == 7
            """,
        },
        failing={"tests/test_masks.py::test_a_flag_given_twice_counts_once"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["        mask += flag"]
    assert added == ["        mask |= flag"]
    assert result.fixes[0].family == "augmented-assignment"


def test_a_road_table_records_the_way_back_too(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "roads/__init__.py": "",
            "roads/table.py": '''
            """Distances between towns."""


            def distance_table(roads: list[tuple[str, str, int]]) -> dict[str, dict[str, int]]:
                """Kilometres from each town to its neighbours; every road goes both ways."""
                table: dict[str, dict[str, int]] = {}
                for start, end, km in roads:
                    table.setdefault(start, {})[end] = km
                return table
            ''',
            "tests/test_table.py": """
            from roads.table import distance_table


            def test_no_roads():
                assert distance_table([]) == {}


            def test_a_road_goes_both_ways():
                table = distance_table([("Ayr", "Troon", 11), ("Troon", "Irvine", 9)])
                assert table["Ayr"] == {"Troon": 11}
                assert table["Troon"] == {"Ayr": 11, "Irvine": 9}
                assert table["Irvine"] == {"Troon": 9}
            """,
        },
        failing={"tests/test_table.py::test_a_road_goes_both_ways"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == []
    assert added == ["        table.setdefault(end, {})[start] = km"]
    assert result.fixes[0].family == "sibling-insert"


def test_reading_a_session_keeps_it_alive_like_writing_it(make_repo, run_heal, tmp_path):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "sessions/__init__.py": "",
            "sessions/store.py": '''
            """Sessions that expire after a while without activity."""


            class Sessions:
                def __init__(self, clock):
                    self._clock = clock
                    self._seen = {}
                    self._data = {}

                def put(self, sid, value):
                    self._data[sid] = value
                    self._seen[sid] = self._clock()

                def get(self, sid):
                    """The session's value, or None; reading a session is activity too."""
                    if sid not in self._data:
                        return None
                    return self._data[sid]

                def expire(self, idle):
                    """Forget the sessions with no activity for more than `idle` seconds."""
                    now = self._clock()
                    for sid in [s for s, seen in self._seen.items() if now - seen > idle]:
                        del self._data[sid]
                        del self._seen[sid]
            ''',
            "tests/test_store.py": """
            from sessions.store import Sessions


            class Clock:
                def __init__(self):
                    self.now = 0

                def __call__(self):
                    return self.now


            def test_an_idle_session_expires():
                clock = Clock()
                store = Sessions(clock)
                store.put("s1", "ada")
                clock.now = 10
                store.expire(idle=8)
                assert store.get("s1") is None


            def test_a_read_is_activity():
                clock = Clock()
                store = Sessions(clock)
                store.put("s1", "ada")
                clock.now = 5
                assert store.get("s1") == "ada"
                clock.now = 10
                store.expire(idle=8)
                assert store.get("s1") == "ada"
            """,
        },
        failing={"tests/test_store.py::test_a_read_is_activity"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == []
    assert added == ["        self._seen[sid] = self._clock()"]
    assert result.fixes[0].family == "sibling-insert"
