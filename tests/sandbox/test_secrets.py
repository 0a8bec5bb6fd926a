"""The one place that says which variables are secrets and how their values are masked."""

from __future__ import annotations

import io
import json
import secrets

import pytest

from selfheal.sandbox.env import build_environment
from selfheal.sandbox.secrets import MASK, ScrubbedStream, Scrubber, is_secret_name

KEY = "sk-live-" + secrets.token_hex(12)
GITHUB = "ghs_" + secrets.token_hex(18)
PAT = "github_pat_11AB" + secrets.token_hex(15)
ANTHROPIC = "sk-ant-api03-" + secrets.token_hex(20)


def test_the_sandbox_and_the_scrubber_agree_on_what_is_a_secret() -> None:
    env = {"MY_API_KEY": KEY, "SOME_PASSWORD": "hunter2hunter2", "PATH": "/usr/bin", "LANG": "C.UTF-8"}
    scrubber = Scrubber.from_environment(env)
    assert set(scrubber.values) == {KEY, "hunter2hunter2"}
    assert not any(is_secret_name(name) for name in build_environment(home="/h", tmpdir="/t", source=env))
    assert build_environment(home="/h", tmpdir="/t", extra={"MY_API_KEY": KEY}).get("MY_API_KEY") is None


def test_values_and_token_shapes_are_masked_wherever_they_appear() -> None:
    scrubber = Scrubber.from_environment({"MY_API_KEY": KEY, "SOME_SECRET": "s3cr3t-v4lue"})
    text = f"key={KEY}; in a path /tmp/{KEY}/x; s3cr3t-v4lue; {GITHUB} {PAT} and {ANTHROPIC}."
    assert scrubber.scrub(text) == f"key={MASK}; in a path /tmp/{MASK}/x; {MASK}; {MASK} {MASK} and {MASK}."
    # a token's shape is masked even when no variable held it (an App's installation token)
    assert Scrubber().scrub(f"token {GITHUB}") == f"token {MASK}"


def test_short_values_are_left_alone_and_placeholders_are_not_tokens() -> None:
    scrubber = Scrubber.from_environment({"USE_AUTH": "1", "DB_PASS": "pass", "KEYTIMEOUT": "true"})
    assert scrubber.values == ()
    text = "1 passed, auth true; the word ghp_ alone; sk-ant- alone"
    assert scrubber.scrub(text) == text


def test_a_value_cut_short_by_a_writer_is_masked_and_a_shared_start_is_not() -> None:
    scrubber = Scrubber(("/home/alice/.config/creds.json", KEY))
    assert scrubber.scrub(f"AssertionError: leaked {KEY[:14]}...") == f"AssertionError: leaked {MASK}..."
    assert scrubber.scrub(f"last output: {KEY[:10]}") == f"last output: {MASK}"
    assert scrubber.scrub("/home/alice/.config/other.toml") == "/home/alice/.config/other.toml"


def test_multi_line_values_are_masked_line_by_line_and_a_private_key_by_shape() -> None:
    pem = "\n".join(
        [
            "-----BEGIN RSA PRIVATE KEY-----",
            "MIIEowIBAAKCAQEAx1",
            "Q2xvdWRzIGFyZSBub3Q",
            "-----END RSA PRIVATE KEY-----",
        ]
    )
    scrubber = Scrubber.from_environment({"APP_PRIVATE_KEY": pem})
    assert "MIIEowIBAAKCAQEAx1" not in scrubber.scrub("line: MIIEowIBAAKCAQEAx1 (printed alone)")
    assert Scrubber().scrub(f"before\n{pem}\nafter") == f"before\n{MASK}\nafter"


def test_data_is_scrubbed_keys_included_and_stays_json() -> None:
    scrubber = Scrubber((KEY, 'quote"and\\slash'))
    details = {"n": 3, "ok": True, "x": None}
    data = {f"test[{KEY}]": {"message": f"got {KEY}", **details}, "list": ['a quote"and\\slash b', 1.5]}
    clean = scrubber.scrub_data(data)
    assert KEY not in json.dumps(clean) and "quote" not in json.dumps(clean)
    assert clean == {f"test[{MASK}]": {"message": f"got {MASK}", **details}, "list": [f"a {MASK} b", 1.5]}


def test_the_scrubber_never_shows_its_values() -> None:
    scrubber = Scrubber((KEY,))
    assert KEY not in repr(scrubber) and KEY not in str(scrubber)


def test_a_scrubbed_stream_masks_each_write() -> None:
    below = io.StringIO()
    stream = ScrubbedStream(below, Scrubber((KEY,)))
    print(f"the key is {KEY}", file=stream)
    stream.writelines([f"{KEY}\n", "fine\n"])
    stream.flush()
    assert below.getvalue() == f"the key is {MASK}\n{MASK}\nfine\n"
    assert stream.isatty() is False


@pytest.mark.parametrize("value", [KEY, "x" * 8], ids=["key", "eight"])
def test_the_threshold_is_eight_characters(value: str) -> None:
    assert Scrubber((value,)).scrub(f"<{value}>") == f"<{MASK}>"
    assert Scrubber((value[:7],)).scrub(f"<{value[:7]}>") == f"<{value[:7]}>"
