"""The escape corpus: hostile repositories healed by `selfheal heal` in every sandbox backend, judged
on the host.

The cases are data under tests/sandbox/escape/ (one module per family: the attack code that runs
inside the sandbox, and a `CASES` list the harness reads with `ast`, never imports): evaluation
may import only selfheal's agent and sandbox (DESIGN.md), so it reads them by path. The test
(tests/sandbox/test_escape_corpus.py) and `python -m evaluation.escape` both run them through
`harness.run_case` and print the figures with `figures`.
"""
