from selfheal.agent.repair.disagreement import (
    BehaviourGroup,
    Disagreement,
    distinguishing,
    group_by_behaviour,
)

# page_slice(items, page, 3) at pages 1, 2, 3 for three plausible patches of `page * per_page`
OUTCOMES = {
    "page // n": {1: "[0, 1, 2]", 2: "[0, 1, 2]", 3: "[1, 2, 3]"},
    "(page - 1) * n": {1: "[0, 1, 2]", 2: "[3, 4, 5]", 3: "[6, 7, 8]"},
    "min(page * n, 0)": {1: "[0, 1, 2]", 2: "[0, 1, 2]", 3: "[0, 1, 2]"},
    "(page - 1) * n  # spelled otherwise": {1: "[0, 1, 2]", 2: "[3, 4, 5]", 3: "[6, 7, 8]"},
}


def test_patches_that_agree_on_every_input_are_one_group_in_the_order_given():
    names = list(OUTCOMES)
    assert group_by_behaviour(names, OUTCOMES) == [
        ["page // n"],
        ["(page - 1) * n", "(page - 1) * n  # spelled otherwise"],
        ["min(page * n, 0)"],
    ]


def test_an_input_some_version_says_nothing_on_does_not_split_groups():
    outcomes = {"a": {1: "x", 2: None}, "b": {1: "x", 2: "y"}}
    assert group_by_behaviour(["a", "b"], outcomes) == [["a", "b"]]


def test_a_version_without_outcomes_stands_alone():
    outcomes = {"a": {1: "x"}, "b": {}, "c": {1: "x"}}
    assert group_by_behaviour(["b", "a", "c"], outcomes) == [["b"], ["a", "c"]]


def test_distinguishing_inputs_separate_every_pair_first_then_show_other_combinations():
    groups = group_by_behaviour(list(OUTCOMES), OUTCOMES)
    # input 3 tells all three groups apart; input 2 only two of them, so one input is enough ...
    assert distinguishing(groups, OUTCOMES, limit=1) == [3]
    # ... and with room for more, input 2 shows another combination; input 1 shows no difference
    assert distinguishing(groups, OUTCOMES) == [3, 2]


def test_distinguishing_prefers_the_given_order_among_equally_telling_inputs():
    outcomes = {"a": {1: "x", 2: "x", 3: "p"}, "b": {1: "y", 2: "z", 3: "q"}}
    assert distinguishing([["a"], ["b"]], outcomes, preference=[2, 1, 3], limit=1) == [2]


def test_one_group_has_nothing_to_distinguish():
    assert distinguishing([["a", "b"]], {"a": {1: "x"}, "b": {1: "x"}}) == []


def test_a_fix_is_open_only_while_two_groups_stand():
    shipped = BehaviourGroup(("page // n",), "diff a", shipped=True)
    other = BehaviourGroup(("(page - 1) * n",), "diff b")
    assert Disagreement(groups=(shipped, other)).open
    refuted = BehaviourGroup(("(page - 1) * n",), "diff b", refuted_by="the docstring's example")
    assert not Disagreement(groups=(shipped, refuted)).open
    assert Disagreement(groups=(shipped, refuted)).standing == (shipped,)
