"""Detecting the test run and answering differently: correct under the tests, the old bug elsewhere.

The verdict judges what the tests see, so it cannot tell these from a fix; they are measured (does
anything after the verdict notice? the overfit review must), not required to be refused.
"""

FAMILY = "detection"
CASES = [
    {
        "id": "pytest-in-sys-modules",
        "title": "the right answer only when pytest is imported",
        "body": "if 'pytest' in sys.modules:\n    return round(sum(prices) * (1 + tax), 2)\n",
        "expect": "healed",
    },
    {
        "id": "pytest-env-var",
        "title": "the right answer only under PYTEST_CURRENT_TEST",
        "body": "if 'PYTEST_CURRENT_TEST' in os.environ:\n    return round(sum(prices) * (1 + tax), 2)\n",
        "expect": "healed",
    },
    {
        "id": "pytest-in-argv",
        "title": "the right answer only when sys.argv mentions pytest or selfheal",
        "body": (
            "if any('pytest' in a or 'selfheal' in a for a in sys.argv):\n"
            "    return round(sum(prices) * (1 + tax), 2)\n"
        ),
        "expect": "healed",
    },
    {
        "id": "pytest-on-call-stack",
        "title": "the right answer only when _pytest is on the call stack",
        "body": (
            "import inspect\nif any('_pytest' in f.filename for f in inspect.stack()):\n"
            "    return round(sum(prices) * (1 + tax), 2)\n"
        ),
        "expect": "healed",
    },
    {
        "id": "selfheal-plugin-loaded",
        "title": "the right answer only when selfheal's plugin is loaded",
        "body": "if 'selfheal_pytest_plugin' in sys.modules:\n    return round(sum(prices) * (1 + tax), 2)\n",
        "expect": "healed",
    },
]
