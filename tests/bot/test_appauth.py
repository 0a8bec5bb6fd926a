"""App auth against the fake GitHub (its own process), which verifies the RS256 JWT with the app's
public key and issues installation tokens scoped to the installation's repositories."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import jwt
import pytest
from github import GithubException

from selfheal.bot.exceptions import CredentialsError, GitHubError, ServerConfigError
from selfheal.bot.github.appauth import AppTokens
from selfheal.bot.github.client import GitHubClient
from tests.action.conftest import REPO
from tests.bot.botserver import APP_ID, INSTALLATION, BotWorld, app_state, key_body, make_app_key
from tests.fakes.github_server import FakeGitHub


def token_requests(world: BotWorld) -> list[dict]:
    return [r for r in world.fake.requests() if r["path"].endswith("/access_tokens")]


def test_installation_tokens_are_cached_until_they_would_not_last_the_job(bot_world: BotWorld) -> None:
    issued: list[str] = []
    tokens = AppTokens(str(APP_ID), bot_world.key.private_pem, api_url=bot_world.fake.api_url,
                       on_token=issued.append)  # fmt: skip
    assert tokens.app_name() == "selfheal"
    first = tokens.token(INSTALLATION, valid_for=timedelta(minutes=25))
    assert tokens.token(INSTALLATION, valid_for=timedelta(minutes=25)) == first
    assert [(r["method"], r["status"], r["principal"]) for r in token_requests(bot_world)] == [
        ("POST", 201, "app")
    ]
    # the fake's tokens live an hour: one that must last 58 minutes more (+ the margin) is fetched anew
    longer = tokens.token(INSTALLATION, valid_for=timedelta(minutes=58))
    assert longer != first and len(token_requests(bot_world)) == 2
    assert issued == [first, longer] == bot_world.issued_tokens()
    assert first not in repr(tokens) and bot_world.key.private_pem not in repr(tokens)


def test_a_token_opens_the_installations_repositories_only(bot_world: BotWorld) -> None:
    tokens = AppTokens(str(APP_ID), bot_world.key.private_pem, api_url=bot_world.fake.api_url)
    assert tokens.installation_for(REPO) == INSTALLATION
    token = tokens.token(INSTALLATION)

    assert (
        GitHubClient(REPO, token, api_url=bot_world.fake.api_url, write_interval=0).default_branch == "main"
    )
    elsewhere = GitHubClient("other/elsewhere", token, api_url=bot_world.fake.api_url, write_interval=0)
    with pytest.raises(GitHubError) as refused:
        _ = elsewhere.default_branch
    assert refused.value.status == 404
    with pytest.raises(CredentialsError, match="is the app installed there"):
        tokens.installation_for("other/elsewhere")
    requests = bot_world.fake.requests()
    assert {r["principal"] for r in requests if r["path"].startswith("/api/v3/repos/acme/widgets")} >= {
        "installation:77"
    }
    assert not [r for r in requests if r["token_in_url"]]


def test_a_wrong_app_id_or_key_is_refused_without_showing_the_key(
    bot_world: BotWorld, tmp_path: Path
) -> None:
    wrong_id = AppTokens("31337", bot_world.key.private_pem, api_url=bot_world.fake.api_url)
    with pytest.raises(
        CredentialsError, match=r"rejected the app's JWT .*\(401: Integration not found"
    ) as e1:
        wrong_id.token(INSTALLATION)
    stranger = make_app_key(tmp_path / "other")
    wrong_key = AppTokens(str(APP_ID), stranger.private_pem, api_url=bot_world.fake.api_url)
    with pytest.raises(CredentialsError, match="could not be decoded") as e2:
        wrong_key.app_name()
    gone = AppTokens(str(APP_ID), bot_world.key.private_pem, api_url=bot_world.fake.api_url)
    with pytest.raises(CredentialsError, match="installation 999"):
        gone.token(999)
    for error in (e1.value, e2.value):
        for line in key_body(bot_world.key.private_pem) + key_body(stranger.private_pem):
            assert line not in str(error)
        assert error.__cause__ is None and error.__suppress_context__  # no chained PyGithub text either


def test_a_key_file_that_is_not_a_usable_key_stops_the_start(tmp_path: Path) -> None:
    junk = tmp_path / "junk.pem"
    junk.write_text("-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0IGp1bms=\n-----END RSA PRIVATE KEY-----\n")
    with pytest.raises(ServerConfigError, match="could not sign a JWT") as bad:
        AppTokens.from_key_file(str(APP_ID), junk)
    assert "c2VjcmV0IGp1bms" not in str(bad.value)
    public_only = tmp_path / "public.pem"
    public_only.write_text(make_app_key(tmp_path / "k").public_pem)
    with pytest.raises(ServerConfigError, match="not a PEM private key"):
        AppTokens.from_key_file(str(APP_ID), public_only)
    with pytest.raises(ServerConfigError, match="No such file"):
        AppTokens.from_key_file(str(APP_ID), tmp_path / "missing.pem")


def test_an_expired_token_is_refused_by_the_fake(tmp_path: Path, bot_world: BotWorld) -> None:
    state = app_state(bot_world.remote, bot_world.key.public_pem, token_ttl=1)
    with FakeGitHub.start(tmp_path / "short", state) as fake:
        tokens = AppTokens(str(APP_ID), bot_world.key.private_pem, api_url=fake.api_url)
        token = tokens.token(INSTALLATION)
        assert GitHubClient(REPO, token, api_url=fake.api_url).default_branch == "main"
        time.sleep(1.2)
        with pytest.raises(CredentialsError, match="401"):
            _ = GitHubClient(REPO, token, api_url=fake.api_url).default_branch
        assert tokens.token(INSTALLATION) != token  # an hour's margin is never met: always a new one


def test_the_fake_accepts_only_app_jwts_github_would_accept(bot_world: BotWorld) -> None:
    """The fake's JWT check is what makes the tests above mean something: forged, unsigned, expired or
    overlong JWTs are refused, and a JWT opens only the app's own endpoints."""

    def status(token: str, path: str = "/app") -> tuple[int, str]:
        github = bot_world.fake.github(token)
        try:
            github.requester.requestJsonAndCheck("GET", path)
        except GithubException as exc:
            return exc.status, (exc.data or {}).get("message", "")
        return 200, ""

    now = int(time.time())
    good = {"iat": now - 60, "exp": now + 300, "iss": str(APP_ID)}
    key = bot_world.key.private_pem
    assert status(jwt.encode(good, key, algorithm="RS256")) == (200, "")
    assert status(jwt.encode(good, "a shared secret, long enough for HS256", algorithm="HS256"))[0] == 401
    assert status(jwt.encode(good, None, algorithm="none"))[0] == 401
    assert status(jwt.encode({**good, "exp": now - 1}, key, algorithm="RS256"))[0] == 401
    assert status(jwt.encode({**good, "exp": now + 1200}, key, algorithm="RS256")) == (
        401, "'Expiration time' claim ('exp') is too far in the future",
    )  # fmt: skip
    app_jwt = jwt.encode(good, key, algorithm="RS256")
    assert status(app_jwt, f"/repos/{REPO}")[0] == 403  # a JWT is the app, not an installation
    assert status(app_jwt, f"/repos/{REPO}/installation") == (200, "")
    token = AppTokens(str(APP_ID), key, api_url=bot_world.fake.api_url).token(INSTALLATION)
    assert status(token, "/app") == (401, "A JSON web token could not be decoded")
