"""The embedded edge-case generator on real local sandboxes.

The bundled examples with their known fixes (the ones test_heal_examples expects), and small
synthetic modules: docstring examples, a method in a src layout, a base that hangs, a function
that mutates its argument, randomness, a declared exception, a crash the fix leaves open. Every
generated file is rendered and run with pytest: green on the patched code, and each pinned test
red on the base code.
"""

from __future__ import annotations

import os
import py_compile
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from selfheal.agent.newtests.cases import TestFile, check_case_code
from selfheal.agent.newtests.edgecases.generate import EdgeCaseResult, generate_edge_cases
from selfheal.agent.newtests.edgecases.harvest import harvest
from selfheal.agent.newtests.edgecases.modules import import_lines, module_of
from selfheal.agent.newtests.edgecases.runner import CRASHED, TIMEOUT, VALUE, ProbeJob, run_probes
from selfheal.agent.newtests.edgecases.target import Example, docstring_examples, find_function
from selfheal.agent.newtests.edgecases.values import label_of
from selfheal.sandbox import LocalSandbox
from tests.conftest import EXAMPLES, write_tree

GENERATED = "tests/test_selfheal_generated.py"
PINNED = "    # expected: what the patched code returns (pins the behaviour the fix changed)\n"


@dataclass(frozen=True)
class Scenario:
    path: str
    function: str
    old: str  # the fix: `old` in the base text becomes `new`
    new: str
    files: dict[str, str] = field(default_factory=dict)  # synthetic repos; examples are copied
    example: str | None = None
    base_hangs: bool = False  # the pinned tests cannot be run on the base code


SCENARIOS = {
    "intervals": Scenario(
        "intervals/core.py",
        "merge",
        "if merged and current.start < merged[-1].end:",
        "if merged and current.start <= merged[-1].end:",
        example="intervals",
    ),
    "pricing": Scenario(
        "pricing/money.py",
        "percent_change",
        "return round(float((old - new) / old * 100), 2)",
        "return round(float((new - old) / old * 100), 2)",
        example="pricing",
    ),
    "textstats": Scenario(
        "textstats/metrics.py",
        "average_word_length",
        "    found = words(text)\n    return round(sum(len(word) for word in found) / len(found), 2)",
        "    found = words(text)\n    if not found:\n        return 0.0\n"
        "    return round(sum(len(word) for word in found) / len(found), 2)",
        example="textstats",
    ),
    "initials": Scenario(
        "names/initials.py",
        "initials",
        'name.split(" ")',
        "name.split()",
        {
            "names/__init__.py": "",
            "names/initials.py": '''
                def initials(name: str) -> str:
                    """Upper-case initials of a name.

                    >>> initials("ada lovelace")
                    'AL'
                    >>> initials("grace  hopper")
                    'GH'
                    """
                    return "".join(part[0] for part in name.split(" ")).upper()
                ''',
            "tests/test_initials.py": """
                from names.initials import initials


                def test_initials():
                    assert initials("Ada Lovelace") == "AL"
                """,
        },
    ),
    "stack": Scenario(
        "src/shelf/stack.py",
        "Stack.peek",
        "return self.items[-1]",
        "return self.items[-1] if self.items else None",
        {
            "src/shelf/__init__.py": "",
            "src/shelf/stack.py": '''
                class Stack:
                    def __init__(self, items: list[int] | None = None) -> None:
                        self.items = list(items or [])

                    def push(self, item: int) -> None:
                        self.items.append(item)

                    def peek(self) -> int | None:
                        """The top item, or None when the stack is empty."""
                        return self.items[-1]
                ''',
            "tests/test_stack.py": """
                from shelf.stack import Stack


                def test_peek():
                    stack = Stack([1, 2])
                    assert stack.peek() == 2
                """,
        },
    ),
    "halvings": Scenario(
        "steps.py",
        "halvings",
        "while n != 1:",
        "while n > 1:",
        {
            "steps.py": '''
                def halvings(n: int) -> int:
                    """How many times n can be halved before it reaches 1 or less."""
                    count = 0
                    while n != 1:
                        n //= 2
                        count += 1
                    return count
                ''',
            "tests/test_steps.py": """
                from steps import halvings


                def test_halvings():
                    assert halvings(8) == 3
                """,
        },
        base_hangs=True,
    ),
    "drain": Scenario(
        "bag.py",
        "drain",
        "while len(items) > 1:",
        "while items:",
        {
            "bag.py": '''
                def drain(items: list[int]) -> int:
                    """Empty `items`, returning the sum of what it held."""
                    total = 0
                    while len(items) > 1:
                        total += items.pop()
                    return total
                ''',
            "tests/test_bag.py": """
                from bag import drain


                def test_drain_empties_the_list():
                    items = [1, 2, 3]
                    drain(items)
                    assert items == []
                """,
        },
    ),
    "roll": Scenario(
        "dice.py",
        "roll",
        "random.randint(1, sides)",
        "random.randint(1, max(sides, 1))",
        {
            "dice.py": '''
                import random


                def roll(sides: int) -> int:
                    """A fair roll of a die with `sides` sides (at least one)."""
                    return random.randint(1, sides)
                ''',
            "tests/test_dice.py": """
                from dice import roll


                def test_roll_is_on_the_die():
                    assert 1 <= roll(6) <= 6
                """,
        },
    ),
    "port": Scenario(
        "net/ports.py",
        "parse_port",
        "if port < 0 or port > 65535:",
        "if port < 1 or port > 65535:",
        {
            "net/__init__.py": "",
            "net/ports.py": '''
                def parse_port(text: str) -> int:
                    """The TCP port number written in `text`."""
                    port = int(text)
                    if port < 0 or port > 65535:
                        raise ValueError(f"not a port: {text}")
                    return port
                ''',
            "tests/test_ports.py": """
                from net.ports import parse_port


                def test_parse_port():
                    assert parse_port("8080") == 8080
                """,
        },
    ),
    "mean": Scenario(
        "stats.py",
        "mean",
        "sum(values) / (len(values) - 1)",
        "sum(values) / len(values)",
        {
            "stats.py": '''
                def mean(values: list[float]) -> float:
                    """The arithmetic mean of `values`.

                    >>> mean([1.0, 2.0, 6.0])
                    3.0
                    """
                    return sum(values) / (len(values) - 1)
                ''',
            "tests/test_stats.py": """
                from stats import mean


                def test_mean_of_one_value():
                    assert mean([4.0]) == 4.0
                """,
        },
    ),
}


