"""The edge-case probe: runs inside the sandbox under the repo's own interpreter.

    python -c <this file's text> <job.json>

Standard library only, and nothing newer than Python 3.8: the repo's interpreter may be old.
It reads the job (then deletes the file), imports the changed function through the first import
line that really reaches the changed file, and calls it on every input twice, building the
input afresh from its source each time (the function may mutate its arguments; a second call
that disagrees with the first marks the input unstable). Per input it writes one line to the
original stdout: MARK + JSON of what happened: a value whose repr evaluates back to an equal
value (with the import lines its names need), an unrepresentable value, an exception, or a
timeout. The function's own output goes to /dev/null.

A call that runs too long is interrupted by SIGALRM. A hang in C code, which a signal cannot
interrupt, ends the whole process through faulthandler's watchdog ("Timeout (" on stderr); the
host then marks that input as hanging and starts the probe again after it.
"""

from __future__ import annotations

import ast
import builtins
import faulthandler
import importlib
import json
import os
import re
import signal
import sys
import types

MARK = "@@selfheal-probe@@ "
_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so that `except Exception` in the code cannot eat it."""


def _on_alarm(signum, frame):
    raise _Timeout()


class _Limit:
    def __init__(self, seconds):
        self.seconds = seconds

    def __enter__(self):
        faulthandler.dump_traceback_later(self.seconds * 2 + 1, exit=True, file=sys.__stderr__)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
        return False


class _Out:
    def __init__(self, fd):
        self.fd = fd

    def emit(self, record):
        data = (MARK + json.dumps(record, ensure_ascii=True) + "\n").encode("ascii")
        while data:
            written = os.write(self.fd, data)
            data = data[written:]


def _short(text, limit=200):
    text = _ADDRESS.sub("", text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _names(source):
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        return None
    return sorted({node.id for node in ast.walk(tree) if isinstance(node, ast.Name)})


def _public(module_name):
    return bool(module_name) and not any(part.startswith("_") for part in module_name.split("."))


def _import_line(name, obj, job):
    """How a test imports `obj` as `name`: '' for a builtin, None when no public import path is
    found that gives back this very object."""
    if getattr(builtins, name, _MISSING) is obj:
        return ""
    if isinstance(obj, types.ModuleType):
        full = obj.__name__
        if full == name:
            return "import " + name
        if full.rsplit(".", 1)[-1] == name:
            return f"from {full.rsplit('.', 1)[0]} import {name}"
        return f"import {full} as {name}"
    candidates = [job["known_names"].get(name), getattr(obj, "__module__", None)]
    candidates += job.get("modules", [])
    for module_name in candidates:
        if not module_name or not _public(module_name):
            continue
        try:
            module = importlib.import_module(module_name)
        except BaseException:
            continue
        if getattr(module, name, _MISSING) is obj:
            return f"from {module_name} import {name}"
    return None


_MISSING = object()


def _imports_for(source, namespace, job):
    names = _names(source)
    if names is None:
        return None
    lines = []
    for name in names:
        if name in namespace:
            obj = namespace[name]
        elif hasattr(builtins, name):
            continue
        else:
            return None
        line = _import_line(name, obj, job)
        if line is None:
            return None
        if line:
            lines.append(line)
    return sorted(set(lines))


def _types_in(item, found, budget, depth=0):
    if budget[0] <= 0 or depth > 6:
        return
    budget[0] -= 1
    kind = type(item)
    if kind.__module__ != "builtins":
        found.setdefault(kind.__name__, kind)
    if isinstance(item, (list, tuple, set, frozenset)):
        for inner in item:
            _types_in(inner, found, budget, depth + 1)
    elif isinstance(item, dict):
        for key in item:
            _types_in(key, found, budget, depth + 1)
            _types_in(item[key], found, budget, depth + 1)
    elif hasattr(item, "__dict__") and not isinstance(item, (type, types.ModuleType, types.FunctionType)):
        for inner in list(vars(item).values()):
            _types_in(inner, found, budget, depth + 1)


def _describe(result, namespace, job):
    """A value record when repr(result) evaluates back to an equal value of the same type."""
    limit = job["repr_limit"]
    try:
        with _Limit(job["call_timeout"]):
            text = repr(result)
    except BaseException:
        return {"kind": "opaque", "repr": "<repr failed>"}
    if len(text) > limit:
        return {"kind": "opaque", "repr": _short(text)}
    found = {}
    _types_in(result, found, [2000])
    scope = dict(found)
    scope.update(namespace)
    for name, kind in found.items():
        if name in namespace and namespace[name] is not kind:
            scope[name] = kind  # the result's own type wins over an input name it shadows
    scope["__builtins__"] = builtins
    try:
        with _Limit(job["call_timeout"]):
            back = eval(text, scope)
            same = type(back) is type(result) and bool(back == result)
    except BaseException:
        same = False
    if not same:
        return {"kind": "opaque", "repr": _short(text)}
    imports = _imports_for(text, scope, job)
    if imports is None:
        return {"kind": "opaque", "repr": _short(text)}
    return {"kind": "value", "repr": text, "imports": imports}


def _raised(exc, job):
    kind = type(exc)
    return {
        "kind": "raises",
        "type": kind.__name__,
        "mro": [k.__name__ for k in kind.__mro__],
        "import": _import_line(kind.__name__, kind, job),
        "message": _short(str(exc)),
    }


def _compile(source):
    return compile(source, "<selfheal-probe>", "eval")


def _call_once(probe, namespace, member, job):
    try:
        with _Limit(job["call_timeout"]):
            receiver = eval(probe["receiver_code"], namespace) if probe.get("receiver") else None
            args = [eval(code, namespace) for code in probe["arg_codes"]]
            kwargs = dict((name, eval(code, namespace)) for name, code in probe["kwarg_codes"])
    except _Timeout:
        return {"kind": "bad_input", "error": "building the input took too long"}
    except BaseException as exc:
        return {"kind": "bad_input", "error": _short(f"{type(exc).__name__}: {exc}")}
    drained = False
    try:
        with _Limit(job["call_timeout"]):
            if probe.get("receiver"):
                result = getattr(receiver, member)
                if probe.get("call", True):
                    result = result(*args, **kwargs)
            else:
                result = namespace[job["bind"]](*args, **kwargs)
            if isinstance(result, types.GeneratorType):
                items = []
                for item in result:
                    items.append(item)
                    if len(items) > 10000:
                        raise _Timeout()
                result, drained = items, True
    except _Timeout:
        return {"kind": "timeout"}
    except BaseException as exc:
        return _raised(exc, job)
    record = _describe(result, namespace, job)
    if drained:
        record["wrap"] = "list"
    return record


def _key(record):
    if record["kind"] == "raises":
        return ("raises", record["type"])
    return (record["kind"], record.get("repr"), record.get("wrap"))


def _probe(probe, target, job):
    namespace = dict(target["namespace"])
    try:
        for line in probe.get("imports", []):
            exec(line, namespace)
        if "example" in probe:
            return _example(probe, target, job)
        probe["receiver_code"] = _compile(probe["receiver"]) if probe.get("receiver") else None
        probe["arg_codes"] = [_compile(a) for a in probe["args"]]
        probe["kwarg_codes"] = [(k, _compile(v)) for k, v in probe["kwargs"]]
    except BaseException as exc:
        return {"kind": "bad_input", "error": _short(f"{type(exc).__name__}: {exc}")}
    first = _call_once(probe, namespace, job["member"], job)
    if first["kind"] in ("timeout", "bad_input"):
        return first
    second = _call_once(probe, namespace, job["member"], job)
    if _key(first) != _key(second):
        return {"kind": "unstable", "repr": _short(str(first.get("repr", first.get("type"))))}
    inputs = _imports_for(probe["text"], namespace, job)
    if inputs is None:
        first["imports"] = None  # the call itself cannot be written in a test
    elif first.get("imports") is not None:
        first["imports"] = sorted(set(first["imports"]) | set(inputs))
    elif first["kind"] == "raises":
        first["imports"] = inputs
    return first


def _example(probe, target, job):
    """A docstring example, evaluated the way doctest would: in the module's namespace."""
    scope = dict(target["module_globals"])
    scope["__builtins__"] = builtins
    outcomes = []
    for _ in range(2):
        got, raised = None, None
        try:
            with _Limit(job["call_timeout"]):
                got = eval(probe["example"], scope)
        except _Timeout:
            return {"kind": "timeout"}
        except BaseException as exc:
            raised = exc
        if probe.get("raises"):
            ok = raised is not None and probe["raises"] in [k.__name__ for k in type(raised).__mro__]
            text = "raises " + type(raised).__name__ if raised is not None else _short(repr(got))
        elif raised is not None:
            ok, text = False, "raises " + type(raised).__name__
        else:
            try:
                with _Limit(job["call_timeout"]):
                    want = eval(probe["want"], scope)
                    ok = bool(got == want)
                    text = _short(repr(got))
            except BaseException as exc:
                return {"kind": "bad_input", "error": _short(f"{type(exc).__name__}: {exc}")}
        outcomes.append((ok, text))
    if outcomes[0] != outcomes[1]:
        return {"kind": "unstable", "repr": outcomes[0][1]}
    ok, text = outcomes[0]
    imports = _imports_for(probe["example"], scope, job)
    if imports is not None and probe.get("want"):
        wanted = _imports_for(probe["want"], scope, job)
        imports = None if wanted is None else sorted(set(imports) | set(wanted))
    if probe.get("raises") and imports is not None:
        exception = scope.get(probe["raises"], getattr(builtins, probe["raises"], None))
        line = _import_line(probe["raises"], exception, job) if exception is not None else None
        imports = None if line is None else sorted(set(imports) | ({line} if line else set()))
    return {"kind": "example", "ok": ok, "repr": text, "imports": imports}


