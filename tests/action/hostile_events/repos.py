"""Families `branches` and `settings`: hostile branch names; a repository that tries to unprotect its tests.

Data for the hostile-events corpus (see commands.py). `branch` is pushed to the repository at
`branch_from` (plus `files`, committed on top) and is the head of pull request 20, or the head
branch of a red `workflow_run`.
"""

FAMILY = "branches"
CASES = [
    {
        "id": "branch-command-substitution",
        "body": "/heal",
        "branch": "$(touch${IFS}{marker})",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
    {
        "id": "branch-semicolon",
        "body": "/heal",
        "branch": ";reboot;touch${IFS}{marker}",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
    {
        "id": "branch-upload-pack",
        "body": "/heal",
        "branch": "--upload-pack=touch${IFS}{marker}",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
    {
        "id": "branch-dash",
        "body": "/heal",
        "branch": "-rf",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
    {
        "id": "branch-unicode",
        "body": "/heal",
        "branch": "fix/\u00fcn\u00efc\u00f6d\u00e9-\u5206\u652f-\u202e",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
    {
        "id": "red-run-hostile-branch",
        "event": "workflow_run",
        "branch": "$(touch${IFS}{marker});x`id`",
        "branch_from": "main",
        "expect": "heal",
        "status": "healed",
        "pr": True,
    },
    # settings: [tool.selfheal] may add protected paths, never take tests or CI out of them. The
    # branch's only failing test pins a wrong value; the only "repair" would edit the test.
    {
        "id": "settings-protected-empty",
        "family": "settings",
        "body": "/heal",
        "branch": "loosen-empty",
        "branch_from": "green",
        "files": "wrong-test",
        "pyproject": 'protected = []\nsource = ["calc/**", "tests/test_calc.py"]',
        "expect": "heal",
        "status": "not_healed",
        "reply": "Not healed",
    },
    {
        "id": "settings-protected-nothing",
        "family": "settings",
        "body": "/heal",
        "branch": "loosen-nothing",
        "branch_from": "green",
        "files": "wrong-test",
        "pyproject": 'protected = ["nothing"]\nsource = ["calc/**", "tests/test_calc.py"]',
        "expect": "heal",
        "status": "not_healed",
        "reply": "Not healed",
    },
]
