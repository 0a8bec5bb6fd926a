"""Time travel: the state at the start of each repair round, saved in the run folder.

    <run>/checkpoints/iteration-<N>.json      written by the loop as round N begins
    Checkpoint.load(run, N) -> Checkpoint       what `selfheal replay RUN --from-iteration N` resumes

A checkpoint holds what the rounds carry from one to the next (the fixes accepted so far, the
tests still failing) and the configuration the run had, so a replay can change one thing (another
model, another prompt folder, a larger budget) and run the rest again. It holds source text of
the repository and settings, never a key: the configuration names key variables, not keys.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from selfheal.agent.config import HealConfig
from selfheal.agent.exceptions import ConfigError
from selfheal.agent.model.llm.settings import Price, ProviderSettings, RoleOverride
from selfheal.agent.repair.edits import Candidate, Edit
from selfheal.sandbox.secrets import Scrubber, process_scrubber

VERSION = 1
FOLDER = "checkpoints"


@dataclass(frozen=True)
class Checkpoint:
    iteration: int  # the round that starts from this state
    repo: str
    base_sha: str
    config: dict[str, Any]  # `config_to_dict` of the run's HealConfig
    accepted: dict[str, str] = field(default_factory=dict)  # path -> text, the fixes so far
    remaining: tuple[str, ...] = ()  # tests the next round aims at
    fixes: tuple[Candidate, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "iteration": self.iteration,
            "repo": self.repo,
            "base_sha": self.base_sha,
            "config": self.config,
            "accepted": self.accepted,
            "remaining": list(self.remaining),
            "fixes": [candidate_to_dict(c) for c in self.fixes],
        }

    def save(self, run_dir: Path, scrubber: Scrubber | None = None) -> Path:
        """Write it, scrubbed of secret values; one that needed masking says so (`masked`), since
        resuming from text with a hole in it would not be the run it claims to continue."""
        path = run_dir / FOLDER / f"iteration-{self.iteration}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        data = self.as_dict()
        if scrubber is not None:
            clean = scrubber.scrub_data(data)
            data = clean if clean == data else {**clean, "masked": True}
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, run_dir: Path, iteration: int) -> Checkpoint:
        path = run_dir / FOLDER / f"iteration-{iteration}.json"
        if not path.is_file():
            found = sorted(
                p.stem.removeprefix("iteration-") for p in (run_dir / FOLDER).glob("iteration-*.json")
            )
            raise ConfigError(
                f"no checkpoint for iteration {iteration} in {run_dir}"
                + (f"; it has iterations {', '.join(found)}" if found else "; it has no checkpoints")
            )
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") != VERSION:
                raise ConfigError(f"{path}: checkpoint version {data.get('version')!r}, expected {VERSION}")
            if data.get("masked"):
                raise ConfigError(
                    f"{path}: text that looked like a secret was masked in this checkpoint when it was "
                    "saved, so it cannot be resumed exactly; replay from an earlier iteration"
                )
            return cls(
                iteration=int(data["iteration"]),
                repo=str(data["repo"]),
                base_sha=str(data["base_sha"]),
                config=dict(data["config"]),
                accepted={str(k): str(v) for k, v in data["accepted"].items()},
                remaining=tuple(str(t) for t in data["remaining"]),
                fixes=tuple(candidate_from_dict(c) for c in data["fixes"]),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"{path}: not a readable checkpoint ({exc})") from exc


class CheckpointFolder:
    """Where the loop saves checkpoints: the run's output folder."""

    def __init__(self, run_dir: Path, scrubber: Scrubber | None = None) -> None:
        self.run_dir = run_dir
        self.scrubber = scrubber or process_scrubber()

    def save(self, checkpoint: Checkpoint) -> None:
        checkpoint.save(self.run_dir, self.scrubber)


def candidate_to_dict(candidate: Candidate) -> dict[str, Any]:
    return {
        "edits": [[e.file, e.start, e.end, e.text] for e in candidate.edits],
        "family": candidate.family,
        "description": candidate.description,
        "file": candidate.file,
        "line": candidate.line,
        "function": candidate.function,
        "score": candidate.score,
        "strategy": candidate.strategy,
    }


def candidate_from_dict(data: dict[str, Any]) -> Candidate:
    return Candidate(
        edits=tuple(Edit(str(f), int(s), int(e), str(t)) for f, s, e, t in data["edits"]),
        family=str(data["family"]),
        description=str(data["description"]),
        file=str(data["file"]),
        line=int(data["line"]),
        function=str(data["function"]),
        score=float(data["score"]),
        strategy=str(data["strategy"]),
    )


