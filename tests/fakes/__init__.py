"""Out-of-process fakes of external services used by the tests (stdlib only)."""
