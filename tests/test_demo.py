"""``winoscope demo`` on the grid executor: one backend per point, closed after its runs."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from winoscope.backends import baselines
from winoscope.studies.demo import run_demo


def test_demo_makes_each_points_backend_once_and_closes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    closed: list[str] = []

    class Counted(baselines.BaselineBackend):  # the real baseline, counted as it is made/closed
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self.model)

        def close(self) -> None:
            closed.append(self.model)

    monkeypatch.setattr(baselines, "BaselineBackend", Counted)
    tasks = ("winobias-uk/coref", "winopron-uk/coref")  # the same three baselines each
    run_demo(tmp_path / "demo", quiet=True, tasks=tasks, lm=False)
    assert Counter(made) == {"agreement": 1, "first": 1, "stereotype": 1}
    assert sorted(closed) == sorted(made)
    runs = sorted(d.name for d in (tmp_path / "demo").iterdir() if (d / "manifest.json").is_file())
    assert runs == [
        f"{t.replace('/', '_')}__baseline_{m}"
        for t in tasks
        for m in ("agreement", "first", "stereotype")
    ]
