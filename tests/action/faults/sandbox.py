"""Family `sandbox`: the docker sandbox's container killed (`docker kill`, found by the owner label
the docker backend puts on it: host and selfheal's pid) while the baseline or a validation runs.
Wanted: the run ends with a clear reason, no traceback, no container left, and the next run heals
and publishes."""

FAMILY = "sandbox"
CASES = [
    {"id": "docker-kill-baseline", "full": True, "title": "docker kill while the baseline runs",
     "kill_container": True,
     "stage": "] sandbox:", "inputs": {"sandbox": "docker", "sandbox-image": "selfheal-sandbox:bookworm"},
     "exit": 1, "status": "error", "first_op": "none"},
    {"id": "docker-kill-validation", "title": "docker kill while candidates are validated",
     "kill_container": True, "stage": "] localized:",
     "inputs": {"sandbox": "docker", "sandbox-image": "selfheal-sandbox:bookworm"},
     "exit": 1, "status": "error", "first_op": "none"},
]  # fmt: skip
