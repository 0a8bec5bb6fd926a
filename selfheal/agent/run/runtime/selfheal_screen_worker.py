"""Candidate screening worker: runs inside the sandbox, under the repo's interpreter.

Started once per heal. It runs pytest's start-up and collection once (the repo's conftest files,
plugins and test modules are imported once), then serves candidates over a line protocol:

    <- {"event": "ready", "collected": [...], "errors": [...]}
    -> {"id": 7, "files": {"pkg/mod.py": {"old": "...", "new": "..."}}, "tests": [...],
        "timeout": 5.0, "test_timeout": 1.5, "test_limits": {"tests/test_x.py::test_a": 1.0},
        "stop_if_unchanged": {"tests/test_x.py::test_b": "assert 1 == 2"}}
    <- {"id": 7, "outcomes": {"tests/test_x.py::test_a": {"outcome": "passed", "message": ""}},
        "patch_error": null, "duration": 0.012}
    -> {"cmd": "quit"}

Each candidate runs in a forked child: the patched module source is compiled and its changed
definitions are swapped into the already-imported modules in place (function code objects are
replaced, so every reference the tests hold sees the new code), then the requested tests run
through pytest's own runtest protocol; when `stop_if_unchanged` names the first tests and each
still fails with the message given, the rest are not run. The parent never runs a test, so every
child starts from the same freshly collected state. Screening is a filter only; verdicts come
from real runs.

Standard library and pytest only: this file must run under any interpreter the repo uses.
"""

from __future__ import annotations
import __future__

import ast
import contextlib
import difflib
import functools
import importlib.abc
import importlib.machinery
import importlib.util
import json
import operator
import os
import re
import select
import signal
import sys
import time
import traceback
import types

import pytest

_protocol_out = None
_protocol_in = None


def _send(message: dict) -> None:
    _protocol_out.write(json.dumps(message) + "\n")
    _protocol_out.flush()


# -- applying a candidate inside the child -------------------------------------------------------


class _PatchedSourceFinder(importlib.abc.MetaPathFinder):
    """Serves patched source for modules the candidate changes but nothing has imported yet."""

    def __init__(self, sources: dict[str, str]) -> None:
        self.sources = sources

    def find_spec(self, fullname, path, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None:
            return None
        origin = os.path.abspath(spec.origin)
        if origin not in self.sources:
            return None
        loader = _PatchedLoader(fullname, spec.origin, self.sources[origin])
        return importlib.util.spec_from_file_location(
            fullname,
            spec.origin,
            loader=loader,
            submodule_search_locations=spec.submodule_search_locations,
        )


class _PatchedLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname, path, source):
        super().__init__(fullname, path)
        self._source = source

    def get_data(self, path):
        if os.path.abspath(path) == os.path.abspath(self.path):
            return self._source.encode("utf-8")
        return super().get_data(path)


def _underlying_functions(obj, depth=0):
    """Plain functions behind an object: itself, or what a decorator or descriptor wraps."""
    if depth > 6:
        return
    if isinstance(obj, types.FunctionType):
        yield obj
        wrapped = obj.__dict__.get("__wrapped__")
        if wrapped is not None:
            yield from _underlying_functions(wrapped, depth + 1)
        return
    if isinstance(obj, (staticmethod, classmethod)):
        yield from _underlying_functions(obj.__func__, depth + 1)
    elif isinstance(obj, property):
        for accessor in (obj.fget, obj.fset, obj.fdel):
            if accessor is not None:
                yield from _underlying_functions(accessor, depth + 1)
    elif getattr(obj, "__wrapped__", None) is not None:
        yield from _underlying_functions(obj.__wrapped__, depth + 1)
    elif isinstance(obj, types.MethodType):
        yield from _underlying_functions(obj.__func__, depth + 1)


def _swap_functions(old, new) -> bool:
    """Give the old object's functions the new code; False if that is impossible."""
    old_functions = list(_underlying_functions(old))
    new_functions = list(_underlying_functions(new))
    if not old_functions or len(old_functions) != len(new_functions):
        return False
    for old_fn, new_fn in zip(old_functions, new_functions):
        if old_fn.__qualname__ != new_fn.__qualname__:
            return False
        if len(old_fn.__code__.co_freevars) != len(new_fn.__code__.co_freevars):
            return False
    for old_fn, new_fn in zip(old_functions, new_functions):
        old_fn.__code__ = new_fn.__code__
        old_fn.__defaults__ = new_fn.__defaults__
        old_fn.__kwdefaults__ = new_fn.__kwdefaults__
    cache_clear = getattr(old, "cache_clear", None)
    if callable(cache_clear):
        cache_clear()
    return True


