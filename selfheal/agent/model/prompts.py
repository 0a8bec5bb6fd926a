"""The prompt library: one YAML file per role in `selfheal/prompts/` (DESIGN.md, "Layout").

A prompt file holds

    version: 3                      # bumped by hand when the prompt's meaning changes
    description: one line
    answer: json                    # optional: json (default) | edit_blocks (see agent/editblocks.py)
    system: |                       # string.Template text: $name or ${name}; a literal $ is $$
      ...
    user: |
      ... $function ... $source ...
    schema: {...}                   # the JSON Schema of the answer
    example: {...}                  # optional: one valid answer; must match the schema

Templates are `string.Template`s: substitution only, no expressions, attribute access or code.
The fields a role needs are the names its templates use; two more are filled in by the library:
`$example` (the example answer, as JSON for json answers) and `$shape` (the schema's shape, as
`answers.describe` writes it). Rendering without a needed field, or with one the templates do not
use, is a PromptError naming them.

Each `get` checks the file's mtime and size and re-reads it when they changed, so a long-running
bot picks up an edited prompt without a restart. `Prompt.hash` (sha256 of the file bytes, first 12
hex digits) and `version` go into the trace with every call that used the prompt.
"""

from __future__ import annotations

import hashlib
import json
import os
import string
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfheal.agent.exceptions import PromptError
from selfheal.agent.model.answershape import describe
from selfheal.agent.model.llm.base import Message
from selfheal.agent.model.untrusted import fenced

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"
REQUIRED_KEYS = ("version", "description", "system", "user", "schema")
OPTIONAL_KEYS = ("answer", "example")
ANSWER_FORMATS = ("json", "edit_blocks")
BUILTIN_FIELDS = frozenset({"example", "shape"})


@dataclass(frozen=True)
class Prompt:
    role: str
    path: Path
    version: str
    description: str
    system: str
    user: str
    schema: dict[str, Any]
    answer: str  # "json" | "edit_blocks"
    example: Any
    hash: str  # sha256 of the file's bytes, first 12 hex digits
    fields: frozenset[str]  # what render() needs

    def render(self, **values: object) -> list[Message]:
        """The system and user messages with `values` substituted (None renders as "(none)")."""
        missing = sorted(self.fields - values.keys())
        unknown = sorted(values.keys() - self.fields)
        if missing or unknown:
            problems = []
            if missing:
                problems.append(f"missing field(s) {', '.join(missing)}")
            if unknown:
                problems.append(f"unknown field(s) {', '.join(unknown)}")
            raise PromptError(
                f"prompt {self.role!r} ({self.path}): {'; '.join(problems)}; "
                f"it takes exactly: {', '.join(sorted(self.fields)) or '(no fields)'}"
            )
        # every value is data: no fence tag in it, in any spelling, may close its fence
        mapping = {name: "(none)" if value is None else fenced(str(value)) for name, value in values.items()}
        mapping["example"] = self._example_text()
        mapping["shape"] = describe(self.schema)
        return [
            Message("system", string.Template(self.system).substitute(mapping)),
            Message("user", string.Template(self.user).substitute(mapping)),
        ]

    def trace(self) -> dict[str, str]:
        return {"role": self.role, "version": self.version, "hash": self.hash}

    def _example_text(self) -> str:
        if self.example is None:
            return "(no example)"
        if isinstance(self.example, str):
            return self.example.rstrip("\n")
        return json.dumps(self.example, ensure_ascii=False)