@dataclass(frozen=True)
class Generated:
    scenario: Scenario
    repo: Path
    base: str
    patched: str
    result: EdgeCaseResult
    before: dict[str, bytes]  # every file of the workspace, before and after generating
    after: dict[str, bytes]


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def make_repo(scenario: Scenario, root: Path) -> Path:
    if scenario.example:
        shutil.copytree(
            EXAMPLES / scenario.example, root, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache")
        )
    else:
        root.mkdir(parents=True)
        write_tree(root, scenario.files)
    return root


def generate(scenario: Scenario, root: Path) -> Generated:
    repo = make_repo(scenario, root)
    base = (repo / scenario.path).read_text(encoding="utf-8")
    assert base.count(scenario.old) == 1
    patched = base.replace(scenario.old, scenario.new)
    tests = {str(p.relative_to(repo)): p.read_text() for p in sorted((repo / "tests").glob("test_*.py"))}
    with LocalSandbox().start(repo) as session:
        before = snapshot(repo)
        result = generate_edge_cases(
            session,
            sys.executable,
            path=scenario.path,
            function=scenario.function,
            base_text=base,
            patched_text=patched,
            existing_tests=tests,
        )
        after = snapshot(repo)
    return Generated(scenario, repo, base, patched, result, before, after)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """Each scenario generated once per module run (generation takes a second or two)."""
    cache: dict[str, Generated] = {}

    def get(name: str) -> Generated:
        if name not in cache:
            cache[name] = generate(SCENARIOS[name], tmp_path_factory.mktemp(name) / name)
        return cache[name]

    return get


def run_generated(item: Generated, text: str) -> dict[str, str]:
    """The rendered test file run with pytest while the changed file holds `text`: name -> outcome."""
    repo, target = item.repo, item.repo / item.scenario.path
    target.write_text(text, encoding="utf-8")
    (repo / GENERATED).write_text(TestFile(GENERATED, item.result.cases, "generated").render())
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", GENERATED],
            cwd=repo,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
            env={
                "PATH": "/usr/bin:/bin",
                "PYTHONPATH": os.pathsep.join([str(repo), str(repo / "src")]),
                "PYTHONDONTWRITEBYTECODE": "1",
            },
        )
    finally:
        target.write_text(item.base, encoding="utf-8")
        (repo / GENERATED).unlink()
    found = re.findall(r"^(PASSED|FAILED|ERROR) \S+::(test_\w+)", done.stdout, re.MULTILINE)
    return {name: outcome for outcome, name in found}


