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
    bodies being read past 8 x --max-body in all ........... 503, connection closed (a body is read
                                                             whole before its signature is checked)
    request line and headers not there within --read-timeout  connection closed

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
from uvicorn.protocols.http.h11_impl import H11Protocol

from selfheal.bot.server.metrics import CONTENT_TYPE, ServerMetrics
from selfheal.bot.server.webhook import ACTED_ON, EVENT, Answer, Intake

DRAIN_FACTOR = 4  # a body up to this many times the cap is read and dropped to answer 413 properly
MAX_HEADER_BYTES = 64 * 1024
BUFFERED_BODIES = 8  # bodies of the largest size read at once, at most
HEADER_TIMEOUT_S = 10.0  # a request's line and headers must arrive within this (the server: --read-timeout)


class HeaderDeadline(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for each request's line and headers: a client
    that trickles them (a byte every few seconds) would otherwise hold its connection, and enough
    of them every connection the server allows, for as long as they like."""

    header_timeout = HEADER_TIMEOUT_S

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._between_requests():
            self._arm()
        super().data_received(data)
        if not self._between_requests():
            self._disarm()  # a request began: its body has the app's read timeout

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.header_timeout, self._late)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _late(self) -> None:
        self._deadline = None
        if self._between_requests() and not self.transport.is_closing():
            self.transport.close()


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
        # bodies are read whole before their signature can be checked: what all deliveries in
        # flight may hold at once, so that unsigned senders cannot fill the memory
        self.max_buffered = max(BUFFERED_BODIES * max_body, max_body)
        self.buffered = 0
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
        held = min(length, self.max_body)
        if self.buffered + held > self.max_buffered:
            # one event loop: the count needs no lock
            return Answer(503, {"error": "too many deliveries are being read; retry later"}), True
        self.buffered += held
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
        finally:
            self.buffered -= held
        if over:
            return too_big, True
        answer = await run_in_threadpool(self.intake.receive, request.headers, bytes(body))
        return answer, False


def _json(answer: Answer, *, close: bool = False) -> Response:
    headers = {"Connection": "close"} if close else None
    return JSONResponse(answer.body, status_code=answer.status, headers=headers)


class HttpServer:
    """uvicorn on a socket bound here (so a taken address fails at start), run in a thread."""

    def __init__(
        self,
        host: str,
        port: int,
        app: WebhookApp,
        *,
        max_connections: int,
        header_timeout: float = HEADER_TIMEOUT_S,
    ) -> None:
        self.sock = socket.create_server((host, port), backlog=256)
        protocol = type("HeaderDeadline", (HeaderDeadline,), {"header_timeout": header_timeout})
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
            http=protocol,
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
