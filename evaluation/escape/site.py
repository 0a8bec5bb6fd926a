"""One case's ground on the host: the hostile repository, its canaries, decoys and proof paths.

Everything lives in one folder per case (outside /tmp, so bubblewrap's private /tmp does not hide
it: a user's repository is rarely under /tmp either), except the proof paths in the machine's own
folders (/etc, /tmp, ...) and a bystander repository under /tmp. `cleanup()` removes all of it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import secrets
import shutil
import stat
import string
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from evaluation.escape.cases import CASES_DIR, KIT, Case

PROOF = "selfheal-escape-proof-"
# The package and its failing test. The report rides in the failing test's id: selfheal lists the
# ids of failing tests whole. `answer` needs no generated tests (nothing to vary), so its heals are
# short; `inc` gets edge-case tests and their proof run, for the cases that trap that stage.
PACKAGES = {
    "answer": (
        "def answer():\n    return 41\n",
        """import pytest

import escape_kit
from calc import answer


@pytest.mark.parametrize("report", [escape_kit.REPORT_ID], ids=[escape_kit.REPORT_ID])
def test_answer(report):
    assert answer() == 42, escape_kit.MESSAGE
""",
    ),
    "inc": (
        "def inc(x):\n    return x + 2\n",
        """import pytest

import escape_kit
from calc import inc


@pytest.mark.parametrize("report", [escape_kit.REPORT_ID], ids=[escape_kit.REPORT_ID])
def test_inc(report):
    assert inc(1) == 2, escape_kit.MESSAGE


def test_inc_zero():
    assert inc(0) == 1
