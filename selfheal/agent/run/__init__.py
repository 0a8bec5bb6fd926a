"""Running the repository's tests: the workspace copy, the test command, runs read per test id
(JUnit, tracebacks), the screening worker, and the helpers installed in the sandbox (`runtime/`).

The first stage: imports only `agent.exceptions`, `agent.config` and `selfheal.sandbox`.
"""
