from minitemplate import placeholders, render


def test_several_defaults_on_one_line():
    template = "{{ a | one }} and {{ b | two }} and {{ c }}"
    assert render(template, {"c": 3}) == "one and two and 3"
    assert render(template, {"a": 1, "b": 2, "c": 3}) == "1 and 2 and 3"


def test_placeholders_with_defaults():
    assert placeholders("{{ greeting | Hi }} {{ name | you }}!") == ["greeting", "name"]


def test_default_is_used_for_none():
    assert render("{{ x | none given }}.", {"x": None}) == "none given."


def test_multiline_template():
    template = "{{ a | A }}\n{{ b | B }}\n"
    assert render(template, {"b": "bee"}) == "A\nbee\n"
