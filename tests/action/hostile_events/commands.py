"""Families `look-alikes`, `placement`, `arguments`: what is, and what only looks like, a `/heal`.

Data for the hostile-events corpus (read with `ast` by evaluation/hostile_events/cases.py, run by
tests/action/test_hostile_events.py and tests/bot/test_hostile_events.py). `{marker}` in a body or
branch name becomes a path that only a shell running the text would create.
"""

FAMILY = "commands"
CASES = [
    # look-alikes: none of them is `/heal`, so nothing happens at all
    {"id": "zero-width-inside", "family": "look-alikes", "body": "/h\u200beal", "expect": "ignore"},
    {"id": "zero-width-before", "family": "look-alikes", "body": "\u200b/heal", "expect": "ignore"},
    {"id": "zero-width-after", "family": "look-alikes", "body": "/heal\u200b dry-run", "expect": "ignore"},
    {"id": "byte-order-mark", "family": "look-alikes", "body": "\ufeff/heal", "expect": "ignore"},
    {
        "id": "fullwidth",
        "family": "look-alikes",
        "body": "\uff0f\uff48\uff45\uff41\uff4c",
        "expect": "ignore",
    },
    {"id": "cyrillic-ie", "family": "look-alikes", "body": "/h\u0435al", "expect": "ignore"},
    {"id": "rtl-override", "family": "look-alikes", "body": "\u202e/heal\u202c", "expect": "ignore"},
    {"id": "rtl-override-reversed", "family": "look-alikes", "body": "\u202elaeh/", "expect": "ignore"},
    # placement: shown as code, quoted, or not the comment's first word
    {"id": "fenced-block", "family": "placement", "body": "```\n/heal\n```", "expect": "ignore"},
    {"id": "fenced-tilde", "family": "placement", "body": "~~~sh\n/heal dry-run\n~~~", "expect": "ignore"},
    {"id": "inline-code", "family": "placement", "body": "`/heal`", "expect": "ignore"},
    {"id": "indented-code", "family": "placement", "body": "    /heal", "expect": "ignore"},
    {"id": "quote", "family": "placement", "body": "> /heal\n\nas bob said", "expect": "ignore"},
    {"id": "not-first-word", "family": "placement", "body": "please /heal", "expect": "ignore"},
    {"id": "not-first-line", "family": "placement", "body": "thanks!\n/heal", "expect": "ignore"},
    # arguments: shell text after a real `/heal` is data; the heal runs (on a green branch: nothing to do)
    {
        "id": "arg-command-substitution",
        "family": "arguments",
        "body": "/heal $(touch {marker})",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
    {
        "id": "arg-backticks",
        "family": "arguments",
        "body": "/heal `touch {marker}` tests/`touch {marker}`.py",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
    {
        "id": "arg-semicolon-rm",
        "family": "arguments",
        "body": "/heal ; rm -rf / ; touch {marker} && echo $GITHUB_TOKEN",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
    {
        "id": "arg-newlines",
        "family": "arguments",
        "body": "/heal dry-run\n$(touch {marker})\n; touch {marker}\r\n`touch {marker}`",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
    {
        "id": "arg-lone-cr-approve",
        "family": "arguments",
        "body": "/heal\rapprove",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
    {
        "id": "arg-option-injection",
        "family": "arguments",
        "body": "/heal --upload-pack=touch${IFS}{marker} -p no:cacheprovider --rootdir=/ /etc/ tests/::x",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
    {
        "id": "arg-very-long",
        "family": "arguments",
        "body": "/heal tests/{long}.py $(touch {marker}){long}",
        "branch_from": "green",
        "expect": "heal",
        "status": "nothing_to_heal",
        "reply": "Nothing to heal",
    },
]
