"""The environment a sandboxed command sees: built from an allowlist, never inherited whole.

Secrets reach a sandbox only by being copied into it, so the filter works on names: anything that
looks like a credential is dropped even when a caller passes it explicitly.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

# which names are secrets is decided in one place, for the sandbox and for every output
from selfheal.sandbox.secrets import is_secret_name as is_secret_name

# Enough for interpreters, locales and pytest to behave as they do in a terminal.
INHERITED = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM", "SSL_CERT_FILE", "PIP_CERT")
INHERITED_PREFIXES = ("LC_",)

FIXED = {
    # A mutation may keep a file's size and mtime second; cached bytecode would then be stale.
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "PYTHONHASHSEED": "0",
    "PYTHONNOUSERSITE": "1",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "NO_COLOR": "1",
}


PATH_TOKEN = "${PATH}"


def expand_path(env: Mapping[str, str], default_path: str) -> dict[str, str]:
    """A caller's `PATH` may contain `${PATH}`: the sandbox's own default PATH goes there, so a
    caller can put a folder first without knowing what PATH means inside the sandbox."""
    expanded = dict(env)
    if PATH_TOKEN in expanded.get("PATH", ""):
        expanded["PATH"] = expanded["PATH"].replace(PATH_TOKEN, default_path)
    return expanded


def build_environment(
    *,
    home: str,
    tmpdir: str,
    extra: Mapping[str, str] | None = None,
    source: Mapping[str, str] | None = None,
) -> dict[str, str]:
    source = os.environ if source is None else source
    env = {
        name: value
        for name, value in source.items()
        if name in INHERITED or name.startswith(INHERITED_PREFIXES)
    }
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(FIXED)
    env.update(expand_path(extra or {}, env["PATH"]))
    # Last, so no caller can move them out of the workspace.
    env.update({"HOME": home, "TMPDIR": tmpdir, "TMP": tmpdir, "TEMP": tmpdir})
    return {name: value for name, value in env.items() if not is_secret_name(name)}