def names(item: Generated) -> list[str]:
    return [case.name for case in item.result.cases]


def code(item: Generated, name: str) -> str:
    return next(case.code for case in item.result.cases if case.name == name)


# -- every scenario: valid cases, green on the patch, red on the base, workspace untouched -----


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_generated_tests_pass_on_the_patch_and_pinned_ones_fail_on_the_base(name, generated):
    item = generated(name)
    cases = item.result.cases
    assert cases, item.result.notes
    assert len({c.name for c in cases}) == len(cases)
    for case in cases:
        assert check_case_code(case) is None
        assert case.origin == "embedded"
        assert case.target == f"{item.scenario.path}::{item.scenario.function}"
        assert case.reason == "docstring example" or case.reason.startswith("behaviour the fix changed: ")
    on_patch = run_generated(item, item.patched)
    assert on_patch == {c.name: "PASSED" for c in cases}
    if not item.scenario.base_hangs:
        on_base = run_generated(item, item.base)
        pinned = [c.name for c in cases if c.reason != "docstring example"]
        assert {n: on_base[n] for n in pinned} == {n: "FAILED" for n in pinned}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_workspace_is_left_exactly_as_it_was(name, generated):
    item = generated(name)
    assert item.after == item.before
    assert item.result.probes > 0


# -- what each scenario produced ------------------------------------------------------------------


def test_intervals_pins_touching_intervals_merging(generated):
    item = generated("intervals")
    assert names(item) == [
        "test_merge_duplicate_intervals",
        "test_merge_two_intervals",
        "test_merge_three_intervals",
        "test_merge_two_intervals_2",
        "test_merge_three_intervals_2",
    ]
    assert code(item, "test_merge_duplicate_intervals") == (
        "def test_merge_duplicate_intervals():\n"
        + PINNED
        + "    assert merge([Interval(2, 2), Interval(2, 2)]) == [Interval(start=2, end=2)]\n"
    )
    assert item.result.cases[0].imports == ("from intervals import Interval", "from intervals import merge")
    assert item.result.cases[0].reason == "behaviour the fix changed: merge([Interval(2, 2), Interval(2, 2)])"
    assert item.result.risks == ()
    # never the existing tests' own calls again
    assert all("merge([Interval(1, 3), Interval(3, 5)])" not in c.code for c in item.result.cases)


def test_pricing_pins_the_sign_of_the_change(generated):
    item = generated("pricing")
    assert len(item.result.cases) == 5
    assert code(item, "test_percent_change_new_zero_decimal") == (
        "def test_percent_change_new_zero_decimal():\n"
        + PINNED
        + "    assert percent_change(Decimal('50'), Decimal('0')) == -100.0\n"
    )
    assert item.result.cases[0].imports == (
        "from decimal import Decimal",
        "from pricing import percent_change",
    )
    assert item.result.risks == ()


def test_textstats_pins_zero_for_text_without_words(generated):
    item = generated("textstats")
    assert names(item) == [
        "test_average_word_length_empty_str",
        "test_average_word_length_whitespace_str",
        "test_average_word_length_punctuation_str",
        "test_average_word_length_punctuation_str_2",
    ]
    assert code(item, "test_average_word_length_empty_str") == (
        "def test_average_word_length_empty_str():\n" + PINNED + "    assert average_word_length('') == 0.0\n"
    )
    assert item.result.cases[0].imports == ("from textstats import average_word_length",)


def test_docstring_examples_become_tests_with_the_docstring_as_oracle(generated):
    item = generated("initials")
    assert names(item)[-2:] == ["test_initials_example", "test_initials_example_2"]
    assert code(item, "test_initials_example_2") == (
        "def test_initials_example_2():\n"
        "    # an example from the docstring of initials\n"
        "    assert initials(\"grace  hopper\") == 'GH'\n"
    )
    assert [c.reason for c in item.result.cases][-2:] == ["docstring example", "docstring example"]
    assert "test_initials_empty_str" in names(item)
    # the second example fails on the base code: it ships as fail-to-pass, the first as a guard
    on_base = run_generated(item, item.base)
    assert (on_base["test_initials_example"], on_base["test_initials_example_2"]) == ("PASSED", "FAILED")


