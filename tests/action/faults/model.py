"""Family `model`: `selfheal heal --provider anthropic` while the Messages API (the fake,
tests/fakes/anthropic_server.py, through the real SDK) answers every call with a fault: 429 with
retry-after, 529 overloaded, 500, or no answer within the provider timeout (2 s, one SDK retry,
set with --set llm.*). Each model role the heal reaches in turn gets the fault; the heal must go
on with the embedded engine (healed, exit 0) and say why the model stopped, never crash.
"""

FAMILY = "model"
CASES = [
    {"id": "model-429", "full": True, "title": "every model call: 429 rate_limit_error, retry-after 1",
     "model_step": {"status": 429, "repeat": 1000, "headers": {"retry-after": "1"},
                    "body": {"type": "error", "error": {"type": "rate_limit_error",
                                                        "message": "rate limit for your organization"}}},
     "reason": "429"},
    {"id": "model-529", "title": "every model call: 529 overloaded_error",
     "model_step": {"status": 529, "repeat": 1000,
                    "body": {"type": "error",
                             "error": {"type": "overloaded_error", "message": "Overloaded"}}},
     "reason": "529"},
    {"id": "model-500", "full": True, "title": "every model call: 500 api_error",
     "model_step": {"status": 500, "repeat": 1000,
                    "body": {"type": "error",
                             "error": {"type": "api_error", "message": "Internal server error"}}},
     "reason": "500"},
    {"id": "model-timeout", "title": "every model call: no answer within the 2 s timeout",
     "model_step": {"status": 200, "repeat": 1000, "delay": 6, "body": {}},
     "reason": "timed out"},
]  # fmt: skip
