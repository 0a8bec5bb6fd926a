"""The bot server's log (bot/server/log.py): one line per thing, secrets masked, nothing that drives a
terminal."""

from __future__ import annotations

import io
import re

from selfheal.bot.server.log import Redactor, ServerLog, printable

TOKEN = "ghs_0123456789abcdefABCDEF"


def test_a_line_from_repository_text_cannot_rewrite_the_operator_s_terminal() -> None:
    stream = io.StringIO()
    log = ServerLog(stream, Redactor(TOKEN))
    branch = "fix\r2026 selfheal-bot: all good\x1b[2K\x1b]0;owned\x07"
    log.info(f"job 3: healing {branch} with {TOKEN}\nsecond line \u202eeulav\u2066x\u200b")
    [line] = stream.getvalue().splitlines()  # splitlines also splits on \r, \x1c-\x1e, \x85, \u2028
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d selfheal-bot: .*", line)
    assert line.endswith(
        "selfheal-bot: job 3: healing fix\\r2026 selfheal-bot: all good\\x1b[2K\\x1b]0;owned\\x07 with *** "
        "| second line \\u202eeulav\\u2066x\\u200b"
    )


def test_printable_text_is_left_as_it_is() -> None:
    text = "tests/test_ünïcode.py::test_a[1-2]\twith a tab, café, 名前"
    assert printable(text) == text
    assert printable("\x00\x85\ufeff") == "\\x00\\x85\\ufeff"