def _defined_in(function, path):
    while hasattr(function, "__wrapped__"):
        function = function.__wrapped__
    code = getattr(function, "__code__", None)
    if code is None:
        return False
    return os.path.realpath(code.co_filename) == os.path.realpath(path)


def _member(owner, name):
    for klass in getattr(owner, "__mro__", ()):
        if name in vars(klass):
            raw = vars(klass)[name]
            raw = getattr(raw, "__func__", raw)  # staticmethod, classmethod
            return getattr(raw, "fget", raw)  # property
    return None


def _workspace_from_source(root):
    """The workspace's modules are compiled from their text, never taken from a `.pyc`: one left
    beside a file just rewritten with the same size and modification second (the other version of
    the code) would be taken for it, and a planted one is code. Everything else (the interpreter's
    library, installed packages) keeps its compiled cache, which a cache folder of our own for
    every module would throw away: each probe run would compile all the project's dependencies."""
    from importlib import machinery

    class SourceOnly(machinery.SourceFileLoader):
        def get_code(self, fullname):
            return self.source_to_code(self.get_data(self.path), self.path)

    finder = machinery.FileFinder.path_hook(
        (machinery.ExtensionFileLoader, machinery.EXTENSION_SUFFIXES),
        (SourceOnly, machinery.SOURCE_SUFFIXES),
    )
    inside = os.path.join(os.path.realpath(root), "")

    def hook(entry):
        if not os.path.join(os.path.realpath(entry or os.curdir), "").startswith(inside):
            raise ImportError("outside the workspace")
        return finder(entry)

    sys.path_hooks.insert(0, hook)
    sys.path_importer_cache.clear()