def test_a_method_in_a_src_layout(generated):
    item = generated("stack")
    assert names(item) == [
        "test_stack_peek_default_stack",
        "test_stack_peek_stack_with_empty_list",
        "test_stack_peek_stack_with_none",
    ]
    assert code(item, "test_stack_peek_default_stack") == (
        "def test_stack_peek_default_stack():\n" + PINNED + "    assert Stack().peek() is None\n"
    )
    assert item.result.cases[0].imports == ("from shelf.stack import Stack",)


def test_inputs_the_base_code_hangs_on_are_pinned_to_the_patched_result(generated):
    item = generated("halvings")
    assert names(item) == ["test_halvings_zero", "test_halvings_negative_int", "test_halvings_negative_int_2"]
    assert code(item, "test_halvings_zero").endswith("    assert halvings(0) == 0\n")
    assert item.result.duration_s < 30


def test_every_call_gets_a_fresh_copy_of_its_arguments(generated):
    # drain() empties its argument: with shared inputs the second call would see [] and the
    # input would be dropped as unstable
    item = generated("drain")
    assert names(item)[0] == "test_drain_single_int"
    assert code(item, "test_drain_single_int").endswith("    assert drain([2]) == 2\n")


def test_results_that_change_from_call_to_call_are_not_pinned(generated):
    item = generated("roll")
    bodies = [c.code.splitlines()[-1] for c in item.result.cases]
    assert bodies  # sides <= 0: the patched code always rolls 1
    assert all(body.endswith(") == 1") for body in bodies), bodies


def test_a_declared_exception_is_pinned_with_pytest_raises(generated):
    item = generated("port")
    raising = [c for c in item.result.cases if "pytest.raises" in c.code]
    assert [c.name for c in raising] == ["test_parse_port_digit_str"]
    assert raising[0].code == (
        "def test_parse_port_digit_str():\n"
        "    # expected: the patched code raises ValueError here (pins the behaviour the fix changed)\n"
        "    with pytest.raises(ValueError):\n"
        "        parse_port('0')\n"
    )
    assert raising[0].imports == ("from net.ports import parse_port", "import pytest")
    assert item.result.risks == ()


def test_a_crash_the_fix_leaves_is_an_open_risk_not_a_test(generated):
    item = generated("mean")
    assert item.result.risks == ("`mean([])` raises ZeroDivisionError on the patched code",)
    assert all("mean([])" not in c.code for c in item.result.cases)
    assert "test_mean_example" in names(item)


def test_the_same_input_gives_the_same_tests(generated, tmp_path):
    first = generated("intervals").result
    again = generate(SCENARIOS["intervals"], tmp_path / "intervals").result
    assert (again.cases, again.risks, again.probes) == (first.cases, first.risks, first.probes)


def test_a_function_that_is_not_there_gives_a_note(tmp_path):
    write_tree(tmp_path, {"calc.py": "def double(x):\n    return 2 * x\n"})
    with LocalSandbox().start(tmp_path) as session:
        result = generate_edge_cases(
            session,
            sys.executable,
            path="calc.py",
            function="triple",
            base_text="def double(x):\n    return 2 * x\n",
            patched_text="def double(x):\n    return 2 * x\n",
            existing_tests={},
        )
    assert (result.cases, result.risks, result.probes) == ((), (), 0)
    assert result.notes == ("triple is not a function or a method of a top-level class in calc.py",)


# -- the probe runner ---------------------------------------------------------------------------


def test_a_hang_in_c_code_and_a_hard_crash_cost_only_their_own_input(tmp_path):
    write_tree(
        tmp_path,
        {
            "slow.py": """
                import os


                def work(n):
                    if n == -1:
                        os._exit(3)
                    return sum(range(n))  # C code: no signal can stop it
                """
        },
    )
    inputs = [3, 10**13, 4, -1, 5]
    probes = tuple(
        {"id": i, "text": f"work({n})", "receiver": None, "call": True, "args": [str(n)], "kwargs": []}
        for i, n in enumerate(inputs)
    )
    job = ProbeJob(
        targets=("from slow import work",),
        bind="work",
        member=None,
        file="slow.py",
        known_names={},
        modules=("slow",),
        probes=probes,
        call_timeout=0.3,
    )
    with LocalSandbox().start(tmp_path) as session:
        run = run_probes(session, sys.executable, job, timeout=60, hash_seed=0)
    assert [run.outcomes[i].kind for i in range(5)] == [VALUE, TIMEOUT, VALUE, CRASHED, VALUE]
    assert [run.outcomes[i].text for i in (0, 2, 4)] == ["3", "6", "10"]
    assert run.outcomes[0].imports == ("from slow import work",)
    assert (run.target, run.runs) == ("from slow import work", 3)


