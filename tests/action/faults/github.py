"""Family `github`: the fake GitHub fails at each call site of a `/heal` that heals and publishes.

Each rule is a body of the fake's `POST /_fake/fail` (tests/fakes/github_server.py): `skip` lets
that many matching requests through first, `hang` holds a request past selfheal's GitHub timeout
(3 s in the harness) and drops it unanswered, `after` performs it first (the answer is lost).
A 5xx or a rate limit that passes is retried where that is safe and the heal publishes; one that
lasts ends the run with a clear error (exit 1) and nothing half made; a failure of a courtesy
(reaction, label, review request, progress edit) is a note, never a failed heal.
"""

FAMILY = "github"
CASES = [
    # -- read the repository, the permission, the pull request ----------------------------------
    {"id": "gh-repo-502-once", "full": True, "title": "GET the repository: 502 once",
     "rules": [{"method": "GET", "path_regex": r"/repos/acme/widgets$", "status": 502}]},
    {"id": "gh-permission-500-once", "title": "GET the commenter's permission: 500 once",
     "rules": [{"method": "GET", "path_regex": r"/collaborators/alice/permission", "status": 500}]},
    {"id": "gh-permission-ratelimit", "title": "GET the permission: primary rate limit (remaining 0)",
     "rules": [{"method": "GET", "path_regex": r"/collaborators/alice/permission", "status": 403,
                "rate_limited": True, "rate_limit": "primary", "reset_in": 1}]},
    {"id": "gh-permission-500-lasting", "full": True, "title": "GET the permission: 500 every time",
     "rules": [{"method": "GET", "path_regex": r"/collaborators/alice/permission", "status": 500,
                "times": 50}],
     "exit": 1, "status": "error", "first_op": "none"},
    {"id": "gh-pull-timeout", "title": "GET pulls/7: no answer once",
     "rules": [{"method": "GET", "path_regex": r"/pulls/7$", "hang": 5}]},
    # -- reactions and the progress comment ----------------------------------------------------------
    {"id": "gh-eyes-500", "title": "POST the 👀 reaction: 500",
     "rules": [{"method": "POST", "path_regex": r"/comments/5001/reactions", "status": 500}]},
    {"id": "gh-rocket-ratelimit", "full": True,
     "title": "POST the 🚀 reaction: secondary rate limit (Retry-After)",
     "rules": [{"method": "POST", "path_regex": r"/comments/5001/reactions", "skip": 1, "status": 403,
                "rate_limited": True, "rate_limit": "secondary", "retry_after": 1}]},
    {"id": "gh-progress-create-500", "title": "POST the progress comment: 500",
     "rules": [{"method": "POST", "path_regex": r"/issues/7/comments$", "status": 500}]},
    {"id": "gh-progress-create-timeout-after", "full": True,
     "title": "POST the progress comment: done, answer lost",
     "rules": [{"method": "POST", "path_regex": r"/issues/7/comments$", "hang": 5, "after": True}]},
    {"id": "gh-progress-edit-502-lasting", "title": "PATCH the progress comment: 502 every time",
     "rules": [{"method": "PATCH", "path_regex": r"/issues/comments/\d+$", "status": 502, "times": 50}]},
    # -- git over smart HTTP ----------------------------------------------------------------------------
    {"id": "git-clone-500", "full": True, "title": "the clone's fetch (upload-pack): 500 once",
     "rules": [{"method": "POST", "path_regex": r"\.git/git-upload-pack$", "status": 500}]},
    {"id": "git-fetch-stall", "title": "the clone's fetch gets no answer (a stall, not a closed connection)",
     "rules": [{"method": "POST", "path_regex": r"\.git/git-upload-pack$", "hang": 60}]},
    {"id": "git-push-502", "full": True, "title": "the push (receive-pack): 502",
     "rules": [{"method": "POST", "path_regex": r"\.git/git-receive-pack$", "status": 502}],
     "exit": 1, "status": "error", "first_op": "none"},
    # the push landed and only its answer was lost (the connection hung up): the branch holds this
    # run's commit, which the run finds and uses, so the pull request is opened
    {"id": "git-push-timeout-after", "title": "the push: done, answer lost",
     "rules": [{"method": "POST", "path_regex": r"\.git/git-receive-pack$", "hang": 5, "after": True}],
     "exit": 0, "status": "healed", "first_op": "created"},
    # -- the pull request ----------------------------------------------------------------------------------
    {"id": "gh-find-pulls-500-lasting", "full": True,
     "title": "GET the branch's pull requests: 500 every time",
     "rules": [{"method": "GET", "path_regex": r"/pulls\?.*head=", "status": 500, "times": 50}],
     "exit": 1, "status": "error", "first_op": "none"},
    {"id": "gh-create-pr-500", "title": "POST pulls: 500 (maybe done: not repeated)",
     "rules": [{"method": "POST", "path_regex": r"/repos/acme/widgets/pulls$", "status": 500}],
     "exit": 1, "status": "error", "first_op": "none"},
    {"id": "gh-create-pr-ratelimit", "full": True, "title": "POST pulls: primary rate limit",
     "rules": [{"method": "POST", "path_regex": r"/repos/acme/widgets/pulls$", "status": 403,
                "rate_limited": True, "rate_limit": "primary", "reset_in": 1}]},
    {"id": "gh-create-pr-timeout-after", "title": "POST pulls: done, answer lost",
     "rules": [{"method": "POST", "path_regex": r"/repos/acme/widgets/pulls$", "hang": 5, "after": True}]},
    {"id": "gh-label-500", "title": "POST the label: 500",
     "rules": [{"method": "POST", "path_regex": r"/issues/\d+/labels$", "status": 500}]},
    {"id": "gh-review-403", "full": True, "title": "POST the review request: 403",
     "rules": [{"method": "POST", "path_regex": r"/requested_reviewers$", "status": 403}]},
    # -- the Git Data API (publish-with: api) ------------------------------------------------------------
    {"id": "api-blob-500", "full": True, "title": "publish-with api, POST a blob: 500",
     "inputs": {"publish-with": "api"},
     "rules": [{"method": "POST", "path_regex": r"/git/blobs$", "status": 500}],
     "exit": 1, "status": "error", "first_op": "none"},
    {"id": "api-tree-ratelimit", "full": True, "title": "publish-with api, POST the tree: primary rate limit",
     "inputs": {"publish-with": "api"},
     "rules": [{"method": "POST", "path_regex": r"/git/trees$", "status": 403,
                "rate_limited": True, "rate_limit": "primary", "reset_in": 1}]},
    {"id": "api-ref-timeout-after", "title": "publish-with api, POST the ref: done, answer lost",
     "inputs": {"publish-with": "api"},
     "rules": [{"method": "POST", "path_regex": r"/git/refs$", "hang": 5, "after": True}]},
]  # fmt: skip