class PromptLibrary:
    """The prompts of a folder, re-read when a file changes on disk. Safe to share between threads."""

    def __init__(self, folder: Path | str | None = None) -> None:
        self.folder = Path(folder) if folder is not None else PROMPTS_DIR
        self._cache: dict[str, tuple[tuple[int, int], Prompt]] = {}
        self._lock = threading.Lock()

    def roles(self) -> tuple[str, ...]:
        return tuple(sorted(path.stem for path in self.folder.glob("*.yaml")))

    def get(self, role: str) -> Prompt:
        path = self.folder / f"{role}.yaml"
        try:
            stat = os.stat(path)
        except OSError as exc:
            raise PromptError(
                f"no prompt for role {role!r}: cannot read {path} ({exc.strerror}); "
                f"roles in {self.folder}: {', '.join(self.roles()) or '(none)'}"
            ) from None
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._cache.get(role)
            if cached is not None and cached[0] == stamp:
                return cached[1]
            prompt = load_prompt(path)
            self._cache[role] = (stamp, prompt)
            return prompt

    def render(self, role: str, **values: object) -> list[Message]:
        return self.get(role).render(**values)

    def version(self, role: str) -> str:
        return self.get(role).version

    def hash(self, role: str) -> str:
        return self.get(role).hash

    def check(self, roles: tuple[str, ...] | None = None) -> tuple[Prompt, ...]:
        """Load every role (by default every file in the folder); one PromptError lists all problems."""
        prompts, problems = [], []
        for role in roles if roles is not None else self.roles():
            try:
                prompts.append(self.get(role))
            except PromptError as exc:
                problems.append(str(exc))
        if problems:
            raise PromptError("\n".join(problems))
        return tuple(prompts)


def load_prompt(path: Path) -> Prompt:
    """Read and validate one prompt file; every problem is a PromptError naming the path."""
    # imported here, where a prompt is read: a heal without a model reads none, and the two
    # cost every heal process about a tenth of a CPU-second to import
    import jsonschema
    import yaml

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PromptError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        document = yaml.safe_load(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise PromptError(f"{path}: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        raise PromptError(f"{path}: not valid YAML: {exc}") from None

    def fail(message: str) -> PromptError:
        return PromptError(f"{path}: {message}")

    if not isinstance(document, dict):
        raise fail("expected a mapping with keys " + ", ".join(REQUIRED_KEYS))
    missing = [key for key in REQUIRED_KEYS if key not in document]
    if missing:
        raise fail(f"missing key(s) {', '.join(missing)}")
    unknown = sorted(set(document) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS))
    if unknown:
        raise fail(
            f"unknown key(s) {', '.join(map(str, unknown))}; allowed: "
            f"{', '.join(REQUIRED_KEYS + OPTIONAL_KEYS)}"
        )
    version = document["version"]
    if isinstance(version, bool) or not isinstance(version, (str, int, float)) or str(version) == "":
        raise fail("version must be a number or a non-empty string")
    for key in ("description", "system", "user"):
        if not isinstance(document[key], str) or not document[key].strip():
            raise fail(f"{key} must be a non-empty string")
    fields: set[str] = set()
    for key in ("system", "user"):
        template = string.Template(document[key])
        if not template.is_valid():
            raise fail(f"{key}: invalid $ placeholder (write $$ for a literal dollar sign)")
        fields |= set(template.get_identifiers())

    schema = document["schema"]
    if not isinstance(schema, dict):
        raise fail("schema must be a mapping (a JSON Schema)")
    validator_class = jsonschema.validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(part) for part in exc.absolute_path) or "(top)"
        raise fail(f"schema is not a valid JSON Schema at {where}: {exc.message}") from None

    answer = document.get("answer", "json")
    if answer not in ANSWER_FORMATS:
        raise fail(f"answer must be one of {', '.join(ANSWER_FORMATS)}, not {answer!r}")
    example = document.get("example")
    if example is not None:
        if answer == "edit_blocks" and not isinstance(example, str):
            raise fail("example of an edit_blocks answer must be a string (the answer text)")
        if answer == "json":
            error = jsonschema.exceptions.best_match(validator_class(schema).iter_errors(example))
            if error is not None:
                raise fail(f"example does not match the schema: {error.message}")

    return Prompt(
        role=path.stem,
        path=path,
        version=str(version),
        description=document["description"].strip(),
        system=document["system"],
        user=document["user"],
        schema=schema,
        answer=answer,
        example=example,
        hash=hashlib.sha256(data).hexdigest()[:12],
        fields=frozenset(fields - BUILTIN_FIELDS),
    )


def takes_hint(prompts: PromptLibrary, role: str) -> bool:
    """Whether the role's prompt has a $hint field: the bundled debugger and generator do; a
    prompt folder of one's own (--prompts) written before hints existed renders without one."""
    return "hint" in prompts.get(role).fields
