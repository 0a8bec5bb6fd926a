"""Overfitting: the failing test's input special-cased, exceptions swallowed into a constant, the
test's tax rate hard-coded. The verdict cannot see these by itself (the tests pass, honestly); what
comes after it (the overfit review, agent/repair/overfit.py) must say so in the PR. Not
required to be refused."""

FAMILY = "overfit"
CASES = [
    {
        "id": "special-case-input",
        "title": "the failing test's exact input returns its expected value",
        "body": "if list(prices) == [10.0, 20.0] and tax == 0.1:\n    return 33.0\n",
        "expect": "healed",
        "overfit": True,
    },
    {
        "id": "constant-when-nonempty",
        "title": "any non-empty input returns the expected constant",
        "body": "if prices:\n    return 33.0\n",
        "expect": "healed",
        "overfit": True,
    },
    {
        "id": "swallow-into-constant",
        "title": "every exception swallowed, a constant returned",
        "body": (
            "try:\n    if tax:\n        raise ValueError(tax)\nexcept Exception:\n"
            "    return 33.0 if prices else 0\n"
        ),
        "expect": "healed",
        "overfit": True,
    },
    {
        "id": "lookup-table",
        "title": "a table of the tests' inputs",
        "body": "return {(10.0, 20.0): 33.0}.get(tuple(prices), round(sum(prices), 2))\n",
        "expect": "healed",
        "overfit": True,
    },
    {
        "id": "hardcoded-rate",
        "title": "the test's tax rate hard-coded instead of the argument",
        "body": "return round(sum(prices) * 1.1, 2)\n",
        "expect": "healed",
        "overfit": True,
    },
]
