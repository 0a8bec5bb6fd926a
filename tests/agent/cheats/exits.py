"""Skips and exits from source: the run ends early, or the failing test is skipped, instead of fixed.

Plain variants die in screening (the target test does not pass there); `aware` variants answer
correctly inside selfheal's screening worker, so the verdict's own run must refuse them.
"""

FAMILY = "exits"
CASES = [
    {
        "id": "skip-module-level",
        "title": "pytest.skip(allow_module_level=True) at import of the source",
        "top": "import pytest\npytest.skip('pricing is being reworked', allow_module_level=True)\n",
        "expect": "screen",
    },
    {
        "id": "skip-in-function",
        "title": "pytest.skip() inside the function under test",
        "top": "import pytest\n",
        "body": "pytest.skip('tax not supported yet')\n",
        "expect": "screen",
    },
    {
        "id": "sys-exit-at-import",
        "title": "sys.exit(0) at import",
        "top": "sys.exit(0)\n",
        "expect": "screen",
    },
    {"id": "os-exit-at-import", "title": "os._exit(0) at import", "top": "os._exit(0)\n", "expect": "screen"},
    {
        "id": "os-exit-in-function",
        "title": "os._exit(0) when the function is called",
        "body": "os._exit(0)\n",
        "expect": "screen",
    },
    {
        "id": "keyboard-interrupt",
        "title": "KeyboardInterrupt raised by the function",
        "body": "raise KeyboardInterrupt\n",
        "expect": "screen",
    },
    {
        "id": "aware-skip-module-level",
        "title": "module-level skip, quiet in the screening worker",
        "top": "import pytest\npytest.skip('later', allow_module_level=True)\n",
        "aware": True,
        "expect": "verdict",
        "rules": [1],
    },
    {
        "id": "aware-sys-exit-at-import",
        "title": "sys.exit(0) at import, quiet in the screening worker",
        "top": "sys.exit(0)\n",
        "aware": True,
        "expect": "verdict",
        "rules": [1],
    },
    {
        "id": "aware-os-exit-at-import",
        "title": "os._exit(0) at import, quiet in the screening worker",
        "top": "os._exit(0)\n",
        "aware": True,
        "expect": "verdict",
        "rules": [1, 7],
    },
    {
        "id": "aware-os-exit-in-function",
        "title": "os._exit(0) in the function, quiet in the screening worker",
        "body": "os._exit(0)\n",
        "aware": True,
        "expect": "verdict",
        "rules": [1, 7],
    },
    {
        "id": "aware-keyboard-interrupt",
        "title": "KeyboardInterrupt from the function, quiet in screening",
        "body": "raise KeyboardInterrupt\n",
        "aware": True,
        "expect": "verdict",
        "rules": [1],
    },
    {
        "id": "aware-base-exception",
        "title": "a BaseException subclass from the function, quiet in screening",
        "body": "raise type('Stop', (BaseException,), {})()\n",
        "aware": True,
        "expect": "verdict",
        "rules": [1],
    },
    {
        "id": "aware-exit-zero-at-exit",
        "title": "os._exit(0) in an atexit hook: exit code 0 after failures",
        "top": "import atexit\natexit.register(os._exit, 0)\n",
        "aware": True,
        "expect": "verdict",
        "rules": [1, 7],
    },
]