_CLASS_SKIP = {"__dict__", "__weakref__", "__module__", "__qualname__", "__doc__", "__slots__"}
# A slot's descriptor serves only instances of the class that made it: given the new class's,
# every instance of the old class would refuse the attribute ("descriptor 'x' for 'Point'
# objects doesn't apply to a 'Point' object"). The old class keeps its own.
_SLOT_DESCRIPTORS = (types.MemberDescriptorType, types.GetSetDescriptorType)


def _swap_class(old_cls, new_cls) -> None:
    for name, new_attr in vars(new_cls).items():
        if name in _CLASS_SKIP:
            continue
        old_attr = vars(old_cls).get(name)
        if isinstance(new_attr, _SLOT_DESCRIPTORS) and isinstance(old_attr, _SLOT_DESCRIPTORS):
            continue
        if old_attr is not None and _swap_functions(old_attr, new_attr):
            continue
        if isinstance(old_attr, type) and isinstance(new_attr, type):
            _swap_class(old_attr, new_attr)
            continue
        setattr(old_cls, name, new_attr)


def _rebind(module, name, value) -> None:
    """Bind a module global anew, also where other modules imported it by name."""
    missing = object()
    old_value = module.__dict__.get(name, missing)
    module.__dict__[name] = value
    if old_value is missing:
        return
    for other in list(sys.modules.values()):
        namespace = getattr(other, "__dict__", None)
        if other is not module and isinstance(namespace, dict) and namespace.get(name, missing) is old_value:
            namespace[name] = value


def _bound_names(statement) -> list[str]:
    names = []
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.alias):
            names.append((node.asname or node.name).split(".")[0])
    return names


def _future_flags(module) -> int:
    """The module's `from __future__ import ...` flags: a statement compiled alone has only
    those it is given, not the module's nor this file's own. Each such import binds its feature
    in the module's namespace."""
    return functools.reduce(
        operator.or_,
        (v.compiler_flag for v in module.__dict__.values() if isinstance(v, __future__._Feature)),
        0,
    )


def _apply_to_module(module, path: str, old_source: str, new_source: str) -> None:
    old_statements, new_statements = _changed_statements(path, old_source, new_source)
    old_dumps = [ast.dump(s) for s in old_statements]
    new_dumps = [ast.dump(s) for s in new_statements]
    matcher = difflib.SequenceMatcher(a=old_dumps, b=new_dumps, autojunk=False)
    flags = _future_flags(module)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag in ("equal", "delete"):
            continue
        for statement in new_statements[j1:j2]:
            tree = ast.Module(body=[statement], type_ignores=[])
            code = compile(tree, path, "exec", flags=flags, dont_inherit=True)
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                scratch = dict(module.__dict__)
                exec(code, scratch)
                new_obj, old_obj = scratch[statement.name], module.__dict__.get(statement.name)
                if isinstance(old_obj, type) and isinstance(new_obj, type):
                    _swap_class(old_obj, new_obj)
                elif old_obj is None or not _swap_functions(old_obj, new_obj):
                    _rebind(module, statement.name, new_obj)
            else:
                scratch = dict(module.__dict__)
                exec(code, scratch)
                for name in _bound_names(statement):
                    if name in scratch:
                        _rebind(module, name, scratch[name])


# The base source of each patched file, parsed once in the parent (children inherit it): a
# candidate then costs a parse of the top-level statements it touches, not of the whole module.
_BASE_CACHE: dict[str, tuple[str, list[str], list]] = {}


def _remember_base(path: str, old_source: str) -> None:
    cached = _BASE_CACHE.get(path)
    if cached is not None and cached[0] == old_source:
        return
    try:
        body = ast.parse(old_source).body
    except SyntaxError:
        _BASE_CACHE.pop(path, None)
        return
    _BASE_CACHE[path] = (old_source, old_source.splitlines(keepends=True), body)


def _first_line(statement) -> int:
    decorators = getattr(statement, "decorator_list", ())
    return min([statement.lineno, *(d.lineno for d in decorators)])


