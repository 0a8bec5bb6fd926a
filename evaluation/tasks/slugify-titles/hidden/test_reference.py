import pytest

from slugs import slugify, unique_slug


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("¿Qué pasa?", "que-pasa"),
        ("  -- Draft --  ", "draft"),
        ("#1 Hit", "1-hit"),
        ("(Re)thinking", "re-thinking"),
        ("C'est la vie", "cest-la-vie"),
        ("a--b", "a-b"),
    ],
)
def test_no_leading_or_trailing_separator(title, expected):
    assert slugify(title) == expected


def test_underscore_separator_trimmed_both_ends():
    assert slugify("!hello world!", separator="_") == "hello_world"


def test_unique_slug_of_punctuated_title():
    assert unique_slug("...Intro", {"intro"}) == "intro-2"
