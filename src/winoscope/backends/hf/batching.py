"""Batches of similar length, and ``batch_size=auto``: halve on out-of-memory and retry.

With ``auto`` the first batch has ``start`` requests (64 on CUDA, 8 elsewhere). When a batch
runs out of GPU memory (``torch.cuda.OutOfMemoryError``, or MPS's ``RuntimeError`` saying
"out of memory"), the allocator cache is emptied, the size halves and the same requests are
tried again in smaller batches; nothing is answered twice or skipped, because a batch's
results are handed on only after its forward pass succeeded. The size that worked is kept for
the rest of the run (prompts come longest first, so later batches fit too). A request that
does not fit even alone gets an error response. A fixed ``batch_size`` never retries: its
out-of-memory is an error that suggests ``batch_size=auto``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from ...errors import BackendError

R = TypeVar("R")
AUTO_START_CUDA = 64
AUTO_START_OTHER = 8


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of similar length (longest first), to cut padding.

    >>> length_sorted_batches([3, 9, 4, 8, 1], 2)
    [[1, 3], [2, 0], [4]]
    """
    order = length_order(lengths)
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def length_order(lengths: Sequence[int]) -> list[int]:
    return sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))


def is_out_of_memory(exc: BaseException) -> bool:
    import torch

    if isinstance(exc, torch.cuda.OutOfMemoryError):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def _free_cache() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()


@dataclass
class BatchSizer:
    """The batch size in force: fixed, or ``auto`` (halved on out-of-memory, then kept)."""

    size: int
    auto: bool = False
    oom_retries: int = 0
    history: list[int] = field(default_factory=list)

    def run(
        self,
        items: Sequence[int],
        lengths: Sequence[int],
        work: Callable[[list[int]], list[R]],
        fail: Callable[[int, str], R],
    ) -> Iterator[tuple[list[int], list[R]]]:
        """Run ``work`` over ``items`` in length-sorted batches; yield (batch, its results).

        ``fail(item, message)`` builds the result of an item that does not fit even alone.
        """
        order = [items[k] for k in length_order(lengths)]
        pos = 0
        while pos < len(order):
            batch = order[pos : pos + self.size]
            try:
                results = work(batch)
            except Exception as exc:
                if not is_out_of_memory(exc):
                    raise
                _free_cache()
                if not self.auto:
                    raise BackendError(
                        f"out of memory at batch_size={self.size}; use a smaller batch_size "
                        "or batch_size=auto"
                    ) from exc
                self.oom_retries += 1
                if len(batch) == 1:
                    yield batch, [fail(batch[0], f"out of memory even alone: {exc}")]
                    pos += 1
                    continue
                self.size = max(1, len(batch) // 2)
                self.history.append(self.size)
                continue
            yield batch, results
            pos += len(batch)
