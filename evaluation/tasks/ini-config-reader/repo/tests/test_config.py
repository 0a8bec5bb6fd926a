import pytest

from iniread import Config, ConfigError, parse_ini

TEXT = """\
# service settings
[DEFAULT]
timeout = 30

[server]
Host = example.org
port = 8080
debug = off

[plugins]
enabled = auth, cache
    metrics
"""


def test_sections_and_values():
    config = Config(TEXT)
    assert config.sections() == ["server", "plugins"]
    assert config.get("server", "host") == "example.org"


def test_typed_getters():
    config = Config(TEXT)
    assert config.getint("server", "port") == 8080
    assert config.getbool("server", "debug") is False
    assert config.getint("server", "retries", 3) == 3


def test_default_section():
    assert Config(TEXT).getint("plugins", "timeout") == 30


def test_continuation_lines():
    assert Config(TEXT).getlist("plugins", "enabled") == ["auth", "cache", "metrics"]


def test_value_containing_equals_sign():
    config = Config("[db]\nurl = postgres://db/app?sslmode=require\n")
    assert config.get("db", "url") == "postgres://db/app?sslmode=require"


def test_key_outside_section():
    with pytest.raises(ConfigError) as info:
        parse_ini("x = 1\n")
    assert info.value.line == 1


def test_garbage_line():
    with pytest.raises(ConfigError):
        parse_ini("[a]\njust words\n")
