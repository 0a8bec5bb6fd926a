"""A fake Docker engine on a Unix socket that answers, has no image and cannot pull one (stdlib only).

It stands for a runner whose Docker engine is up while Docker Hub cannot be reached: what the
engine then answers, docker-py raises as it would there. Served, as the Engine API has them:

* ``GET /_ping`` (also ``HEAD``) -> ``OK``; ``GET /version`` (with or without ``/v1.NN``) -> the
  version document docker-py reads to choose its API version;
* ``GET /v1.NN/images/NAME/json`` -> 404 ``{"message": "No such image: NAME"}``;
* ``POST /v1.NN/images/create?fromImage=...&tag=...`` -> 500 with ``PULL_ERROR``, what dockerd
  says when its resolver cannot find the registry;
* anything else -> 404 ``{"message": "page not found"}``.

``FakeDockerEngine.start()`` serves it on a thread; pass ``engine.docker_host`` as ``DOCKER_HOST``.
``engine.requests`` lists ``(method, path)`` of every request in order.
"""

from __future__ import annotations

import json
import re
import shutil
import socketserver
import tempfile
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path

API_VERSION = "1.43"
# dockerd's answer to a pull when the registry's name does not resolve (the resolver is the
# runner's; this one is from the report that found the leak)
PULL_ERROR = (
    'Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io on '
    "10.255.255.53:53: no such host"
)
VERSION = {
    "Version": "24.0.7",
    "ApiVersion": API_VERSION,
    "MinAPIVersion": "1.12",
    "Os": "linux",
    "Arch": "amd64",
    "KernelVersion": "6.1.0",
}
_VERSIONED = re.compile(r"^/v\d+\.\d+(/.*)$")


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    requests: list[tuple[str, str]]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass  # a Unix socket has no client address to log, and a test reads `requests`

    def _answer(self, status: int, body: object, content_type: str = "application/json") -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Api-Version", API_VERSION)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _route(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.server.requests.append((self.command, self.path))
        path = self.path.split("?", 1)[0]
        versioned = _VERSIONED.match(path)
        path = versioned.group(1) if versioned else path
        if path == "/_ping":
            self._answer(200, "OK", "text/plain; charset=utf-8")
        elif path == "/version" and self.command == "GET":
            self._answer(200, VERSION)
        elif self.command == "GET" and path.startswith("/images/") and path.endswith("/json"):
            name = path.removeprefix("/images/").removesuffix("/json")
            self._answer(404, {"message": f"No such image: {name}"})
        elif self.command == "POST" and path == "/images/create":
            self._answer(500, {"message": PULL_ERROR})
        else:
            self._answer(404, {"message": "page not found"})

    do_GET = do_HEAD = do_POST = do_DELETE = _route


class FakeDockerEngine:
    def __init__(self, server: _Server, folder: Path) -> None:
        self._server = server
        self._folder = folder
        self.socket = folder / "docker.sock"
        self.docker_host = f"unix://{self.socket}"
        self.requests = server.requests
        self._thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)

    @classmethod
    def start(cls) -> FakeDockerEngine:
        # a short folder of its own: a Unix socket's path has room for about 100 bytes
        folder = Path(tempfile.mkdtemp(prefix="fake-docker-"))
        server = _Server(str(folder / "docker.sock"), _Handler)
        server.requests = []
        engine = cls(server, folder)
        engine._thread.start()
        return engine

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        shutil.rmtree(self._folder, ignore_errors=True)