# -- the configuration, as JSON and back -------------------------------------------------------------
def config_to_dict(config: HealConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(config):
        value = getattr(config, f.name)
        if f.name == "llm":
            value = settings_to_dict(value)
        elif isinstance(value, Path):
            value = str(value)
        elif isinstance(value, tuple):
            value = list(value)
        elif f.name == "extra":
            value = {k: v for k, v in value.items() if isinstance(v, str | int | float | bool)}
        out[f.name] = value
    return out


def config_from_dict(data: dict[str, Any]) -> HealConfig:
    known = {f.name: f for f in fields(HealConfig)}
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        if name not in known:
            continue  # a field of an older release
        if name == "llm":
            value = settings_from_dict(value)
        elif name in ("repo", "out_dir", "memory_path") and value is not None:
            value = Path(value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[name] = value
    return HealConfig(**kwargs)


def settings_to_dict(settings: ProviderSettings) -> dict[str, Any]:
    return {
        "provider": settings.provider,
        "model": settings.model,
        "base_url": settings.base_url,
        "api_key_env": settings.api_key_env,
        "timeout": settings.timeout,
        "max_retries": settings.max_retries,
        "context_tokens": settings.context_tokens,
        "temperature": settings.temperature,
        "schema_via": settings.schema_via,
        "roles": {
            role: {"provider": o.provider, "model": o.model, "base_url": o.base_url}
            for role, o in settings.roles.items()
        },
        "prices": {
            name: [p.input_per_mtok, p.output_per_mtok, p.cache_write_per_mtok, p.cache_read_per_mtok]
            for name, p in settings.prices.items()
        },
    }


def settings_from_dict(data: dict[str, Any]) -> ProviderSettings:
    roles = {role: RoleOverride(**override) for role, override in data.get("roles", {}).items()}
    prices = {name: Price(*values) for name, values in data.get("prices", {}).items()}
    plain = {k: v for k, v in data.items() if k not in ("roles", "prices")}
    return ProviderSettings(**plain, roles=roles, **({"prices": prices} if prices else {}))


# -- replay's --set ---------------------------------------------------------------------------------
_NOT_SETTABLE = {"repo", "extra", "llm", "out_dir", "apply"}


def with_overrides(config: HealConfig, assignments: list[str]) -> HealConfig:
    """The configuration with `KEY=VALUE` changes, as `selfheal replay --set` takes them:

    max_candidates=200       a HealConfig field (dashes or underscores), typed like its value
    provider=ollama          the main provider
    llm.model=qwen2.5-coder:14b    a model setting (model, base_url, timeout, context_tokens, ...)
    role.generator=ollama:qwen2.5-coder:7b    a role's provider and model
    prompts=path/to/folder   another prompt folder (another version of the prompts)
    """
    from dataclasses import replace

    from selfheal.agent.model.llm.settings import parse_role_spec

    for assignment in assignments:
        key, equals, value = assignment.partition("=")
        key = key.strip().replace("-", "_")
        if not equals or not key:
            raise ConfigError(f"--set {assignment!r}: expected KEY=VALUE")
        if key.startswith("role."):
            role, override = parse_role_spec(f"{key.removeprefix('role.')}={value}")
            config = replace(config, llm=replace(config.llm, roles={**config.llm.roles, role: override}))
        elif key.startswith("llm."):
            name = key.removeprefix("llm.")
            current = settings_to_dict(config.llm)
            if name not in current or name in ("roles", "prices", "provider"):
                raise ConfigError(
                    f"--set {key}: not a model setting; settable: "
                    + ", ".join(sorted(k for k in current if k not in ("roles", "prices", "provider")))
                )
            current[name] = _typed(key, value, current[name])
            config = replace(config, llm=settings_from_dict(current))
        elif key == "prompts":
            config = replace(config, extra={**config.extra, "prompts": value})
        else:
            known = {f.name: f for f in fields(config)}
            if key not in known or key in _NOT_SETTABLE:
                settable = sorted(k.replace("_", "-") for k in known if k not in _NOT_SETTABLE)
                raise ConfigError(
                    f"--set {key}: unknown; settable: {', '.join(settable)}, llm.*, role.*, prompts"
                )
            config = replace(config, **{key: _typed(key, value, getattr(config, key))})
    return config


def _typed(key: str, text: str, current: Any) -> Any:
    text = text.strip()
    try:
        if isinstance(current, bool):
            if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(text)
            return text.lower() in ("true", "1", "yes")
        if isinstance(current, int):
            return int(text)
        if isinstance(current, float):
            return float(text)
        if isinstance(current, tuple):
            return tuple(p.strip() for p in text.split(",") if p.strip())
    except ValueError as exc:
        raise ConfigError(f"--set {key}={text}: expected a {type(current).__name__}") from exc
    if current is None and text.lower() in ("none", "null", ""):
        return None
    if current is None:
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                continue
    return text
