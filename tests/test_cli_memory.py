"""`selfheal memory list|show|forget|export` on a repository's local store."""

from __future__ import annotations

import json
import shutil

from selfheal.agent.report.memory import LocalMemory
from selfheal.cli import main
from tests.agent.report.test_memory import record
from tests.conftest import EXAMPLES


def test_list_show_forget_export(tmp_path, capsys):
    store = LocalMemory.of_repo(tmp_path)
    store.append(record("aaa111", "2026-01-01T00:00:00Z"))
    store.append(record("bbb222", "2026-01-02T00:00:00Z", recalled=("aaa111",)))

    assert main(["memory", "list", "--repo", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["aaa111", "bbb222"]
    assert lines[0].endswith("clamp (pkg/a.py)  (recalled 1x)")
    assert "builtin-swap" in lines[0] and "AssertionError" in lines[0]

    assert main(["memory", "show", "bbb", "--repo", str(tmp_path)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["id"] == "bbb222" and shown["recalled"] == ["aaa111"]

    assert main(["memory", "export", "--file", str(store.path)]) == 0
    exported = capsys.readouterr().out
    assert [json.loads(line)["id"] for line in exported.splitlines()] == ["aaa111", "bbb222"]

    assert main(["memory", "forget", "aaa111", "--repo", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "forgot aaa111\n"
    assert [r.id for r in store.records()] == ["bbb222"]
    assert main(["memory", "forget", "nope", "--repo", str(tmp_path)]) == 1
    assert "no single record 'nope'" in capsys.readouterr().err
    assert main(["memory", "show", "--repo", str(tmp_path)]) == 2


def test_after_the_quick_start_the_memory_is_where_the_user_looks(tmp_path, capsys, monkeypatch):
    # the README's first command, from a clone's root: `selfheal heal examples/intervals`
    root = tmp_path / "clone"
    example = root / "examples" / "intervals"
    shutil.copytree(
        EXAMPLES / "intervals", example, ignore=shutil.ignore_patterns(".selfheal", "__pycache__")
    )
    monkeypatch.chdir(root)

    assert main(["heal", "examples/intervals", "--sandbox", "local"]) == 0
    [run] = list((root / ".selfheal" / "runs").iterdir())
    err = capsys.readouterr().err
    # the new tests are named where they are: in the run's folder, until --apply writes them
    new_test = run / "tests" / "tests" / "test_selfheal_merge.py"
    assert f"new tests: 5 fail before the fix and pass with it, 0 guards: {new_test}\n" in err
    assert new_test.is_file()
    # the record is the healed repository's, and the runs' folder names that repository
    [record] = LocalMemory.of_repo(example).records()
    assert (root / ".selfheal" / "last-heal").read_text(encoding="utf-8") == f"{example}\n"
    assert not (root / ".selfheal" / "memory.jsonl").exists()

    assert main(["memory", "list"]) == 0
    out, err = capsys.readouterr()
    assert [line.split()[0] for line in out.splitlines()] == [record.id]
    assert err == f"memory of {example}, which the last heal from here healed (--repo PATH for another)\n"

    # --repo still names another
    assert main(["memory", "list", "--repo", "."]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err == "no record in .selfheal/memory.jsonl\n"


def test_without_a_heal_from_here_the_memory_is_this_folder_s(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["memory", "list"]) == 0
    assert capsys.readouterr() == ("", "no record in .selfheal/memory.jsonl\n")
    # a repository that is gone since is not read
    (tmp_path / ".selfheal").mkdir()
    (tmp_path / ".selfheal" / "last-heal").write_text(f"{tmp_path / 'gone'}\n", encoding="utf-8")
    assert main(["memory", "list"]) == 0
    assert capsys.readouterr() == ("", "no record in .selfheal/memory.jsonl\n")


def test_report_of_a_folder_that_is_not_a_run_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("not a run\n", encoding="utf-8")
    assert main(["report", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"selfheal: {tmp_path}: not the output folder of a heal (it holds no report.json)\n"
    assert not (tmp_path / "report.html").exists()
