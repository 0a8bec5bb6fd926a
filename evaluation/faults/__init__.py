"""Hostile faults around a heal that publishes: GitHub failing at each call site, signals at each
stage, a full output disk. Cases are data under tests/action/faults/ (read with `ast`); the harness
runs `selfheal action` as the runner does against the fake GitHub (tests/fakes/github_server.py,
started as its own process by path) and judges every case by the same requirements."""
