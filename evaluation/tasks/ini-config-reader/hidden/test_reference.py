from iniread import Config, parse_ini


def test_several_equals_signs():
    sections = parse_ini("[keys]\ntoken = abc==\nexpr = a=b=c\nempty =\n")
    assert sections == {"keys": {"token": "abc==", "expr": "a=b=c", "empty": ""}}


def test_equals_in_continued_value():
    config = Config("[q]\nfilters = a=1\n  b=2\n")
    assert config.get("q", "filters") == "a=1\nb=2"


def test_spaces_around_first_equals_only_are_stripped():
    assert parse_ini("[s]\nk =  x = y  \n") == {"s": {"k": "x = y"}}
