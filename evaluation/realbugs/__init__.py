"""Real bugs: fixes that released pure-Python packages shipped, rebuilt from their PyPI sdists.

`manifest.toml` names each bug (package, buggy and fixed release, the files the fix touched, the
failing tests); `python -m evaluation.realbugs` downloads both sdists into a cache outside git and
builds each bug as a benchmark task in the layout of `evaluation/tasks/`, verified by pytest runs.
No third-party code is kept in this repository.
"""
