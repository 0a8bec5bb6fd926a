"""The docker backend: one locked-down container per heal, `exec` per command.

    volume  selfheal-<id>-ws    a tmpfs of the workspace's size + the disk limit, at
                                /sandbox/workspace (the repo copy): full is full, in the kernel
    volume  selfheal-<id>-deps  at /sandbox/deps (a venv): written by the setup container only,
                                read-only for every command of the repo
    main container   network none, read-only root, tmpfs /tmp, uid 1000, no capabilities,
                     no-new-privileges, memory / CPU / pids / file-size limits, docker's init
    setup container  same image and limits, but with the default network, run once before any
                     repo code: installs the repo's dependencies into /sandbox/deps and exits

Every command of the repo runs in the main container, which never had a network. Files travel
through the API as tar archives (`put_archive` / `get_archive`), so nothing depends on host paths:
inside a GitHub container action the sandbox is a sibling container and this still works.

Containers and volumes carry labels with the owner (host and pid) and an expiry; a run killed
before its `close()` leaves them behind, and the next start removes them.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import posixpath
import socket
import struct
import tarfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from selfheal.sandbox.base import ExecResult, Isolation, Limits, SandboxInfo
from selfheal.sandbox.dependencies import (
    SetupPlan,
    build_requirements,
    declared_requirements,
    default_image,
    plan_setup,
)
from selfheal.sandbox.env import FIXED, expand_path, is_secret_name
from selfheal.sandbox.exceptions import LimitExceeded, SandboxUnavailable, SessionLost, SetupFailed
from selfheal.sandbox.incontainer import BUILD, KILLER, METADATA, RUNNER, SERVER
from selfheal.sandbox.local import STATE_DIR
from selfheal.sandbox.output import CappedBuffer, LineQueue, capped_text

MOUNT = "/sandbox"
WORKSPACE = f"{MOUNT}/workspace"
DEPS = f"{MOUNT}/deps"
VENV = f"{DEPS}/venv"
BUILD_DIR = f"{MOUNT}/build"  # a volume between the build and the install of the local projects
WHEELS = f"{BUILD_DIR}/wheels"
REQUIREMENTS = f"{DEPS}/requirements"  # the requirement files as classified, for pip to read
# Where every set-up step starts: a tmpfs of its own container, empty. `python -m` puts its
# working folder first on sys.path, and pip reads a relative path from it: a folder of the
# repository's files there would be imported in place of pip (or of a module pip imports), or
# installed, in a step with a network or with the dependencies writable.
SETUP_CWD = "/tmp"
USER = "1000:1000"
UID = 1000
LABEL = "selfheal.sandbox"
OWNER_LABEL = "selfheal.owner"
# The owner's pid means something only in its own pid namespace: a selfheal in a container run
# with the host's network shares the host's name but not its pids, and must not take another's
# live container for one whose owner died.
OWNER_PIDNS_LABEL = "selfheal.owner-pidns"
EXPIRES_LABEL = "selfheal.expires"
CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
GRACE_S = 10.0
MiB = 1024 * 1024
TMP_MB = 512
# The workspace is full when less than this is left: what it takes for a test to fail on it.
FULL_BELOW = 2 * MiB


def docker_client(timeout: float = 60) -> Any:
    """A client for the engine DOCKER_HOST names (or the local socket); raises if none answers."""
    try:
        import docker
    except ImportError as exc:
        raise SandboxUnavailable("the docker Python package is not installed") from exc
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except Exception as exc:  # any failure here means "no engine answers"
        where = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
        raise SandboxUnavailable(
            f"no Docker engine answers at {where}: {exc}", plain="no Docker engine answers"
        ) from exc
    return client


def engine_answers() -> bool:
    try:
        docker_client(timeout=5)
    except SandboxUnavailable:
        return False
    return True


def remove_leftovers(client: Any) -> list[str]:
    """Remove containers and volumes of selfheal runs that died without cleaning up."""
    removed = []
    host, pidns = socket.gethostname(), pid_namespace()
    now = time.time()
    for kind, items in (
        # another selfheal on the same engine may remove one of them between the listing and its
        # inspection: gone is what this wants, not an error
        ("container", client.containers.list(all=True, filters={"label": LABEL}, ignore_removed=True)),
        ("volume", client.volumes.list(filters={"label": LABEL})),
    ):
        for item in items:
            labels = (
                (item.attrs.get("Config") or {}).get("Labels")
                if kind == "container"
                else item.attrs.get("Labels")
            )
            if _abandoned(labels or {}, host, pidns, now):
                with contextlib.suppress(Exception):
                    item.remove(force=True)
                    removed.append(item.name)
    return removed


def pid_namespace() -> str:
    """This process's pid namespace, as the kernel names it (empty when /proc does not say)."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def _abandoned(labels: dict[str, str], host: str, pidns: str, now: float) -> bool:
    owner_host, _, owner_pid = labels.get(OWNER_LABEL, "").rpartition(":")
    # a container from before the namespace label: its owner's namespace is taken to be ours
    same_pids = labels.get(OWNER_PIDNS_LABEL, pidns) == pidns != ""
    if owner_host == host and same_pids and owner_pid.isdigit() and not Path(f"/proc/{owner_pid}").exists():
        return True
    try:
        return float(labels.get(EXPIRES_LABEL, "inf")) < now
    except ValueError:
        return False


