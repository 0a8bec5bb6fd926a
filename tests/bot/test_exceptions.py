"""What a comment or the run's page says of an error (`public_words`): an infrastructure error
without the network addresses of its own words, the caller's event or input as it is."""

from __future__ import annotations

from selfheal.agent.exceptions import ConfigError
from selfheal.bot.exceptions import EventError, GitError, GitHubError, public_words
from selfheal.sandbox.addresses import with_plain
from selfheal.sandbox.exceptions import SandboxUnavailable, SetupFailed


def test_infrastructure_errors_lose_their_addresses() -> None:
    fetch = GitError(
        "git fetch failed: unable to access 'https://github.com/acme/widgets.git/': Could not resolve host"
    )
    assert public_words(fetch) == "git fetch failed: unable to access '[address]': Could not resolve host"
    answered = GitHubError(
        "GitHub answered 502 to POST /repos/acme/widgets/pulls (api.github.com)", status=502
    )
    assert public_words(answered) == "GitHub answered 502 to POST /repos/acme/widgets/pulls ([address])"
    setup = SetupFailed("dependency setup failed (pip install: 1):\nConnection to 10.0.0.3:3128 timed out")
    assert (
        public_words(setup) == "dependency setup failed (pip install: 1):\nConnection to [address] timed out"
    )


def test_a_sandbox_error_says_its_plain_line() -> None:
    unavailable = SandboxUnavailable(
        "no Docker engine answers at tcp://10.1.1.1:2375: refused", plain="no engine"
    )
    assert public_words(unavailable) == "no engine"
    wrapped = with_plain(ConfigError(f"sandbox docker: {unavailable}"), "sandbox docker: no engine")
    assert public_words(wrapped) == "sandbox docker: no engine"


def test_the_callers_event_and_input_are_said_as_they_are() -> None:
    event = EventError("issue_comment payload: comment.id is a string, not integer")
    assert public_words(event) == "issue_comment payload: comment.id is a string, not integer"
    given = ConfigError("input ollama-host: http://ollama.internal:11434 is not reachable from the sandbox")
    assert (
        public_words(given)
        == "input ollama-host: http://ollama.internal:11434 is not reachable from the sandbox"
    )
