"""The local backend: subprocesses on this machine, contained as far as the machine allows.

Always: own session and process group (the whole group is killed on timeout and when the command
ends), rlimits on address space, file size and CPU, an allowlisted environment, HOME and TMPDIR
inside the workspace, capped output, and a watch on how much the commands write.

As root, never as root: the session gets a uid of its own that owns only the workspace copy
(`identity.SandboxUser`), every command runs as that uid with no capabilities, and the uid's
processes are all killed at the end. Where bubblewrap works, namespaces besides (no network, a
view of the host made of the system's folders and the interpreter, read-only, private /tmp);
elsewhere Landlock shows the same folders. A pids cgroup per command where one can be made.
`info` states exactly what was in force (`Isolation`).

Owns everything of this backend: the `Sandbox` and what its view shows (`backend`), the session
that builds the containment (`session`), what that containment is made of and the facts reported
of it (`isolation`), the commands (`commands`) and channels (`channel`), and the files of the
workspace (`files`). May import the rest of `selfheal.sandbox`, not the docker backend, and
nothing else of selfheal.
"""

from selfheal.sandbox.local.backend import LocalSandbox, shown_to_tests
from selfheal.sandbox.local.channel import LocalChannel
from selfheal.sandbox.local.session import LocalSession

__all__ = [
    "LocalChannel",
    "LocalSandbox",
    "LocalSession",
    "shown_to_tests",
]