class DockerSandbox:
    """`Sandbox` backend running every command in one locked-down container per heal."""

    interpreter_inside = True

    def __init__(
        self,
        image: str | None = None,
        limits: Limits | None = None,
        *,
        setup_command: str | None = None,
        ca_bundle: str | None = None,
        allow_direct_requirements: bool = False,
        setup_timeout: float = 900.0,
        lifetime_s: float = 6 * 3600,
        client: Any = None,
    ) -> None:
        self.image = image
        self.limits = limits or Limits()
        self.setup_command = setup_command
        self.ca_bundle = ca_bundle
        # the operator's: may the repository's requirements name another index, a VCS checkout
        # or a URL for the networked set-up (dependencies.py)
        self.allow_direct_requirements = allow_direct_requirements
        self.setup_timeout = setup_timeout
        self.lifetime_s = lifetime_s
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = docker_client()
        return self._client

    def image_for(self, workspace: Path) -> str:
        return self.image or default_image(workspace)

    def ensure_image(self, image: str) -> None:
        import docker.errors

        try:
            self.client.images.get(image)
            return
        except docker.errors.ImageNotFound:
            pass
        except docker.errors.APIError as exc:
            raise SandboxUnavailable(
                f"cannot inspect image {image}: {exc}",
                plain=f"the Docker image {image} could not be inspected",
            ) from exc
        repository, _, tag = image.rpartition(":") if ":" in image.split("/")[-1] else (image, "", "")
        try:
            self.client.images.pull(repository or image, tag=tag or None)
        except docker.errors.APIError as exc:
            raise SandboxUnavailable(
                f"image {image} is not here and could not be pulled: {exc}",
                plain=f"the Docker image {image} could not be pulled",
            ) from exc

    def start(
        self, workspace: Path, *, expose: tuple[Path, ...] = (), python: str | None = None
    ) -> DockerSession:
        workspace = Path(workspace)
        image = self.image_for(workspace)
        remove_leftovers(self.client)
        self.ensure_image(image)
        return DockerSession(self, workspace, image)