def test_a_compiled_cache_beside_the_workspace_code_is_never_taken_for_its_text(tmp_path):
    """The other version of a file, compiled beside it with the same size and modification second
    (what Python checks), must not be what the probe calls."""
    before, now = "def answer():\n    return 2\n", "def answer():\n    return 1\n"
    assert len(before) == len(now)
    stale = tmp_path / "stale"
    write_tree(stale, {"calc.py": before})
    compiled = Path(py_compile.compile(str(stale / "calc.py"), doraise=True))
    job = ProbeJob(
        targets=("from calc import answer",),
        bind="answer",
        member=None,
        file="calc.py",
        known_names={},
        modules=("calc",),
        probes=({"id": 0, "text": "answer()", "receiver": None, "call": True, "args": [], "kwargs": []},),
    )
    repo = tmp_path / "repo"
    write_tree(repo, {"calc.py": now})
    with LocalSandbox().start(repo) as session:
        session.write_file(f"__pycache__/{compiled.name}", compiled.read_bytes())
        written = os.stat(stale / "calc.py")
        os.utime(session.root / "calc.py", ns=(written.st_atime_ns, written.st_mtime_ns))
        run = run_probes(session, sys.executable, job, timeout=60, hash_seed=0)
    assert (run.target, run.outcomes[0].kind, run.outcomes[0].text) == ("from calc import answer", VALUE, "1")


# -- reading the code and the tests -------------------------------------------------------------


def test_import_paths():
    assert module_of("src/pkg/core.py", ("src",)) == "pkg.core"
    assert module_of("pkg/__init__.py") == "pkg"
    assert module_of("calc.py") == "calc"
    assert import_lines("merge", ["intervals"], "intervals.core", "intervals.core") == (
        "from intervals import merge",
        "from intervals.core import merge",
    )


@pytest.mark.parametrize(
    ("source", "label"),
    [
        ("[]", "empty_list"),
        ("-1", "negative_int"),
        ("0", "zero"),
        ("1000000000", "large_int"),
        ("''", "empty_str"),
        ("'ünïcödé ✓'", "unicode_str"),
        ("'ab' * 200", "long_str"),
        ("None", "none"),
        ("[Interval(1, 2), Interval(2, 3)]", "two_intervals"),
        ("[Interval(2, 2), Interval(2, 2)]", "duplicate_intervals"),
        ("Decimal('0')", "zero_decimal"),
        ("Decimal('-12.5')", "negative_decimal"),
        ("Stack()", "default_stack"),
        ("Stack([])", "stack_with_empty_list"),
    ],
)
def test_labels_describe_the_input(source, label):
    assert label_of(source) == label


def test_docstring_examples_and_inline_claims():
    money = (EXAMPLES / "pricing" / "pricing" / "money.py").read_text()
    info = find_function(money, "percent_of")
    assert info is not None
    assert docstring_examples(info) == [Example("percent_of(80, 25)", want="20.00")]
    text = textwrap.dedent(SCENARIOS["initials"].files["names/initials.py"])
    assert docstring_examples(find_function(text, "initials")) == [
        Example('initials("ada lovelace")', want="'AL'"),
        Example('initials("grace  hopper")', want="'GH'"),
    ]


def test_harvest_reads_parametrize_rows_and_expected_exceptions():
    tests = {"tests/test_query.py": (EXAMPLES / "intervals" / "tests" / "test_query.py").read_text()}
    query = (EXAMPLES / "intervals" / "intervals" / "query.py").read_text()
    evidence = harvest(tests, find_function(query, "overlaps"))
    assert [tuple(v.source for _, v in call.values) for call in evidence.calls] == [
        ("Interval(1, 3)", "Interval(3, 5)"),
        ("Interval(1, 2)", "Interval(4, 5)"),
        ("Interval(1, 9)", "Interval(2, 3)"),
    ]
    assert evidence.calls[0].values[0][1].imports == ("from intervals import Interval",)
    assert evidence.bind_modules == ("intervals",)
    core = (EXAMPLES / "intervals" / "intervals" / "core.py").read_text()
    parse = harvest(tests, find_function(core, "Interval.parse"))
    assert [(call.values[0][1].source, call.expects) for call in parse.calls] == [
        ("'7-3'", "ValueError"),
        ("'3-7'", None),
    ]
    assert parse.expected == frozenset({"ValueError"})