def _changed_statements(path: str, old_source: str, new_source: str) -> tuple[list, list]:
    """The base's top-level statements a candidate touches, and what stands in their place in the
    candidate (line numbers as in the whole file). The lines around them are the same in both
    texts and end and begin top-level statements, so this span parses alone exactly as it does
    within the file. Falls back to the whole module when the span does not parse alone."""
    cached = _BASE_CACHE.get(path)
    if cached is None or cached[0] != old_source:
        return ast.parse(old_source).body, ast.parse(new_source).body
    _, old_lines, body = cached
    new_lines = new_source.splitlines(keepends=True)
    limit = min(len(old_lines), len(new_lines))
    prefix = 0
    while prefix < limit and old_lines[prefix] == new_lines[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old_lines[-1 - suffix] == new_lines[-1 - suffix]:
        suffix += 1
    if prefix == len(old_lines) == len(new_lines):
        return [], []
    # changed base lines, 1-based: prefix+1 .. len(old)-suffix (empty for an insertion); the
    # statements on either side of the change are included, since an insertion may extend one
    low, high = prefix, len(old_lines) - suffix + 1
    touched = [s for s in body if s.end_lineno >= low and _first_line(s) <= high]
    if not touched:
        return ast.parse(old_source).body, ast.parse(new_source).body
    start, end = _first_line(touched[0]), touched[-1].end_lineno
    new_end = end + len(new_lines) - len(old_lines)
    if start > prefix + 1 or end < len(old_lines) - suffix or new_end < start - 1:
        return ast.parse(old_source).body, ast.parse(new_source).body
    try:
        span = ast.parse("".join(new_lines[start - 1 : new_end]))
    except SyntaxError:
        return ast.parse(old_source).body, ast.parse(new_source).body
    ast.increment_lineno(span, start - 1)
    return touched, span.body


def _apply_candidate(root: str, files: dict) -> None:
    by_path = {os.path.abspath(os.path.join(root, rel)): change for rel, change in files.items()}
    loaded = {}
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        if filename:
            loaded.setdefault(os.path.abspath(filename), module)
    pending = {}
    for path, change in by_path.items():
        module = loaded.get(path)
        if module is None:
            pending[path] = change["new"]
        else:
            _apply_to_module(module, path, change["old"], change["new"])
    if pending:
        sys.meta_path.insert(0, _PatchedSourceFinder(pending))


# -- running tests inside the child -------------------------------------------------------------


def _summarize(reports) -> dict:
    outcome, message = "passed", ""
    for report in reports:
        if report.failed:
            outcome = "failed" if report.when == "call" else "error"
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(report.longrepr)[-500:]
            break
        if report.skipped and outcome == "passed":
            outcome = "skipped"
    if "SelfhealTimeout" in message:
        outcome = "timeout"
    return {"outcome": outcome, "message": message[:500]}


def _run_child(root, request, items, write_fd) -> None:
    os.setpgid(0, 0)
    if request.get("test_timeout"):
        os.environ["SELFHEAL_TEST_TIMEOUT"] = str(request["test_timeout"])
    result = {"id": request["id"], "outcomes": {}, "patch_error": None}
    try:
        _apply_candidate(root, request.get("files", {}))
    except BaseException as exc:
        result["patch_error"] = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    if result["patch_error"] is None:
        wanted = [nodeid for nodeid in request["tests"] if nodeid in items]
        for nodeid in request["tests"]:
            if nodeid not in items:
                result["outcomes"][nodeid] = {"outcome": "missing", "message": "not collected"}
        from _pytest.runner import runtestprotocol

        limits = request.get("test_limits") or {}
        unchanged = request.get("stop_if_unchanged") or {}
        hung = set(request.get("hung") or ())  # tests that hung at baseline
        still_hanging: dict = {}  # test function -> its case that hung again under this candidate
        promised = None  # the item the last run test was told comes next (its fixtures kept for it)
        for index, nodeid in enumerate(wanted):
            if unchanged and index == len(unchanged) and _fails_as_before(result["outcomes"], unchanged):
                break  # the candidate did not touch the failure: the other tests would tell nothing
            group = nodeid.split("[", 1)[0]
            if nodeid in hung and group in still_hanging:
                # a case of a function whose other case still hangs under this candidate hangs for
                # the same reason: waiting it out would cost its limit and tell nothing new
                result["outcomes"][nodeid] = {
                    "outcome": "timeout",
                    "message": f"not run: {still_hanging[group]} still hangs under this candidate",
                }
                continue
            nextitem = items[wanted[index + 1]] if index + 1 < len(wanted) else None
            if promised is not None and promised is not items[nodeid]:
                # a case was passed over since: what was kept for it and this test does not need goes
                with contextlib.suppress(Exception):
                    items[nodeid].session._setupstate.teardown_exact(items[nodeid])
            promised = nextitem
            if limits.get(nodeid):  # this test's own limit, from its duration at baseline
                os.environ["SELFHEAL_TEST_TIMEOUT"] = str(limits[nodeid])
            try:
                reports = runtestprotocol(items[nodeid], nextitem=nextitem, log=False)
                result["outcomes"][nodeid] = _summarize(reports)
            except BaseException as exc:
                result["outcomes"][nodeid] = {"outcome": "error", "message": repr(exc)[:500]}
            if nodeid in hung and result["outcomes"][nodeid]["outcome"] == "timeout":
                still_hanging.setdefault(group, nodeid)
    data = (json.dumps(result) + "\n").encode("utf-8")
    while data:
        written = os.write(write_fd, data)
        data = data[written:]


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _fails_as_before(outcomes: dict, unchanged: dict) -> bool:
    """Each test failed with its earlier message, an object's address in it aside (`<Cart
    object at 0x7f...>` differs from one process to the next)."""
    return all(
        outcomes.get(nodeid, {}).get("outcome") in ("failed", "error")
        and _ADDRESS.sub(" at 0x", outcomes[nodeid].get("message", "")) == _ADDRESS.sub(" at 0x", message)
        for nodeid, message in unchanged.items()
    )


def _screen(root, request, items) -> dict:
    started = time.monotonic()
    for rel, change in request.get("files", {}).items():
        _remember_base(os.path.abspath(os.path.join(root, rel)), change["old"])
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        code = 0
        try:
            _run_child(root, request, items, write_fd)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    deadline = started + float(request.get("timeout", 30))
    chunks, timed_out = [], False
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([read_fd], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(read_fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_fd)
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass
    os.waitpid(pid, 0)
    duration = time.monotonic() - started
    if timed_out:
        outcomes = {n: {"outcome": "timeout", "message": "candidate timed out"} for n in request["tests"]}
        return {"id": request["id"], "outcomes": outcomes, "patch_error": None, "duration": duration}
    try:
        result = json.loads(b"".join(chunks).decode("utf-8"))
    except ValueError:
        result = {"id": request["id"], "outcomes": {}, "patch_error": "child crashed"}
    result["duration"] = duration
    return result


class _ScreenPlugin:
    def __init__(self, root: str) -> None:
        self.root = root
        self.errors: list[str] = []

    def pytest_collectreport(self, report):
        if report.failed:
            self.errors.append(f"{report.nodeid}: {str(report.longrepr)[-300:]}")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        from selfheal_pytest_plugin import canonical_id

        items = {canonical_id(item): item for item in session.items}
        _send({"event": "ready", "collected": sorted(items), "errors": self.errors})
        for line in _protocol_in:
            if not line.strip():
                continue
            request = json.loads(line)
            if request.get("cmd") == "quit":
                break
            _send(_screen(self.root, request, items))
        return True


def main() -> int:
    global _protocol_out, _protocol_in
    with open(sys.argv[1], encoding="utf-8") as handle:
        config = json.load(handle)
    # The protocol owns the original stdin/stdout; anything else printing to fd 1 (imports,
    # tests, pytest itself) is sent to stderr so it cannot corrupt a message.
    _protocol_out = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    _protocol_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    plugin = _ScreenPlugin(config["root"])
    # The worker needs the collected items in this process: no distribution, no reordering.
    # Where xdist is blocked (`-p no:xdist`), its `-n` is not an option at all.
    pytest_args = config.get("pytest_args", [])
    # zip, not itertools.pairwise: this runs on the repository's interpreter, maybe older than 3.10
    blocked = any(a == "-p" and b == "no:xdist" for a, b in zip(pytest_args, pytest_args[1:]))  # noqa: RUF007
    no_xdist = ["-n", "0"] if importlib.util.find_spec("xdist") is not None and not blocked else []
    args = [
        *pytest_args,
        *no_xdist,
        # A failure's full traceback is never read here, only its one-line crash message, which
        # is the same in every style; the default style's source excerpts cost a failing test
        # about twice its run (30 ms -> 11 ms on a small suite), and most candidates fail.
        "--tb=native",
        "-p", "selfheal_pytest_plugin",
        "-o", f"cache_dir={config['cache_dir']}",
        "-q",
        *config["nodeids"],
    ]  # fmt: skip
    try:
        code = pytest.main(args, plugins=[plugin])
    except BaseException as exc:
        _send({"event": "failed", "message": repr(exc)})
        return 1
    _send({"event": "exit", "code": int(code)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
