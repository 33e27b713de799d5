"""Run a coroutine on its own event loop in a background thread and iterate over what it
produces, so a backend's ``respond`` stays a plain iterator.

The loop thread appends results to a deque; the caller's thread drains it every ``poll``
seconds, so the two threads do not hand the GIL over once per result. The producer sets
``ended`` after its last result so that result is not held back a poll period. An exception in
the coroutine is raised in the caller's thread; closing the iterator early cancels the
coroutine.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

Producer = Callable[[deque[Any], threading.Event], Awaitable[None]]


def iterate_in_thread(produce: Producer, total: int, poll: float, name: str) -> Iterator[Any]:
    """Yield the ``total`` results ``produce(out, ended)`` appends to ``out``."""
    out: deque[Any] = deque()
    ended = threading.Event()
    loop = asyncio.new_event_loop()
    main: asyncio.Task[None] | None = None

    async def start() -> None:
        nonlocal main
        main = asyncio.current_task()
        await produce(out, ended)

    def thread_main() -> None:
        try:
            loop.run_until_complete(start())
        except asyncio.CancelledError:
            pass
        except BaseException as exc:
            out.append(_Raised(exc))
        finally:
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
            out.append(_END)
            ended.set()

    worker = threading.Thread(target=thread_main, name=name, daemon=True)
    worker.start()
    finished = False
    remaining = total
    try:
        while remaining:
            if not out:
                ended.wait(poll)
                continue
            item = out.popleft()
            if item is _END:
                finished = True
                return
            if isinstance(item, _Raised):
                raise item.exc
            remaining -= 1
            yield item
        finished = True
    finally:
        if not finished:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(lambda: main is not None and main.cancel())
            worker.join(timeout=10)


class _Raised:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


_END = object()
