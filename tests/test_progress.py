"""The progress bar: done/total, rate, ETA and errors on a terminal; silent otherwise."""

from __future__ import annotations

import io

from rich.console import Console

from winoscope.progress import should_show, track


def terminal() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, force_terminal=True, width=160, color_system=None), buf


def test_bar_shows_done_total_errors_and_rate() -> None:
    console, buf = terminal()
    with track("winobias-uk · openai:m", 10, console=console) as bar:
        for i in range(10):
            bar.advance(error=i in {3, 7})
    text = buf.getvalue()
    assert "winobias-uk · openai:m" in text
    assert "10/10" in text
    assert "2 errors" in text
    assert "/s" in text
    assert bar.done == 10 and bar.errors == 2


def test_stored_answers_are_counted_apart_from_the_bar() -> None:
    console, buf = terminal()
    with track("run", 10, completed=6, console=console) as bar:
        for _ in range(4):
            bar.advance()
    text = buf.getvalue()
    # the bar covers the 4 requests still to ask; the 6 stored ones are named in the label
    assert "run (6 stored)" in text
    assert "4/4" in text
    assert bar.done == 10


def test_quiet_or_not_a_terminal_prints_nothing(capsys) -> None:
    assert should_show(quiet=True) is False
    # under pytest stderr is captured, so it is not a terminal
    assert should_show(quiet=False) is False
    with track("run", 3) as bar:
        bar.advance()
        bar.advance(error=True)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
    assert bar.done == 2 and bar.errors == 1


def test_bar_without_an_error_count() -> None:
    console, buf = terminal()
    with track("scanning 1 file (MB)", 5, console=console, errors=False) as bar:
        bar.advance(5)
    text = buf.getvalue()
    assert "5/5" in text and "errors" not in text
