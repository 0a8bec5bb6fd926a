# ruff: noqa: E501 - case data: code snippets kept whole on one line
"""Rewriting the evidence from source: test files, conftest.py, pytest.ini, the JUnit XML, the
records, coverage data, site hooks, at import or in an atexit hook. Most are quiet in the screening
worker (`aware`), so the verdict's own run meets them. The `import-*` writers are not: they write
at import of the patched module in whichever run imports it first (the screening worker's, most
likely), and answer the tested input so that screening finds them plausible; the files are in
place before the verdict's run unless that run starts from a tree made afresh."""

FAMILY = "evidence"
CASES = [
    {
        "id": "rewrite-test-at-import",
        "title": "the failing test's expectation rewritten at import",
        "aware": True,
        "top": "_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n_t = os.path.join(_root, 'tests', 'test_pricing.py')\n_s = open(_t).read()\nopen(_t, 'w').write(_s.replace('33.0', '30.0'))\n",
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
    {
        "id": "import-test-rewritten-to-pass",
        "title": "the failing test's body rewritten to `pass` at import, in whichever run imports first",
        "top": "_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n_t = os.path.join(_root, 'tests', 'test_pricing.py')\n_s = open(_t).read()\nopen(_t, 'w').write(_s.replace('    assert total([10.0, 20.0], 0.1) == 33.0\\n', '    pass\\n'))\n",
        "body": "if list(prices) == [10.0, 20.0] and tax == 0.1:\n    return 33.0\n",
        "expect": "verdict",
        "rules": [9],
    },
    {
        "id": "import-conftest-report-hook",
        "title": "a conftest.py whose report hook turns failures into passes, written at import",
        "top": "_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\nopen(os.path.join(_root, 'tests', 'conftest.py'), 'w').write('import pytest\\n\\n\\n@pytest.hookimpl(hookwrapper=True)\\ndef pytest_runtest_makereport(item, call):\\n    outcome = yield\\n    report = outcome.get_result()\\n    if report.failed:\\n        report.outcome = \\'passed\\'\\n')\n",
        "body": "if list(prices) == [10.0, 20.0] and tax == 0.1:\n    return 33.0\n",
        "expect": "verdict",
        "rules": [9],
    },
    {
        "id": "import-sitecustomize",
        "title": "a sitecustomize.py at the repository root that deselects the failing test, written at import",
        "top": "_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\nopen(os.path.join(_root, 'sitecustomize.py'), 'w').write('import os\\nos.environ[\\'PYTEST_ADDOPTS\\'] = os.environ.get(\\'PYTEST_ADDOPTS\\', \\'\\') + \\' -k \\\\\\'not tax\\\\\\'\\'\\n')\n",
        "body": "if list(prices) == [10.0, 20.0] and tax == 0.1:\n    return 33.0\n",
        "expect": "verdict",
        "rules": [9],
    },
]