class DockerSession:
    def __init__(self, sandbox: DockerSandbox, workspace: Path, image: str) -> None:
        self.sandbox = sandbox
        self.client = sandbox.client
        self.limits = sandbox.limits
        self.image = image
        self.root = Path(WORKSPACE)
        self.python: str | None = None
        self._channels: list[DockerChannel] = []
        self._server: DockerChannel | None = None
        self._server_failures = 0
        self._run_lock = threading.Lock()
        name = f"selfheal-{uuid.uuid4().hex[:12]}"
        self._labels = {
            LABEL: "1",
            OWNER_LABEL: f"{socket.gethostname()}:{os.getpid()}",
            OWNER_PIDNS_LABEL: pid_namespace(),
            EXPIRES_LABEL: str(int(time.time() + sandbox.lifetime_s)),
        }
        archive = self._archive_of(workspace)
        # tmpfs pages count as the container's memory: the limit covers the workspace on top
        self.workspace_mb = -(-len(archive) // MiB) + self.limits.disk_mb
        self._limit_error: LimitExceeded | None = None
        self.volumes: list[Any] = []
        self.container = None
        try:
            self.volumes.append(
                self.client.volumes.create(
                    name=f"{name}-ws", driver="local", labels=self._labels,
                    driver_opts={
                        "type": "tmpfs", "device": "tmpfs",
                        "o": f"size={self.workspace_mb}m,uid={UID},gid={UID},mode=0755,nosuid,nodev",
                    },
                )
            )  # fmt: skip
            self.volumes.append(self.client.volumes.create(name=f"{name}-deps", labels=self._labels))
            self.container = self.client.containers.create(
                image, command=["sleep", "infinity"], name=name, network_mode="none",
                **self._locked_down(deps_mode="ro"),
            )  # fmt: skip
            # started first: the tmpfs is mounted at start, and would hide what came before
            self.container.start()
            self._put(archive)
            self.python = self._setup(workspace)
        except BaseException:
            self.close()
            raise
        self.facts = Isolation(
            uid=UID,
            separate_user=os.getuid() != UID,  # the container shares the host's user namespace
            capabilities=(),
            namespaces=("mount", "pid", "net", "ipc", "uts"),
            network=False,
            filesystem=f"the workspace only (read-only root and dependencies; tmpfs /tmp of {TMP_MB} MiB)",
            read_only_elsewhere=True,
            disk_limit_mb=self.limits.disk_mb,
            processes=f"pids limit ({self.limits.max_processes} processes)",
            nested_user_namespaces=False,  # the engine's default seccomp profile refuses them
            notes=(
                f"container {image}",
                "no-new-privileges",
                f"memory {self.limits.memory_mb} MiB + the workspace's {self.workspace_mb} MiB tmpfs",
                f"{self.limits.cpus:g} CPUs",
            ),
        )
        self.info = SandboxInfo.of("docker", self.facts)

    # -- container set-up -----------------------------------------------------------------
    def _locked_down(self, *, workspace_mode: str = "rw", deps_mode: str) -> dict[str, Any]:
        import docker.types

        memory = f"{self.limits.memory_mb + self.workspace_mb}m"
        file_limit = min(self.limits.max_file_mb, self.limits.disk_mb) * MiB
        workspace_volume, deps_volume = self.volumes
        return {
            "user": USER,
            "read_only": True,
            "tmpfs": {"/tmp": f"rw,nosuid,nodev,size={TMP_MB}m"},
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "mem_limit": memory,
            "memswap_limit": memory,
            "pids_limit": self.limits.max_processes,
            "nano_cpus": int(self.limits.cpus * 1e9),
            "ulimits": [docker.types.Ulimit(name="fsize", soft=file_limit, hard=file_limit)],
            "init": True,
            "labels": self._labels,
            "volumes": {
                workspace_volume.name: {"bind": WORKSPACE, "mode": workspace_mode},
                deps_volume.name: {"bind": DEPS, "mode": deps_mode},
            },
            "environment": {"PATH": CONTAINER_PATH, "HOME": "/tmp", **FIXED},
        }

    @staticmethod
    def _archive_of(workspace: Path) -> bytes:
        """The workspace as a tar for /sandbox/workspace: owned by the sandbox user, .git left out."""
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as tar:

            def owned(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
                if Path(info.name).parts[0] in (".git", STATE_DIR):
                    return None
                info.uid = info.gid = UID
                info.uname = info.gname = ""
                return info

            for child in sorted(workspace.iterdir()):
                tar.add(str(child), arcname=child.name, filter=owned)
        return buffer.getvalue()

    def _put(self, data: bytes, path: str = WORKSPACE, container: Any = None) -> None:
        if not (container or self.container).put_archive(path, data):
            raise OSError(f"could not copy files into the sandbox at {path}")

    def _setup(self, workspace: Path) -> str:
        """Install the repo's dependencies once, before any test runs, in setup containers.

        Only pip and what an index provides run with a network: the packages the repository
        names. The repository's own code — the build backend of a project whose metadata is
        dynamic, a local path in a requirements file — runs only in steps with no network: one
        reads the project's requirements, one builds its wheel; pip installs those with and
        without a network. The repository's code never writes the dependencies' volume itself.
        What pip downloads comes from the operator's package index, unless the operator allows
        the repository's own sources (SetupRefused otherwise, before pip is asked for it).
        """
        allow = self.sandbox.allow_direct_requirements
        # the operator's own command replaces the plan: then nothing of the repository is read here
        plan = (
            SetupPlan()
            if self.sandbox.setup_command
            else plan_setup(workspace, allow_direct_requirements=allow)
        )
        probe = self.run(["python3", "-c", "import pytest, coverage"], timeout=60)
        if probe.returncode == 127:
            raise SetupFailed(f"image {self.image} has no python3")
        needs_tools = probe.returncode != 0
        if plan.empty and not needs_tools and not self.sandbox.setup_command:
            return "python3"
        projects = [(path, extras) for path, extras in map(_split_extras, plan.local_projects)
                    if _inside(workspace, path)]  # fmt: skip
        build_requires = [
            r for path, _ in projects for r in build_requirements(workspace, path, allow_direct=allow)
        ]
        self._setup_step(
            "index", self._index_script(plan, needs_tools, build_requires), network=True, deps="rw",
            files={**{posixpath.join(posixpath.relpath(REQUIREMENTS, DEPS), name): text.encode()
                      for name, text in plan.filtered}, **self._ca_files()},
        )  # fmt: skip
        if self.sandbox.setup_command or not projects:
            return f"{VENV}/bin/python"
        python = f"{VENV}/bin/python"
        requires: list[str] = []
        for path, extras in projects:
            logs = self._setup_step(
                "metadata", [python, "-c", METADATA, posixpath.join(WORKSPACE, path), *extras],
                network=False, deps="ro",
            )  # fmt: skip
            requires += _declared_requirements(logs, path, allow)
        if requires:
            self._setup_step(
                "project-index",
                [python, "-I", "-m", "pip", "install", "--no-input", *dict.fromkeys(requires)],
                network=True, deps="rw",
            )  # fmt: skip
        wheels = self.client.volumes.create(name=f"{self.container.name}-build", labels=self._labels)
        try:
            for path, _ in projects:
                self._setup_step(
                    "build", [python, "-c", BUILD, posixpath.join(WORKSPACE, path), WHEELS],
                    network=False, deps="ro", wheels=(wheels, "rw"),
                )  # fmt: skip
            self._setup_step(
                "install",
                ["sh", "-c", f"{python} -I -m pip install --no-input --no-index --no-deps {WHEELS}/*.whl"],
                network=False, deps="rw", wheels=(wheels, "ro"),
            )  # fmt: skip
        finally:
            with contextlib.suppress(Exception):
                wheels.remove(force=True)
        return python

    def _ca_files(self) -> dict[str, bytes]:
        return {"ca-bundle.pem": Path(self.sandbox.ca_bundle).read_bytes()} if self.sandbox.ca_bundle else {}

    def _setup_step(
        self,
        step: str,
        command: str | list[str],
        *,
        network: bool,
        deps: str,
        files: dict[str, bytes] | None = None,
        wheels: tuple[Any, str] | None = None,
    ) -> str:
        """One setup container, run to its end: its logs, or SetupFailed with their tail."""
        # pip decodes the requirement copies by the locale: UTF-8, as they are written
        environment = {
            "PATH": f"{VENV}/bin:{CONTAINER_PATH}", "HOME": "/tmp", "VIRTUAL_ENV": VENV, "LANG": "C.UTF-8",
            **FIXED,
        }  # fmt: skip
        if self.sandbox.ca_bundle:
            bundle = f"{DEPS}/ca-bundle.pem"
            environment.update(PIP_CERT=bundle, SSL_CERT_FILE=bundle, REQUESTS_CA_BUNDLE=bundle)
        options = self._locked_down(workspace_mode="ro", deps_mode=deps)
        if wheels is not None:
            options["volumes"][wheels[0].name] = {"bind": BUILD_DIR, "mode": wheels[1]}
        if not network:
            options["network_mode"] = "none"
        argv = ["sh", "-c", command] if isinstance(command, str) else command
        setup = self.client.containers.create(
            self.image, command=argv, name=f"{self.container.name}-{step}", working_dir=SETUP_CWD,
            **{**options, "environment": environment},
        )  # fmt: skip
        try:
            # the folders it writes made the sandbox user's: a volume's own root is root's
            if deps == "rw":
                self._put(_archive([posixpath.relpath(VENV, DEPS)], files), DEPS, setup)
            if wheels is not None and wheels[1] == "rw":
                self._put(_archive([posixpath.relpath(WHEELS, BUILD_DIR)]), BUILD_DIR, setup)
            setup.start()
            try:
                status = setup.wait(timeout=self.sandbox.setup_timeout)
            except Exception as exc:  # the engine's timeout error types vary
                raise SetupFailed(
                    f"dependency setup ({step}) did not finish in {self.sandbox.setup_timeout:g}s"
                ) from exc
            logs = setup.logs().decode("utf-8", "replace")
            if status.get("StatusCode") != 0:
                tail = "\n".join(logs.strip().splitlines()[-12:])
                shown = command if isinstance(command, str) else " ".join(a for a in command if "\n" not in a)
                raise SetupFailed(f"dependency setup failed ({step}: {shown}):\n{tail}")
            return logs
        finally:
            with contextlib.suppress(Exception):
                setup.remove(force=True)

    def _index_script(self, plan: SetupPlan, needs_tools: bool, build_requires: list[str]) -> str:
        import shlex

        # -I: nothing of the working folder or of PYTHON* variables on the interpreter's path
        steps = [f"python3 -I -m venv --system-site-packages {VENV}"]
        if self.sandbox.setup_command:
            steps.append(f"cd {WORKSPACE} && {self.sandbox.setup_command}")
            return " && ".join(steps)
        args = [*plan.pip_arguments(REQUIREMENTS), *dict.fromkeys(build_requires)] + (
            ["pytest", "coverage"] if needs_tools else []
        )
        if args:
            steps.append(
                f"{VENV}/bin/python -I -m pip install --no-input " + " ".join(shlex.quote(a) for a in args)
            )
        return " && ".join(steps)

    # -- commands -------------------------------------------------------------------------
    def _environment(self, env: dict[str, str] | None) -> dict[str, str]:
        home, tmp = f"{WORKSPACE}/{STATE_DIR}/home", f"{WORKSPACE}/{STATE_DIR}/tmp"
        base = {"PATH": CONTAINER_PATH, "LANG": "C.UTF-8", **FIXED}
        given = expand_path(env or {}, CONTAINER_PATH)
        merged = {**base, **given, "HOME": home, "TMPDIR": tmp, "TMP": tmp, "TEMP": tmp}
        return {k: v for k, v in merged.items() if not is_secret_name(k)}

    def _workdir(self, cwd: str | None) -> str:
        normal = posixpath.normpath(posixpath.join(WORKSPACE, cwd or "."))
        if normal != WORKSPACE and not normal.startswith(WORKSPACE + "/"):
            raise ValueError(f"path escapes the workspace: {cwd}")
        return normal

    def _ensure_state_dirs(self) -> None:
        if not getattr(self, "_state_ready", False):
            self._put(_archive([STATE_DIR, f"{STATE_DIR}/home", f"{STATE_DIR}/tmp"]))
            self._state_ready = True

    def _check_usable(self) -> None:
        if self._limit_error is not None:
            raise self._limit_error

    def _note_free_space(self, free: int | None) -> None:
        if free is not None and free < FULL_BELOW:
            self._limit_error = LimitExceeded(
                f"the tests filled the workspace's disk limit of {self.limits.disk_mb} MiB (a "
                f"{self.workspace_mb} MiB tmpfs with the repository); the heal stopped"
            )

    def run(
        self, argv: list[str], *, timeout: float, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> ExecResult:
        """Through the command server when it is up (a fork, not a Docker API round trip);
        through a fresh exec when it is not (before it starts, or after something killed it).
        A container that stopped under the heal (killed from outside) is SessionLost."""
        import docker.errors

        try:
            return self._run(argv, timeout=timeout, env=env, cwd=cwd)
        except docker.errors.DockerException as exc:
            raise self._lost(exc) from exc

    def _lost(self, exc: Exception) -> SessionLost:
        state = "gone"
        with contextlib.suppress(Exception):
            self.container.reload()
            state = str(self.container.status)
        name = getattr(self.container, "name", "?")
        first = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        return SessionLost(
            f"the sandbox's container {name} is {state}: it stopped under the heal (killed or removed "
            f"from outside?); the Docker engine said: {first}"
        )

    def _run(
        self, argv: list[str], *, timeout: float, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> ExecResult:
        if not argv:
            return ExecResult(127, "", "selfheal: empty command", 0.0)
        self._check_usable()
        self._ensure_state_dirs()
        with self._run_lock:
            server = self._command_server()
            if server is not None:
                result, free = self._run_on_server(server, argv, timeout, env, cwd)
            else:
                result, free = self._run_by_exec(argv, timeout, env, cwd), self._free_space()
        self._note_free_space(free)
        self._check_usable()
        return result

    def _free_space(self) -> int | None:
        probe = self._run_by_exec(
            ["python3", "-c", f"import os; s = os.statvfs({WORKSPACE!r}); print(s.f_bavail * s.f_frsize)"],
            30, None, None,
        )  # fmt: skip
        try:
            return int(probe.stdout.strip())
        except ValueError:
            return None

    def _command_server(self) -> DockerChannel | None:
        if self._server is not None and not self._server.closed:
            return self._server
        if self._server_failures >= 3:
            return None
        channel = self.open_channel(["python3", "-u", "-c", SERVER])
        if channel.receive(30) != '{"ready": true}':
            channel.close()
            self._server_failures += 1
            return None
        self._server = channel
        return channel

    def _run_on_server(
        self,
        server: DockerChannel,
        argv: list[str],
        timeout: float,
        env: dict[str, str] | None,
        cwd: str | None,
    ) -> tuple[ExecResult, int | None]:
        """The command's result, and the workspace's free space after it."""
        started = time.monotonic()
        marker = uuid.uuid4().hex
        request = {
            "argv": argv,
            "env": self._environment(env),
            "cwd": self._workdir(cwd),
            "timeout": timeout,
            "marker": marker,
            "limit": self.limits.output_bytes,
            "watch": WORKSPACE,
        }
        server.send(json.dumps(request))
        line = server.receive(timeout + GRACE_S if timeout > 0 else 24 * 3600)
        try:
            reply = json.loads(line) if line else None
        except ValueError:
            reply = None
        if not isinstance(reply, dict) or "code" not in reply:
            # The server died or hung (the command took it down). Not re-run: a command runs
            # once. The next command gets a new server.
            self._kill(marker)
            server.close()
            self._server_failures += 1
            return ExecResult(
                -1, "", "selfheal: the sandbox's command server stopped while running this command",
                time.monotonic() - started, argv=tuple(argv),
            ), self._free_space()  # fmt: skip
        out, err = (_decoded(reply["out"]), _decoded(reply["err"]))
        timed_out = bool(reply["timed_out"])
        free = reply.get("free")
        return ExecResult(
            returncode=-9 if timed_out else int(reply["code"]),
            stdout=capped_text(*out), stderr=capped_text(*err),
            duration_s=float(reply["duration"]), timed_out=timed_out,
            truncated=bool(out[2] or err[2]), argv=tuple(argv),
        ), free if isinstance(free, int) else None  # fmt: skip

    def _run_by_exec(
        self, argv: list[str], timeout: float, env: dict[str, str] | None, cwd: str | None
    ) -> ExecResult:
        started = time.monotonic()
        marker = uuid.uuid4().hex
        api = self.client.api
        exec_id = api.exec_create(
            self.container.id, ["python3", "-c", RUNNER, f"{timeout:g}", marker, *argv],
            environment=self._environment(env), workdir=self._workdir(cwd), user=USER,
            stdout=True, stderr=True, stdin=False,
        )["Id"]  # fmt: skip
        out, err = CappedBuffer(self.limits.output_bytes), CappedBuffer(self.limits.output_bytes)
        stream = api.exec_start(exec_id, stream=True, demux=True)

        def pump() -> None:
            with contextlib.suppress(Exception):
                for chunk_out, chunk_err in stream:
                    if chunk_out:
                        out.feed(chunk_out)
                    if chunk_err:
                        err.feed(chunk_err)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        reader.join(timeout + GRACE_S if timeout > 0 else None)
        if reader.is_alive():  # the in-container runner did not end it: end it from here
            self._kill(marker)
            reader.join(GRACE_S)
        code = api.exec_inspect(exec_id).get("ExitCode")
        duration = time.monotonic() - started
        timed_out = timeout > 0 and code == 137 and duration >= timeout
        return ExecResult(
            returncode=-9 if timed_out else (code if code is not None else -1),
            stdout=out.text(), stderr=err.text(), duration_s=duration, timed_out=timed_out,
            truncated=out.truncated or err.truncated, argv=tuple(argv),
        )  # fmt: skip

    def _kill(self, marker: str) -> None:
        with contextlib.suppress(Exception):
            exec_id = self.client.api.exec_create(
                self.container.id, ["python3", "-c", KILLER, marker], user=USER
            )["Id"]
            self.client.api.exec_start(exec_id)

    def open_channel(self, argv: list[str], *, env: dict[str, str] | None = None) -> DockerChannel:
        import docker.errors

        try:
            return self._open_channel(argv, env=env)
        except docker.errors.DockerException as exc:
            raise self._lost(exc) from exc

    def _open_channel(self, argv: list[str], *, env: dict[str, str] | None = None) -> DockerChannel:
        self._ensure_state_dirs()
        marker = uuid.uuid4().hex
        exec_id = self.client.api.exec_create(
            self.container.id, ["python3", "-c", RUNNER, "0", marker, *argv],
            environment=self._environment(env), workdir=WORKSPACE, user=USER,
            stdout=True, stderr=True, stdin=True,
        )["Id"]  # fmt: skip
        sock = self.client.api.exec_start(exec_id, socket=True)
        channel = DockerChannel(self, sock, marker, self.limits.output_bytes)
        self._channels.append(channel)
        return channel

    # -- files ----------------------------------------------------------------------------
    def _member(self, relpath: str) -> str:
        normal = posixpath.normpath(relpath)
        if normal.startswith("..") or posixpath.isabs(normal) or normal in (".", ""):
            raise ValueError(f"path escapes the workspace: {relpath}")
        return normal

    def write_file(self, relpath: str, content: str | bytes, *, force: bool = False) -> None:
        """The engine extracts the archive inside the container, where whatever the tests planted
        stays: an entry at the name is replaced, and a link on the way leads only to other places
        of the container. So every write here is as `force` asks, and none reaches the host."""
        self._check_usable()
        member = self._member(relpath)
        data = content.encode("utf-8") if isinstance(content, str) else content
        parents = [posixpath.join(*member.split("/")[:i]) for i in range(1, member.count("/") + 1)]
        import docker.errors

        try:
            self._put(_archive(parents, {member: data}))
        except docker.errors.DockerException as exc:
            raise self._lost(exc) from exc

    def read_file(self, relpath: str) -> bytes | None:
        import docker.errors

        member = self._member(relpath)
        try:
            chunks, _ = self.container.get_archive(f"{WORKSPACE}/{member}")
            raw = b"".join(chunks)
        except docker.errors.NotFound:
            return None
        with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
            entry = tar.next()
            if entry is None or not entry.isfile():
                return None  # a folder, or a symlink the sandbox planted
            handle = tar.extractfile(entry)
            return handle.read() if handle else None

    def close(self) -> None:
        for channel in self._channels:
            channel.close()
        self._channels.clear()
        if self.container is not None:
            with contextlib.suppress(Exception):
                self.container.remove(force=True)
            self.container = None
        for volume in self.volumes:
            with contextlib.suppress(Exception):
                volume.remove(force=True)

    def __enter__(self) -> DockerSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _split_extras(project: str) -> tuple[str, list[str]]:
    """`./libs/x[test,dev]` -> ("libs/x", ["test", "dev"])."""
    path, _, rest = project.partition("[")
    extras = [e.strip() for e in rest.rstrip("]").split(",") if e.strip()]
    return posixpath.normpath(path) or ".", extras


def _inside(workspace: Path, path: str) -> bool:
    """A local project's path names a folder of the workspace (repository text: never trusted)."""
    resolved = (workspace / path).resolve()
    return resolved.is_dir() and (resolved == workspace.resolve() or workspace.resolve() in resolved.parents)


def _declared_requirements(logs: str, project: str, allow_direct: bool) -> list[str]:
    """What the metadata step found, each checked to be a requirement and nothing pip would read
    as an option, and held to the set-up's policy: a name for the index, or (if the operator
    allows them) a VCS checkout or a URL; SetupRefused otherwise."""
    from packaging.requirements import InvalidRequirement, Requirement

    line = next((x for x in reversed(logs.splitlines()) if x.startswith("SELFHEAL-REQUIRES ")), None)
    if line is None:
        raise SetupFailed("dependency setup (metadata): the project's build backend reported no requirements")
    try:
        listed = json.loads(line.split(" ", 1)[1])
    except ValueError as exc:
        raise SetupFailed("dependency setup (metadata): an unreadable list of requirements") from exc
    found = []
    for text in listed if isinstance(listed, list) else []:
        try:
            found.append(str(Requirement(str(text))))
        except InvalidRequirement:
            continue
    # a local path or file: URL among them is the repository's own code, never installed here
    where = f"the requirements the build backend of {project if project != '.' else 'the project'} reports"
    return declared_requirements(where, found, allow_direct=allow_direct)


def _decoded(part: list) -> tuple[bytes, bytes, int]:
    head, tail, dropped = part
    return base64.b64decode(head), base64.b64decode(tail), int(dropped)


def _dir_entry(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.uid, info.gid = tarfile.DIRTYPE, 0o755, UID, UID
    return info


def _archive(folders: list[str], files: dict[str, bytes] | None = None) -> bytes:
    """A tar of folders and files owned by the sandbox user, for `put_archive`."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name in folders:
            tar.addfile(_dir_entry(name))
        for name, data in (files or {}).items():
            info = tarfile.TarInfo(name)
            info.size, info.uid, info.gid, info.mode = len(data), UID, UID, 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


class DockerChannel:
    """A long-lived exec (the screening worker) spoken to over the exec's attached socket."""

    def __init__(self, session: DockerSession, sock: Any, marker: str, limit: int) -> None:
        self._session = session
        self._sock = sock
        self._raw = getattr(sock, "_sock", sock)
        self._marker = marker
        self._lines = LineQueue()
        self._stderr = CappedBuffer(limit)
        self.closed = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        """Demultiplex docker's stream frames: 8-byte header (stream, size), then payload."""
        pending = b""
        try:
            while True:
                header = self._recv_exact(8)
                if header is None:
                    break
                kind, size = header[0], struct.unpack(">I", header[4:])[0]
                payload = self._recv_exact(size) or b""
                if kind == 2:
                    self._stderr.feed(payload)
                    continue
                pending += payload
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    self._lines.put(line.decode("utf-8", "replace"))
        except OSError:
            pass
        self._lines.end()

    def _recv_exact(self, size: int) -> bytes | None:
        data = b""
        while len(data) < size:
            chunk = self._raw.recv(size - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def send(self, line: str) -> None:
        with contextlib.suppress(OSError):
            self._raw.sendall(line.encode("utf-8") + b"\n")

    def receive(self, timeout: float) -> str | None:
        return self._lines.get(timeout)

    def close(self) -> str:
        if not self.closed:
            self.closed = True
            self._session._kill(self._marker)
            with contextlib.suppress(OSError):
                self._raw.close()
            self._reader.join(timeout=5)
        return self._stderr.text()
