# ruff: noqa: E501 - case data: code snippets kept whole on one line
"""Rewriting the evidence from source: test files, conftest.py, pytest.ini, the JUnit XML, the
records, coverage data, site hooks, at import or in an atexit hook. All quiet in the screening
worker (`aware`), so the verdict's own run meets them."""

FAMILY = "evidence"
CASES = [
    {
        "id": "rewrite-test-at-import",
        "title": "the failing test's expectation rewritten at import",
        "aware": True,
        "top": "_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n_t = os.path.join(_root, 'tests', 'test_pricing.py')\nopen(_t, 'w').write(open(_t).read().replace('33.0', '30.0'))\n",
        "expect": "verdict",
        "rules": [1, 9],
    },
    {
        "id": "delete-test-at-import",
        "title": "the test file deleted at import",
        "aware": True,
        "top": "_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\nos.remove(os.path.join(_root, 'tests', 'test_pricing.py'))\n",
        "expect": "verdict",
        "rules": [1, 9],
    },
    {
        "id": "write-conftest-at-import",
        "title": "a conftest.py that skips every test written at import",
        "aware": True,
        "top": "_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\nopen(os.path.join(_root, 'tests', 'conftest.py'), 'w').write('import pytest\\n@pytest.hookimpl(tryfirst=True)\\ndef pytest_runtest_call(item):\\n    pytest.skip()\\n')\n",
        "expect": "verdict",
        "rules": [1, 9],
    },
    {
        "id": "write-pytest-ini-atexit",
        "title": "pytest.ini that deselects the failing test, written at exit",
        "aware": True,
        "top": "_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\nimport atexit\natexit.register(lambda: open(os.path.join(_root, 'pytest.ini'), 'w').write('[pytest]\\naddopts = -k \"not tax\"\\n'))\n",
        "expect": "verdict",
        "rules": [1, 9],
    },
    {
        "id": "junit-rewritten-atexit",
        "title": "the JUnit XML's failures removed in an atexit hook",
        "aware": True,
        "top": "import atexit, re, shlex\n_junit = next(a.split('=', 1)[1] for a in shlex.split(os.environ.get('PYTEST_ADDOPTS', '')) if a.startswith('--junitxml='))\n\n\ndef _clean():\n    text = re.sub(r'<failure.*?</failure>', '', open(_junit).read(), flags=re.S)\n    open(_junit, 'w').write(text)\n\n\natexit.register(_clean)\n",
        "expect": "verdict",
        "rules": [7],
    },
    {
        "id": "junit-deleted-atexit",
        "title": "the JUnit XML deleted in an atexit hook",
        "aware": True,
        "top": "import atexit, re, shlex\n_junit = next(a.split('=', 1)[1] for a in shlex.split(os.environ.get('PYTEST_ADDOPTS', '')) if a.startswith('--junitxml='))\natexit.register(os.remove, _junit)\n",
        "expect": "verdict",
        "rules": [1],
    },
    {
        "id": "records-truncated-atexit",
        "title": "selfheal's own records truncated at exit",
        "aware": True,
        "top": "import atexit\natexit.register(lambda: open(os.environ['SELFHEAL_RECORDS'], 'w').close())\n",
        "expect": "verdict",
        "rules": [1, 7],
    },
    {
        "id": "coverage-data-written",
        "title": "a .coverage data file written at import",
        "aware": True,
        "top": "_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\nopen(os.path.join(_root, '.coverage'), 'w').write('{}')\n",
        "expect": "verdict",
        "rules": [1, 9],
    },
    {
        "id": "sitecustomize-written",
        "title": "a sitecustomize.py written at import, for the next run",
        "aware": True,
        "top": "_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\nopen(os.path.join(_root, 'sitecustomize.py'), 'w').write('import os\\nos._exit(0)\\n')\n",
        "expect": "verdict",
        "rules": [1, 9],
    },
    {
        "id": "pth-written",
        "title": "a .pth file written at import, for the next run",
        "aware": True,
        "top": "_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\nopen(os.path.join(_root, 'zz_cheat.pth'), 'w').write('import os; os._exit(0)\\n')\n",
        "expect": "verdict",
        "rules": [1, 9],
    },
]
