"""Family `signals`: SIGTERM (a cancelled run) and SIGKILL to `selfheal action` at each stage.

The signal goes when the stage's line shows in the job log: `sandbox:` (the baseline runs next),
`localized:` (the repair), `verdict for` (the new tests), `new tests:` (the output folder, then
publishing). SIGTERM unwinds: a heal it stops writes the report of what it tried (the
`report-path` output), the sandbox is closed, a branch pushed without its pull request is
removed, the requester is told, exit 143. SIGKILL cannot be answered; then nothing may be left
running, and the next run on the same event publishes the one pull request.
"""

FAMILY = "signals"
CASES = [
    {"id": "term-baseline", "full": True, "title": "SIGTERM while the baseline runs", "signal": "TERM",
     "stage": "] sandbox:", "exit": 143, "status": "error", "first_op": "none", "report": "not_healed"},
    {"id": "term-repair", "title": "SIGTERM while the repair runs", "signal": "TERM",
     "stage": "] localized:", "exit": 143, "status": "error", "first_op": "none", "report": "not_healed"},
    {"id": "term-newtests", "full": True, "title": "SIGTERM while the new tests are made", "signal": "TERM",
     "stage": "] verdict for", "exit": 143, "status": "error", "first_op": "none"},
    {"id": "term-publishing", "title": "SIGTERM while publishing", "signal": "TERM",
     "stage": "] new tests:", "exit": 143, "status": "error", "first_op": "none"},
    {"id": "kill-baseline", "title": "SIGKILL while the baseline runs", "signal": "KILL",
     "stage": "] sandbox:", "exit": -9, "status": "", "first_op": ""},
    {"id": "kill-repair", "full": True, "title": "SIGKILL while the repair runs", "signal": "KILL",
     "stage": "] localized:", "exit": -9, "status": "", "first_op": ""},
    {"id": "kill-newtests", "full": True, "title": "SIGKILL while the new tests are made", "signal": "KILL",
     "stage": "] verdict for", "exit": -9, "status": "", "first_op": ""},
    {"id": "kill-publishing", "title": "SIGKILL while publishing", "signal": "KILL",
     "stage": "] new tests:", "exit": -9, "status": "", "first_op": ""},
]  # fmt: skip
