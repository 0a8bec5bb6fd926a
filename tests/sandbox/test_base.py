"""The isolation of a session in a few words, as the console's sandbox line says it."""

from __future__ import annotations

from dataclasses import replace

from selfheal.sandbox.base import Isolation, SandboxInfo

BUBBLEWRAP = Isolation(
    uid=51234,
    separate_user=True,
    capabilities=(),
    namespaces=("mount", "pid", "net", "ipc", "uts"),
    network=False,
    filesystem="the workspace only",
    read_only_elsewhere=True,
    disk_limit_mb=1024,
    processes="pids cgroup",
    nested_user_namespaces=False,
)


def test_each_isolation_in_a_few_plain_words() -> None:
    assert SandboxInfo.of("local", BUBBLEWRAP).plain() == "local, namespaces, no network"
    other_user = replace(BUBBLEWRAP, namespaces=(), network=True)
    assert SandboxInfo.of("local", other_user).plain() == "local, another user, network reachable"
    own_user = replace(BUBBLEWRAP, separate_user=False, namespaces=(), network=True)
    assert SandboxInfo.of("local", own_user).plain() == "local, not contained, network reachable"
    root = replace(own_user, capabilities=("all",))
    assert SandboxInfo.of("local", root).plain() == "local, not contained, network reachable"
    assert SandboxInfo.of("docker", BUBBLEWRAP).plain() == "docker, no network"
    # no facts (a set-up that failed): the backend and the network alone
    assert (
        SandboxInfo("docker", False, "container; the dependency setup failed").plain() == "docker, no network"
    )


def test_the_plain_words_say_less_than_the_statement_and_no_uid() -> None:
    info = SandboxInfo.of("local", BUBBLEWRAP)
    assert info.isolation.startswith("uid 51234, not selfheal's user; capabilities: none; namespaces: mount")
    assert "uid" not in info.plain()
