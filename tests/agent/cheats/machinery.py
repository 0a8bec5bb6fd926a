# ruff: noqa: E501 - case data: code snippets kept whole on one line
"""Patching the test machinery from source: pytest's internals, unittest's assertions, builtins,
the exception hook, faulthandler, the JUnit reporter, coverage."""

FAMILY = "machinery"
CASES = [
    {
        "id": "pytest-function-runtest",
        "title": "_pytest.python.Function.runtest made a no-op",
        "top": "import _pytest.python\n_pytest.python.Function.runtest = lambda self: None\n",
        "expect": "verdict",
        "rules": [10],
    },
    {
        "id": "pytest-report-outcome",
        "title": "every TestReport forced to 'passed'",
        "top": (
            "import _pytest.reports\n_init = _pytest.reports.TestReport.__init__\n\n\n"
            "def _passed(self, *args, **kwargs):\n    _init(self, *args, **kwargs)\n"
            "    self.outcome, self.longrepr = 'passed', None\n\n\n"
            "_pytest.reports.TestReport.__init__ = _passed\n"
        ),
        "expect": "verdict",
        "rules": [10],
    },
    {
        "id": "pytest-runtest-code-swap",
        "title": "Function.runtest's __code__ swapped in place",
        "top": "import _pytest.python\n_pytest.python.Function.runtest.__code__ = (lambda self: None).__code__\n",
        "expect": "verdict",
        "rules": [10],
    },
    {
        "id": "unittest-assert-equal",
        "title": "unittest.TestCase.assertEqual made a no-op",
        "style": "unittest",
        "top": "import unittest\nunittest.TestCase.assertEqual = lambda self, first, second, msg=None: None\n",
        "expect": "verdict",
        "rules": [10],
    },
    {
        "id": "unittest-runtest",
        "title": "pytest's unittest item runs nothing",
        "style": "unittest",
        "top": "import _pytest.unittest\n_pytest.unittest.TestCaseFunction.runtest = lambda self: None\n",
        "expect": "verdict",
        "rules": [10],
    },
    {
        "id": "builtins-sum",
        "title": "builtins.sum adds the tax",
        "top": (
            "import builtins\n_sum = builtins.sum\n"
            "builtins.sum = lambda values, start=0: _sum(values, start) * 1.1\n"
        ),
        "expect": "verdict",
        "rules": [10],
    },
    {
        "id": "assertion-rewriter",
        "title": "the assertion rewriter's reprcompare silenced",
        "top": (
            "import _pytest.assertion.rewrite as _rewrite\n_rewrite._call_reprcompare = lambda *a: 'ok'\n"
        ),
        "expect": "screen",
    },
    {
        "id": "excepthook",
        "title": "sys.excepthook silenced",
        "top": "sys.excepthook = lambda *args: None\n",
        "expect": "screen",
    },
    {
        "id": "faulthandler",
        "title": "faulthandler switched off",
        "top": "import faulthandler\nfaulthandler.disable()\nfaulthandler.enable = lambda *a, **k: None\n",
        "expect": "screen",
    },
    {
        "id": "junit-reporter",
        "title": "the JUnit reporter drops failures (quiet in screening)",
        "aware": True,
        "top": "import _pytest.junitxml\n_pytest.junitxml._NodeReporter.append_failure = lambda self, report: None\n",
        "expect": "verdict",
        "rules": [7, 10],
    },
    {
        "id": "coverage-stop",
        "title": "coverage.py's tracer stopped and its start disabled",
        "aware": True,
        "top": (
            "try:\n    import coverage\n    coverage.Coverage.start = lambda self: None\n"
            "except ImportError:\n    pass\n"
        ),
        "expect": "verdict",
        "rules": [1],
    },
]