def _target(job):
    errors = []
    for line in job["targets"]:
        namespace = {"__builtins__": builtins}
        try:
            with _Limit(job["import_timeout"]):
                exec(line, namespace)
        except BaseException as exc:
            errors.append(f"{line}: {type(exc).__name__}: {_short(str(exc))}")
            continue
        bound = namespace.get(job["bind"])
        function = _member(bound, job["member"]) if job["member"] else bound
        if function is None or not _defined_in(function, job["file"]):
            errors.append(f"{line}: does not reach {job['file']}")
            continue
        module = sys.modules.get(getattr(function, "__module__", ""), None)
        return {
            "line": line,
            "namespace": namespace,
            "module_globals": dict(vars(module)) if module else dict(namespace),
            "module": line.split()[1],
        }, errors
    return None, errors


def main():
    job_path = sys.argv[1]
    with open(job_path, encoding="utf-8") as handle:
        job = json.load(handle)
    try:
        os.remove(job_path)
    except OSError:
        pass
    out = _Out(os.dup(1))
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (open for the life of the process)
    sys.stderr = sys.stdout  # faulthandler still writes to the real stderr (sys.__stderr__)
    sys.stdin = open(os.devnull)  # noqa: SIM115
    signal.signal(signal.SIGALRM, _on_alarm)
    _workspace_from_source(job["root"])
    target, errors = _target(job)
    out.emit({"target": target["line"] if target else None, "errors": errors})
    if target is not None:
        job["modules"] = [target["module"], *job.get("modules", [])]
        for probe in job["probes"][job["start"] :]:
            record = _probe(dict(probe), target, job)
            record["id"] = probe["id"]
            out.emit(record)
    out.emit({"done": True})
    # skip the project's atexit handlers and non-daemon threads: nothing of theirs may hang us
    os._exit(0)


if __name__ == "__main__":
    main()
