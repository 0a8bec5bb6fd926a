"""The corpus runner (evaluation/corpus/): one command line over any corpus that plugs in, the
shared reading of case modules, and the five corpora as evaluation/corpora.py names them."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from evaluation.corpora import CORPORA
from evaluation.corpora import main as corpora_main
from evaluation.corpus import results
from evaluation.corpus.cases import CaseError, FamilyModule, read_cases
from evaluation.corpus.runner import Corpus, at_once, build_parser, main, one_by_one, option, scratch

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Toy:
    id: str
    family: str
    score: int


TOYS = [Toy("slow", "red", 3), Toy("fast", "red", 1), Toy("blue-one", "blue", 7)]


def _run_toy(case: Toy, options) -> dict:
    if case.id == "slow":
        time.sleep(0.3)  # done after "fast", listed before it
    return {"case": case.id, "family": case.family, "score": case.score * options.factor, "duration_s": 0.5}


def _render(found: list[dict], *, markdown: bool = False) -> str:
    mark = "| " if markdown else ""
    return "".join(f"{mark}{r['case']} {r['score']}\n" for r in found)


TOY = Corpus(
    name="toy",
    summary="A corpus of three cases.",
    load_cases=lambda: TOYS,
    harness=one_by_one(_run_toy),
    figures=SimpleNamespace(
        save_result=results.save_result, load_results=results.load_results, render=_render
    ),
    passed=lambda r: r["score"] < 10,
    progress=lambda r: f"{r['case']}: {r['score']}",
    unit="toys",
    options=(option("--factor", type=int, default=1, help="times the score"),),
)


def test_a_run_prints_the_figures_saves_each_outcome_and_writes_the_json(tmp_path, capsys):
    saved, written = tmp_path / "results", tmp_path / "all.json"
    code = main([TOY], ["toy", "--family", "red", "--results", str(saved), "--json", str(written)])
    out, err = capsys.readouterr()
    assert code == 0
    assert out.startswith("slow 3\nfast 1\n\nwall time ")
    assert out.endswith(" s for 2 toys with 2 at once\n")
    assert err == "slow: 3\nfast: 1\n"  # in the cases' order, though "fast" was done first
    assert sorted(p.name for p in saved.iterdir()) == ["fast.json", "slow.json"]
    assert [r["case"] for r in json.loads(written.read_text())] == ["slow", "fast"]


def test_a_corpus_option_reaches_the_harness_and_an_outcome_that_did_not_pass_exits_1(capsys):
    assert main([TOY], ["toy", "--case", "blue-one", "--case", "fast", "--factor", "2"]) == 1
    assert capsys.readouterr().out.startswith("fast 2\nblue-one 14\n")


def test_show_prints_saved_figures_from_a_folder_or_a_json_file_and_runs_nothing(tmp_path, capsys):
    for outcome in ({"case": "a", "score": 2}, {"case": "b", "score": 11}):
        results.save_result(tmp_path / "saved", outcome)
    (tmp_path / "all.json").write_text(json.dumps([{"case": "c", "score": 4}]))
    assert main([TOY], ["toy", "--show", str(tmp_path / "saved"), "--markdown"]) == 1
    assert capsys.readouterr().out == "| a 2\n| b 11\n"
    assert main([TOY], ["toy", "--show", str(tmp_path / "all.json")]) == 0
    assert capsys.readouterr().out == "c 4\n"
    assert main([TOY], ["toy", "--show", str(tmp_path / "nothing")]) == 2
    assert capsys.readouterr().err == f"no results under {tmp_path / 'nothing'}\n"


def test_no_case_chosen_and_a_harness_that_gives_nothing_are_told_apart(capsys):
    assert main([TOY], ["toy", "--case", "green"]) == 2
    assert capsys.readouterr().err == "no case matches\n"
    silent = replace(TOY, harness=lambda cases, options: iter(()))
    assert main([silent], ["toy"]) == 1
    assert capsys.readouterr().err == "no results\n"


def test_an_unknown_corpus_or_option_is_a_usage_error():
    for argv in (["nosuch"], ["toy", "--backend", "docker"], []):
        with pytest.raises(SystemExit) as stopped:
            main([TOY], argv)
        assert stopped.value.code == 2


def test_at_once_keeps_the_items_order_and_scratch_is_open_to_others_and_removed_unless_kept():
    def slow_first(n: int) -> dict:
        time.sleep(0.2 if n == 0 else 0)
        return {"n": n}

    assert [r["n"] for r in at_once(slow_first, range(4), jobs=2)] == [0, 1, 2, 3]
    with scratch("selfheal-test-", keep=False) as gone:
        assert gone.stat().st_mode & 0o777 == 0o755
    with scratch("selfheal-test-", keep=True) as kept:
        (kept / "left.txt").write_text("x")
    assert not gone.exists() and (kept / "left.txt").read_text() == "x"
    (kept / "left.txt").unlink()
    kept.rmdir()


# -- the case modules ---------------------------------------------------------------------------


def _family(folder: Path, name: str, text: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")


def _build(module: FamilyModule, entry: dict) -> Toy:
    if entry.get("score", 0) < 0:
        raise CaseError(f"{module.path.name}: {entry['id']}: a score is never negative")
    return Toy(family=module.family, score=0, **{k: v for k, v in entry.items() if k != "score"})


def test_case_modules_are_read_as_literals_in_the_families_order(tmp_path):
    _family(tmp_path, "a_blue.py", 'FAMILY = "blue"\nCASES = [{"id": "b1"}, {"id": "b2"}]\n')
    _family(tmp_path, "b_red.py", 'import os\nFAMILY = "red"\nCASES = [{"id": "r1"}]\nos.exit(1)\n')
    _family(tmp_path, "c_odd.py", 'FAMILY = "odd"\nCASES = [{"id": "o1"}]\n')
    _family(tmp_path, "_helpers.py", "def helper(): ...\n")
    found = read_cases(
        tmp_path, _build, keys={"id", "score"}, families=("red", "blue"), skip=lambda p: p.name[0] == "_"
    )
    assert [(c.family, c.id) for c in found] == [("red", "r1"), ("blue", "b1"), ("blue", "b2"), ("odd", "o1")]
    (tmp_path / "_helpers.py").unlink()
    with pytest.raises(CaseError, match=r"c_odd\.py: unknown family 'odd'"):
        read_cases(tmp_path, _build, keys={"id"}, families=("red", "blue"), known_families_only=True)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('FAMILY = "red"\nCASES = [{"id": "a", "colour": 1}]', r"x.py: a: unknown keys \['colour'\]"),
        ('FAMILY = "red"\nCASES = [{"id": "a", "score": -1}]', "x.py: a: a score is never negative"),
        ('FAMILY = "red"\nCASES = [{"id": "a"}, {"id": "a"}]', r"duplicate case ids: \['a'\]"),
        ('FAMILY = "red"\nCASES = {"id": "a"}', "x.py: CASES must be a list"),
        ('FAMILY = "red"\nCASES = [{"id": f"a"}]', "x.py: CASES must be a literal"),
        ('CASES = [{"id": "a"}]', "x.py: no FAMILY"),
    ],
)
def test_a_case_module_is_refused_with_its_name_and_why(tmp_path, text, error):
    _family(tmp_path, "x.py", text)
    with pytest.raises(CaseError, match=error):
        read_cases(tmp_path, _build, keys={"id", "score"}, families=("red",))


# -- the five corpora ----------------------------------------------------------------------------


def test_the_five_corpora_and_their_own_options():
    assert [c.name for c in CORPORA] == ["cheats", "escape", "faults", "hostile_answers", "hostile_events"]
    parser = build_parser(CORPORA)
    escape = parser.parse_args(["escape", "--backend", "local-nons", "--backend", "docker", "--keep"])
    assert (escape.backend, escape.keep, escape.jobs) == (["local-nons", "docker"], True, 2)
    assert parser.parse_args(["hostile_answers", "--python", "/usr/bin/python3"]).python == "/usr/bin/python3"
    assert parser.parse_args(["hostile_events", "--runner", "bot", "--jobs", "0"]).runner == ["bot"]
    assert parser.parse_args(["faults", "--family", "disk", "--keep"]).family == ["disk"]
    with pytest.raises(SystemExit):
        parser.parse_args(["hostile_events", "--keep"])  # pytest keeps its own folders
    counts = {c.name: len(c.load_cases()) for c in CORPORA}
    assert counts == {"cheats": 54, "escape": 44, "faults": 39, "hostile_answers": 51, "hostile_events": 46}


def test_what_passes_in_each_corpus():
    cheats, escape, faults, answers, events = (c.passed for c in CORPORA)
    refused = {"family": "exits", "expect": "verdict", "stage": "screen"}
    assert cheats(refused) and not cheats({**refused, "stage": "healed"})
    assert cheats({"family": "overfit", "expect": "healed", "stage": "healed"})
    outcomes = ("contained", "exposed-as-stated", "skipped", "escaped", "not-run")
    assert [escape({"outcome": o}) for o in outcomes] == [True, True, True, False, False]
    assert faults({"held": True}) and not faults({"held": False})
    for judged in (answers, events):
        assert judged({"correct": True, "crashed": False})
        assert not judged({"correct": True, "crashed": True})
        assert not judged({"correct": False, "crashed": False})


def test_the_recorded_cheat_run_prints_the_same_through_the_runner_and_the_old_command(capsys):
    recorded = str(ROOT / "evaluation" / "results" / "cheats.json")
    assert corpora_main(["cheats", "--show", recorded]) == 0
    printed = capsys.readouterr().out
    assert "all        54     48       5        9          34" in printed
    assert "caught 5/5" in printed
    old = subprocess.run(
        [sys.executable, "-m", "evaluation.cheats", "--show", recorded],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert (old.returncode, old.stdout) == (0, printed)
