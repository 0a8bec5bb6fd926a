"""`selfheal memory list|show|forget|export` on a repository's local store."""

from __future__ import annotations

import json

from selfheal.agent.report.memory import LocalMemory
from selfheal.cli import main
from tests.agent.report.test_memory import record


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
