"""Running the repository's tests: the workspace copy, the test command, runs read per test id
(JUnit, tracebacks), the interpreter, the screening worker, the fresh tree every deciding run
starts from (`freshtree`), and the helpers installed in the sandbox (`runtime/`).

The first stage: may import only the shared modules (`config`, `exceptions`, `events`) and
`selfheal.sandbox`.
"""
