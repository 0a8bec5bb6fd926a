"""CappedBuffer and drain_in_background: bounded capture that keeps a head and a tail."""

from __future__ import annotations

import os

from selfheal.sandbox.output import CappedBuffer, drain_in_background


def marker(dropped: int) -> bytes:
    return f"\n[... {dropped} bytes of output dropped by selfheal ...]\n".encode()


def test_under_the_limit_everything_is_kept() -> None:
    buf = CappedBuffer(4096)
    buf.feed(b"hello ")
    buf.feed(b"world\n")
    assert buf.truncated is False
    assert buf.text() == "hello world\n"


def test_exactly_at_the_limit_is_not_truncated() -> None:
    buf = CappedBuffer(4096)
    buf.feed(b"a" * 4096)
    assert buf.truncated is False
    assert buf.text() == "a" * 4096


def test_over_the_limit_keeps_head_quarter_and_tail_rest() -> None:
    data = bytes(range(256)) * 40 + b"".join(b"%06d\n" % i for i in range(5000))
    buf = CappedBuffer(4096)
    buf.feed(data)
    assert buf.truncated is True
    head, tail = data[:1024], data[-3072:]
    dropped = len(data) - 4096
    assert buf.text() == (head + marker(dropped) + tail).decode("utf-8", "replace")
    assert buf.text().endswith("004999\n")


def test_chunked_feed_equals_single_feed() -> None:
    data = b"".join(b"line %d\n" % i for i in range(3000))
    whole = CappedBuffer(2048)
    whole.feed(data)
    pieces = CappedBuffer(2048)
    for start in range(0, len(data), 7):
        pieces.feed(data[start : start + 7])
    assert pieces.text() == whole.text()
    assert pieces.truncated is whole.truncated is True
    assert pieces.text().startswith("line 0\nline 1\n")
    assert pieces.text().endswith("line 2999\n")
    assert marker(len(data) - 2048).decode() in pieces.text()


def test_limit_has_a_floor_of_1024() -> None:
    buf = CappedBuffer(10)
    assert buf.limit == 1024
    buf.feed(b"b" * 1024)
    assert buf.truncated is False
    buf.feed(b"c")
    assert buf.truncated is True
    assert buf.text() == "b" * 256 + marker(1).decode() + "b" * 767 + "c"


def test_drain_in_background_reads_a_pipe_to_end_of_stream() -> None:
    read_fd, write_fd = os.pipe()
    reader = os.fdopen(read_fd, "rb")
    buf = CappedBuffer(1024)
    thread = drain_in_background(reader, buf)
    payload = b"HEAD" + b"." * 200_000 + b"TAIL"
    view = memoryview(payload)
    while view:
        written = os.write(write_fd, view[:65536])
        view = view[written:]
    os.close(write_fd)
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert reader.closed
    assert buf.truncated is True
    text = buf.text()
    assert text.startswith("HEAD")
    assert text.endswith("TAIL")
    assert marker(len(payload) - 1024).decode() in text
