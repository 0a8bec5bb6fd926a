"""Family `disk`: the output folder (the workspace's `.selfheal/`) on a tiny tmpfs that fills up.

The heal runs; writing report.json and the rest does not fit. Wanted: a clear error and exit 1,
no pull request (its body is the summary that could not be written), and no report.json that
looks complete but is cut short.
"""

FAMILY = "disk"
CASES = [
    {"id": "disk-full-out-8k", "title": "the output folder has 8 KiB", "disk_kb": 8,
     "exit": 1, "status": "error", "first_op": "none"},
    {"id": "disk-full-out-24k", "full": True, "title": "the output folder has 24 KiB", "disk_kb": 24,
     "exit": 1, "status": "error", "first_op": "none"},
]  # fmt: skip
