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

Owns everything of this backend: the engine and what dead runs left on it (`engine`), the paths
inside the container (`layout`), the tar archives files travel in (`archive`), the lock-down and
the facts reported of it (`isolation`), the set-up of the dependencies (`setup`), the commands
and channels (`commands`, with the programs they run inside: `incontainer`), and the session that
puts them together (`session`). May import the rest of `selfheal.sandbox`, not the local backend,
and nothing else of selfheal.
"""

from selfheal.sandbox.docker.commands import DockerChannel
from selfheal.sandbox.docker.engine import (
    EXPIRES_LABEL,
    LABEL,
    OWNER_LABEL,
    OWNER_PIDNS_LABEL,
    docker_client,
    engine_answers,
    pid_namespace,
    remove_leftovers,
)
from selfheal.sandbox.docker.session import DockerSandbox, DockerSession

__all__ = [
    "EXPIRES_LABEL",
    "LABEL",
    "OWNER_LABEL",
    "OWNER_PIDNS_LABEL",
    "DockerChannel",
    "DockerSandbox",
    "DockerSession",
    "docker_client",
    "engine_answers",
    "pid_namespace",
    "remove_leftovers",
]