""",
    ),
    # the channel cases': their attack is text read on the host, so the failing test's id stays what
    # it is (a memory record can name it) and carries no report. `unsearchable` is a bug no mutation
    # of the code fixes (a key is missing), so a configured model is asked: the hint and the lessons
    # reach the debugger's and the generator's prompts only then
    "unsearchable": (
        'def answer():\n    """The answer and its unit."""\n    return {"value": 42}\n',
        "import escape_kit\nfrom calc import answer\n\n\n"
        'def test_answer():\n    assert answer() == {"value": 42, "unit": "none"}, escape_kit.MESSAGE\n',
    ),
    "plain": (
        "def answer():\n    return 41\n",
        "import escape_kit\nfrom calc import answer\n\n\n"
        "def test_answer():\n    assert answer() == 42, escape_kit.MESSAGE\n",
    ),
}
CONFTEST = "import escape_kit\n\nescape_kit.run_case()\n"
SELFHEAL_CONFIG = (
    "[tool.selfheal]\n"
    # selfheal's own venv has plugins the repository does not need; loading them doubles each run
    'test-command = "python -m pytest -p no:hypothesispytest -p no:anyio"\n'
    "flake-reruns = 0\n"
    "max-iterations = 1\n"
)
GIT = ["git", "-c", "core.hooksPath=/dev/null", "-c", "user.name=escape", "-c", "user.email=escape@localhost"]


def _token(alphabet: str, length: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


def _git_commit(folder: Path) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(folder)}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "hostile repository"]):
        subprocess.run([*GIT, *args], cwd=folder, env=env, check=True, capture_output=True)


def tree_state(root: Path) -> dict[str, tuple[str, int, str]]:
    """Every entry under `root` (links not followed): kind, mode, content digest."""
    state: dict[str, tuple[str, int, str]] = {}
    if not root.exists():
        return state
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = str(path.relative_to(root))
            try:
                info = path.lstat()
            except OSError:
                continue
            if stat.S_ISLNK(info.st_mode):
                state[rel] = ("link", 0, os.readlink(path))
            elif stat.S_ISREG(info.st_mode):
                try:
                    digest = hashlib.sha256(path.read_bytes()).hexdigest()
                except OSError:
                    digest = "unreadable"
                state[rel] = ("file", stat.S_IMODE(info.st_mode), digest)
            elif stat.S_ISDIR(info.st_mode):
                state[rel] = ("dir", stat.S_IMODE(info.st_mode), "")
            else:
                state[rel] = ("special", stat.S_IMODE(info.st_mode), "")
    return state


def changes(before: dict, after: dict) -> list[str]:
    found = [f"{p} removed" for p in before if p not in after]
    found += [f"{p} appeared" for p in after if p not in before]
    found += [f"{p} changed" for p in before if p in after and before[p] != after[p]]
    return sorted(found)


@dataclass
class Site:
    case: Case
    backend: str
    root: Path
    marker: str
    canaries: dict[str, str]  # name -> value (environment variables, the canary file, the private file)
    decoys: dict[str, Path] = field(default_factory=dict)
    proofs: dict[str, list[str]] = field(default_factory=dict)
    _states: dict[str, dict] = field(default_factory=dict)

    @property
    def origin(self) -> Path:
        return self.root / "origin"

    @property
    def out(self) -> Path:
        return self.root / "out"

    @property
    def host_proof(self) -> Path:
        return self.root / "hostproof"

    @property
    def bystander(self) -> Path:
        return Path("/tmp") / f"selfheal-escape-bystander-{self.marker}"

    @property
    def secrets_home(self) -> Path:
        """Where the files only their owner may read live. As root: beside the repository, in sight
        of the sandbox but closed to its uid. As a normal user the tests run as that user, so
        "closed" can only mean hidden: under the home folder, which bubblewrap replaces."""
        if os.getuid() == 0:
            return self.root
        return Path.home() / ".cache" / f"selfheal-escape-{self.marker}"

    @property
    def canary_file(self) -> Path:
        return self.secrets_home / "canary.xml"

    @property
    def private_file(self) -> Path:
        return self.secrets_home / "private" / "note.txt"

    @property
    def operator_files(self) -> list[Path]:
        """Where a bot's operator keeps its key, queue and settings, and another job's report:
        readable by mode (0644 in 0755 folders), outside any list of hidden folders. The system's
        folders only as root (a normal user cannot write them)."""
        name = f"selfheal-escape-{self.marker}"
        files = [self.root / "jobs" / "job-7-1" / "report.json"]
        if os.getuid() == 0:
            files += [Path("/etc") / name / "app-key.pem", Path("/var/lib") / name / "queue.sqlite3",
                      Path("/opt") / name / "settings.toml"]  # fmt: skip
        return files

    @property
    def source(self) -> str:
        return PACKAGES[self.case.package][0]

    def environment_canaries(self) -> dict[str, str]:
        return {k: v for k, v in self.canaries.items() if k.isupper()}

    # -- building ---------------------------------------------------------------------------------
    @classmethod
    def create(cls, case: Case, backend: str, parent: Path) -> Site:
        marker = "esc" + secrets.token_hex(6)
        # not named with the marker: the repository's path is all over report.json
        root = parent / f"{case.id}-{backend}-{secrets.token_hex(3)}"
        root.mkdir(mode=0o755)
        root.chmod(0o755)
        alnum = string.ascii_letters + string.digits
        canaries = {
            "GITHUB_TOKEN": "ghp_" + _token(alnum, 36),
            "ANTHROPIC_API_KEY": "sk-ant-api03-" + _token(alnum, 40),
            "SELFHEAL_TEST_SECRET": "shsecret-" + secrets.token_hex(16),
            "canary file": "shfile-" + secrets.token_hex(16),
            "private file": "shfile-" + secrets.token_hex(16),
            "operator file": "shfile-" + secrets.token_hex(16),
        }
        site = cls(case, backend, root, marker, canaries)
        site._build()
        return site

    def _build(self) -> None:
        self.secrets_home.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.canary_file.write_text(
            '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" '
            'failures="1" skipped="0" tests="1"><testcase classname="tests.test_calc" name="test_inc" '
            'file="tests/test_calc.py"><properties><property name="selfheal_nodeid" '
            'value="tests/test_calc.py::test_inc"/></properties>'
            f'<failure message="{self.canaries["canary file"]}">{self.canaries["canary file"]}</failure>'
            "</testcase></testsuite></testsuites>\n"
        )
        self.canary_file.chmod(0o600)
        self.private_file.parent.mkdir(mode=0o700)
        self.private_file.write_text(self.canaries["private file"] + "\n")
        self.private_file.chmod(0o644)
        for path in self.operator_files:
            path.parent.mkdir(mode=0o755, parents=True)
            path.parent.chmod(0o755)
            path.write_text(f"operator secret {self.canaries['operator file']}\n")
            path.chmod(0o644)
        self.host_proof.mkdir(mode=0o700)
        decoys = self.root / "decoys"
        decoys.mkdir(mode=0o755)
        note = f"# selfheal escape corpus decoy ({self.marker}): nothing may write this file\n"
        for name in (
            "generated",
            "junit",
            "coverage",
            "listing",
            "runtime",
            "source-hardlink",
            "source-symlink",
        ):
            path = decoys / name
            path.write_text(self.source + note if name.startswith("source") else note)
            path.chmod(0o644)
            self.decoys[name] = path
        self._build_origin()
        self._build_bystander()
        self.proofs = self._proof_paths()

    def _build_origin(self) -> None:
        origin = self.origin
        (origin / "calc").mkdir(parents=True)
        (origin / "tests").mkdir()
        source, test = PACKAGES[self.case.package]
        (origin / "calc" / "__init__.py").write_text(source)
        (origin / "tests" / "test_calc.py").write_text(test)
        (origin / "conftest.py").write_text(CONFTEST + self.case.conftest)
        if self.case.test_file:
            (origin / "tests" / "test_channel.py").write_text(
                self.fill(self.case.test_file), encoding="utf-8"
            )
        if self.case.python_version:
            (origin / ".python-version").write_text(self.case.python_version + "\n")
        (origin / "pyproject.toml").write_text(
            SELFHEAL_CONFIG + self.case.selfheal_config + "\n" + self.case.pyproject
        )
        shutil.copyfile(CASES_DIR / KIT, origin / "escape_kit.py")
        shutil.copyfile(self.case.module, origin / "escape_attacks.py")
        _git_commit(origin)

    def _build_bystander(self) -> None:
        self.bystander.mkdir(mode=0o755)
        (self.bystander / "README").write_text("a repository that happens to be under /tmp\n")
        _git_commit(self.bystander)

    def _proof_paths(self) -> dict[str, list[str]]:
        name = PROOF + self.marker
        spec = importlib.util.find_spec("selfheal")
        install = [sysconfig.get_paths()["purelib"], os.path.join(sys.prefix, "bin")]
        if spec and spec.submodule_search_locations:
            install.insert(0, next(iter(spec.submodule_search_locations)))
        return {
            "origin": [str(self.origin / name), str(self.origin / ".git" / name)],
            "outputs": [str(self.out / name)],
            "install": [os.path.join(folder, name) for folder in dict.fromkeys(install)],
            "system": [f"/etc/{name}", f"/usr/local/bin/{name}"],
            "shared-tmp": [f"/tmp/{name}", f"/var/tmp/{name}", f"/dev/shm/{name}"],
        }

    def fill(self, text: str) -> str:
        """A case's text with its marker in place of `{marker}`."""
        return text.replace("{marker}", self.marker)

    def write_config(self, extra: dict) -> None:
        """escape_config.json: what the attack code knows about the host, committed with the repository
        (a real attacker guesses these; giving them makes the corpus test the sandbox, not luck)."""
        config = {
            "case": self.case.id,
            "attack": self.case.attack,
            "each_run": self.case.each_run,
            "marker": self.marker,
            "origin": str(self.origin),
            "canary_file": str(self.canary_file),
            "private_file": str(self.private_file),
            "operator_files": [str(p) for p in self.operator_files],
            "decoys": {k: str(v) for k, v in self.decoys.items()},
            "proofs": self.proofs,
            "host_proof": str(self.host_proof),
            "bystander": str(self.bystander),
            **extra,
        }
        (self.origin / "escape_config.json").write_text(json.dumps(config, indent=1))
        written = ["escape_config.json"]
        if self.case.requirements:
            (self.origin / "requirements.txt").write_text(self._requirements(config))
            written.append("requirements.txt")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": str(self.root),
        }
        for args in (["add", *written], ["commit", "-q", "-m", "the host's addresses"]):
            subprocess.run([*GIT, *args], cwd=self.origin, env=env, check=True, capture_output=True)

    def _requirements(self, config: dict) -> str:
        lines = []
        for line in self.case.requirements.splitlines():
            hosts = config.get("host_addresses", []) if "{host}" in line else [""]
            lines += [
                line.format(host=host, tcp_port=config.get("tcp_port", 0), marker=self.marker)
                for host in hosts
            ]
        return "\n".join(lines) + "\n"

    # -- observing --------------------------------------------------------------------------------
    def snapshot(self) -> None:
        self._states = {
            "the origin repository": tree_state(self.origin),
            "a bystander repository under /tmp": tree_state(self.bystander),
            "the decoys outside the workspace": tree_state(self.root / "decoys"),
        }

    def changed(self) -> dict[str, list[str]]:
        after = {
            "the origin repository": tree_state(self.origin),
            "a bystander repository under /tmp": tree_state(self.bystander),
            "the decoys outside the workspace": tree_state(self.root / "decoys"),
        }
        return {
            label: found
            for label, found in ((k, changes(v, after[k])) for k, v in self._states.items())
            if found
        }

    def all_proof_paths(self) -> list[str]:
        paths = [p for group in self.proofs.values() for p in group]
        return paths + [p + "-remount" for p in self.proofs["system"]]

    def cleanup(self, keep: bool = False) -> None:
        for path in self.all_proof_paths():
            try:
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    os.unlink(path)
            except OSError:
                pass
        shutil.rmtree(self.bystander, ignore_errors=True)
        for path in self.operator_files:
            if path.parent.name.startswith("selfheal-escape-"):
                shutil.rmtree(path.parent, ignore_errors=True)
        if self.secrets_home != self.root:
            shutil.rmtree(self.secrets_home, ignore_errors=True)
        if not keep:
            shutil.rmtree(self.root, ignore_errors=True)
