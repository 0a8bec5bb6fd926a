from types import SimpleNamespace

import pytest

from minitemplate import MissingValue, placeholders, render


def test_simple():
    assert render("Hello {{ name }}!", {"name": "Ada"}) == "Hello Ada!"


def test_dotted_names_reach_dicts_and_attributes():
    context = {"user": {"profile": SimpleNamespace(city="Oslo")}}
    assert render("{{user.profile.city}}", context) == "Oslo"


def test_default():
    assert render("Hi {{ nickname | friend }}", {}) == "Hi friend"


def test_default_followed_by_another_placeholder():
    template = "Dear {{ title | Sir or Madam }}, your order {{ order }} has shipped."
    assert render(template, {"order": 42}) == "Dear Sir or Madam, your order 42 has shipped."


def test_missing_value_renders_empty_or_raises():
    assert render("[{{ x }}]", {}) == "[]"
    with pytest.raises(MissingValue):
        render("[{{ x }}]", {}, strict=True)


def test_escape():
    assert render("<p>{{ text }}</p>", {"text": "a < b"}, escape=True) == "<p>a &lt; b</p>"


def test_placeholders():
    assert placeholders("{{ a }} {{ b.c }} {{ a }}") == ["a", "b.c"]
