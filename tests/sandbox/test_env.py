"""build_environment: the allowlisted environment every sandboxed command gets."""

from __future__ import annotations

import pytest

from selfheal.sandbox.env import FIXED, build_environment, is_secret_name

HOME = "/ws/.selfheal-sandbox/home"
TMP = "/ws/.selfheal-sandbox/tmp"

SOURCE = {
    "PATH": "/opt/bin:/usr/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TZ": "UTC",
    "GITHUB_TOKEN": "ghp_secret",
    "ANTHROPIC_API_KEY": "sk-ant-secret",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "MY_PASSWORD": "hunter2",
    "HOME": "/root",
    "TMPDIR": "/tmp",
    "USER": "root",
    "VIRTUAL_ENV": "/work/venv",
    "PYTHONPATH": "/somewhere",
}


def test_only_allowlisted_names_are_inherited() -> None:
    env = build_environment(home=HOME, tmpdir=TMP, source=SOURCE)
    assert env == {
        "PATH": "/opt/bin:/usr/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        **FIXED,
        "HOME": HOME,
        "TMPDIR": TMP,
        "TMP": TMP,
        "TEMP": TMP,
    }


def test_fixed_values() -> None:
    env = build_environment(home=HOME, tmpdir=TMP, source={})
    assert env["PYTHONDONTWRITEBYTECODE"] == "1"
    assert env["PYTHONUNBUFFERED"] == "1"
    assert env["PYTHONHASHSEED"] == "0"
    assert env["PYTHONNOUSERSITE"] == "1"
    assert env["NO_COLOR"] == "1"


def test_default_path_when_source_has_none() -> None:
    env = build_environment(home=HOME, tmpdir=TMP, source={"LANG": "C"})
    assert env["PATH"] == "/usr/local/bin:/usr/bin:/bin"
    assert env["LANG"] == "C"


def test_secret_names_are_dropped_even_when_passed_explicitly() -> None:
    extra = {
        "GITHUB_TOKEN": "x1",
        "ANTHROPIC_API_KEY": "x2",
        "AWS_SECRET_ACCESS_KEY": "x3",
        "MY_PASSWORD": "x4",
        "db_passwd": "x5",
        "GOOGLE_APPLICATION_CREDENTIALS": "x6",
        "SAFE_SETTING": "kept",
    }
    env = build_environment(home=HOME, tmpdir=TMP, extra=extra, source=SOURCE)
    for name in extra:
        if name != "SAFE_SETTING":
            assert name not in env
    assert env["SAFE_SETTING"] == "kept"
    for value in ("x1", "x2", "x3", "x4", "x5", "x6", "ghp_secret", "sk-ant-secret", "hunter2"):
        assert value not in env.values()


def test_extra_overrides_inherited_values() -> None:
    env = build_environment(
        home=HOME, tmpdir=TMP, extra={"PATH": "/custom", "PYTHONHASHSEED": "7"}, source=SOURCE
    )
    assert env["PATH"] == "/custom"
    assert env["PYTHONHASHSEED"] == "7"


def test_reads_os_environ_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "from-os-environ")
    monkeypatch.setenv("LC_MESSAGES", "C")
    monkeypatch.setenv("SELFHEAL_UNRELATED", "1")
    env = build_environment(home=HOME, tmpdir=TMP)
    assert "GITHUB_TOKEN" not in env
    assert "SELFHEAL_UNRELATED" not in env
    assert env["LC_MESSAGES"] == "C"
    assert env["HOME"] == HOME
    assert env["TMPDIR"] == TMP


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("GITHUB_TOKEN", True),
        ("github_token", True),
        ("ANTHROPIC_API_KEY", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("MY_PASSWORD", True),
        ("PGPASSWD", True),
        ("DOCKER_CREDENTIALS", True),
        ("PATH", False),
        ("HOME", False),
        ("LANG", False),
        ("PYTHONHASHSEED", False),
    ],
)
def test_is_secret_name(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_path_token_stands_for_the_sandbox_default_path():
    from selfheal.sandbox.env import expand_path

    env = build_environment(
        home="/w/h", tmpdir="/w/t", extra={"PATH": "/venv/bin:${PATH}"}, source={"PATH": "/usr/bin:/bin"}
    )
    assert env["PATH"] == "/venv/bin:/usr/bin:/bin"
    assert expand_path({"PATH": "/x"}, "/y") == {"PATH": "/x"}
    assert expand_path({}, "/y") == {}
