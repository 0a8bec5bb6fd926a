from slugs import slugify, unique_slug


def test_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_accents_and_apostrophes():
    assert slugify("Crème Brûlée: Don't Panic!") == "creme-brulee-dont-panic"


def test_leading_punctuation():
    assert slugify("...and then there were none") == "and-then-there-were-none"


def test_length_cap_keeps_whole_words():
    assert slugify("one two three four", max_length=12) == "one-two"


def test_custom_separator():
    assert slugify("Hello World", separator="_") == "hello_world"


def test_unique_slug():
    assert unique_slug("Hello", {"hello", "hello-2"}) == "hello-3"
    assert unique_slug("!!!", set()) == "untitled"
