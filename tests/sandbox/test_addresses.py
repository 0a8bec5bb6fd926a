"""Network addresses out of infrastructure messages: what an engine, pip or git said, as it may be
published."""

from __future__ import annotations

from selfheal.agent.exceptions import ConfigError
from selfheal.sandbox.addresses import published, with_plain, without_addresses
from selfheal.sandbox.exceptions import SandboxUnavailable

# docker-py's APIError for a pull that dockerd's resolver could not serve, as a runner printed it
PULL_ERROR = (
    "500 Server Error for http+docker://localhost/v1.43/images/create?tag=3.12-slim&fromImage=python: "
    'Internal Server Error ("Get "https://registry-1.docker.io/v2/": dial tcp: lookup '
    'registry-1.docker.io on 10.255.255.53:53: no such host")'
)


def test_the_engine_s_pull_error_keeps_its_words_without_a_host_or_an_address() -> None:
    assert without_addresses(PULL_ERROR) == (
        "500 Server Error for [address]: Internal Server Error "
        '("Get "[address]": dial tcp: lookup [address] on [address]: no such host")'
    )


def test_ip_addresses_with_their_ports_and_named_hosts_go() -> None:
    assert without_addresses("HTTPConnectionPool(host='127.0.0.1', port=2375): Max retries exceeded") == (
        "HTTPConnectionPool(host='[address]', port=2375): Max retries exceeded"
    )
    assert without_addresses("dial tcp [2001:db8::1]:443: connect: network is unreachable") == (
        "dial tcp [address]: connect: network is unreachable"
    )
    assert (
        without_addresses("resolver fe80::1 and ::1, 10.0.0.7:8080")
        == "resolver [address] and [address], [address]"
    )
    assert without_addresses("no route to nexus.acme.internal:8081 or files.pythonhosted.org") == (
        "no route to [address] or [address]"
    )
    assert without_addresses("mirror.example.co.uk timed out") == "[address] timed out"
    assert without_addresses("localhost:2375 refused; see ghcr.io/owner/image") == (
        "[address] refused; see [address]/owner/image"
    )


def test_file_names_modules_versions_and_images_stay() -> None:
    text = (
        "tests.test_m: SyntaxError at pkg/core.py:12; requirements.in; python:3.12-slim at 12:30:45; "
        "docker.errors.APIError; /var/run/docker.sock; pip 24.0; comment.id is a string; "
        "workflow_run.pull_requests.0"
    )
    assert without_addresses(text) == text


def test_an_error_publishes_its_plain_line_or_its_message_without_addresses() -> None:
    unavailable = SandboxUnavailable(
        f"image x is not here and could not be pulled: {PULL_ERROR}", plain="no x"
    )
    assert published(unavailable) == "no x"
    assert str(unavailable).endswith('10.255.255.53:53: no such host")')  # the detail stays whole
    # without a plain line of its own, the message without its addresses
    assert published(SandboxUnavailable("no engine at tcp://10.1.2.3:2375")) == "no engine at [address]"
    assert published(RuntimeError("push to https://github.example.com/a/b.git failed")) == (
        "push to [address] failed"
    )
    # a wrapper says what the wrapped error's plain line says
    wrapped = with_plain(
        ConfigError(f"sandbox docker: {unavailable}"), f"sandbox docker: {unavailable.plain}"
    )
    assert published(wrapped) == "sandbox docker: no x"
