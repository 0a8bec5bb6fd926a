"""The webhook endpoint as an ASGI app (Starlette) served by uvicorn in a thread of the bot server.

    POST /webhook   a delivery -> Intake.receive (signature, payload schema, queue): its Answer
    GET  /healthz   the server and its queue
    GET  /metrics   Prometheus text format

What the transport adds to Intake's answers:

    Transfer-Encoding chunked, or no Content-Length ........ 411
    Content-Length over the drain limit .................... 413 at once, the body unread, connection closed
    body over --max-body ................................... 413 after reading (and dropping) the body, so a
                                                             client that sends it whole, as GitHub does,
                                                             receives the answer, not a broken pipe
    body not all there within --read-timeout seconds ....... 408, connection closed

One event loop serves every connection (no thread per connection); uvicorn answers 503 beyond
--max-connections. Deciding stays in Intake and runs in the thread pool, since the queue is a
blocking database.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from selfheal.bot.metrics import CONTENT_TYPE, ServerMetrics
from selfheal.bot.webhook import ACTED_ON, EVENT, Answer, Intake

DRAIN_FACTOR = 4  # a body up to this many times the cap is read and dropped to answer 413 properly
MAX_HEADER_BYTES = 64 * 1024


class WebhookApp:
    def __init__(
        self,
        intake: Intake,
        health: Callable[[], Answer],
        metrics: ServerMetrics,
        *,
        max_body: int,
        read_timeout: float,
    ) -> None:
        self.intake = intake
        self.health = health
        self.metrics = metrics
        self.max_body = max_body
        self.read_timeout = read_timeout
        self.app = Starlette(
            routes=[
                Route("/webhook", self.webhook, methods=["POST"]),
                Route("/healthz", self.healthz, methods=["GET"]),
                Route("/metrics", self.scrape, methods=["GET"]),
            ]
        )

    async def healthz(self, request: Request) -> Response:
        return _json(await run_in_threadpool(self.health))

    async def scrape(self, request: Request) -> Response:
        data = await run_in_threadpool(self.metrics.exposition)
        return Response(data, media_type=CONTENT_TYPE)

    async def webhook(self, request: Request) -> Response:
        event = request.headers.get(EVENT, "").strip()
        label = event if event in (*ACTED_ON, "ping") else "other"  # a label never takes a sender's text
        answer, close = await self._answer(request)
        outcome = str(answer.body.get("status", "")) if answer.status < 300 else f"http_{answer.status}"
        self.metrics.deliveries.labels(label, outcome or f"http_{answer.status}").inc()
        return _json(answer, close=close)

    async def _answer(self, request: Request) -> tuple[Answer, bool]:
        if "chunked" in request.headers.get("transfer-encoding", "").lower():
            return Answer(411, {"error": "a Content-Length is required"}), True
        try:
            length = int(request.headers.get("content-length", ""))
        except ValueError:
            return Answer(411, {"error": "a Content-Length is required"}), True
        too_big = Answer(413, {"error": f"the body is over {self.max_body} bytes"})
        if length < 0 or length > self.max_body * DRAIN_FACTOR:
            return too_big, True  # not worth reading: the client sees the answer or a closed connection
        body = bytearray()
        over = length > self.max_body
        try:
            async with asyncio.timeout(self.read_timeout):
                async for chunk in request.stream():
                    if not over:
                        body += chunk
                        over = len(body) > self.max_body
        except TimeoutError:
            return Answer(408, {"error": f"the body did not arrive within {self.read_timeout:g}s"}), True
        except ClientDisconnect:
            return Answer(400, {"error": "the client went away mid-body"}), True
        if over:
            return too_big, True
        answer = await run_in_threadpool(self.intake.receive, request.headers, bytes(body))
        return answer, False


def _json(answer: Answer, *, close: bool = False) -> Response:
    headers = {"Connection": "close"} if close else None
    return JSONResponse(answer.body, status_code=answer.status, headers=headers)


class HttpServer:
    """uvicorn on a socket bound here (so a taken address fails at start), run in a thread."""

    def __init__(self, host: str, port: int, app: WebhookApp, *, max_connections: int) -> None:
        self.sock = socket.create_server((host, port), backlog=256)
        config = uvicorn.Config(
            app.app,
            lifespan="off",
            log_config=None,
            log_level="warning",
            access_log=False,
            limit_concurrency=max_connections,
            timeout_keep_alive=5,
            timeout_graceful_shutdown=5,
            h11_max_incomplete_event_size=MAX_HEADER_BYTES,
            server_header=False,
            date_header=False,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, name="webhook", daemon=True
        )

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.sock.getsockname()[:2]
        return host, port

    def start(self, timeout: float = 10.0) -> None:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self) -> None:
        """Stop accepting; requests in flight get uvicorn's graceful shutdown time to finish."""
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
