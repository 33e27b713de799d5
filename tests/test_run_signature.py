"""``winoscope.run`` names every setting of a run as a keyword of its own (an editor completes
them, a typo is a TypeError), with the same defaults as :class:`RunConfig`; a run given a
config takes no settings beside it."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import winoscope
from winoscope.runs.config import RUN_DEFAULTS, RunConfig


def test_run_takes_every_setting_of_run_config_by_keyword_with_its_default() -> None:
    params = inspect.signature(winoscope.run).parameters
    keywords = {n: p for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    settings = [f.name for f in dataclasses.fields(RunConfig) if f.name not in ("task", "model")]
    assert list(keywords) == settings
    for name, p in keywords.items():
        default = p.default
        expected = RUN_DEFAULTS[name]
        assert default == expected or (default is None and expected == {}), name
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def test_a_misspelt_setting_or_settings_beside_a_config_are_refused() -> None:
    with pytest.raises(TypeError, match="n_bot"):
        winoscope.run("winobias-uk", "baseline:first", n_bot=10)  # type: ignore[call-arg]
    config = RunConfig("winobias-uk", "baseline:first", n_boot=20)
    with pytest.raises(TypeError, match=r"not n_boot, seed: use run\(config.but"):
        winoscope.run(config, n_boot=50, seed=3)
    assert winoscope.run(config).manifest["bootstrap"]["replicates"] == 20
    assert winoscope.run(config.but(n_boot=30)).manifest["bootstrap"]["replicates"] == 30


@pytest.mark.parametrize("front", [winoscope.sweep, winoscope.diff])
def test_sweep_and_diff_name_every_keyword(front: object) -> None:
    params = inspect.signature(front).parameters  # type: ignore[arg-type]
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def test_sweeps_run_settings_are_runs_own_with_its_defaults(tmp_path: object) -> None:
    """Every run setting ``sweep`` takes is one of ``run``'s, under its name and default (so a
    setting added to RunConfig cannot silently be read otherwise by a sweep)."""
    params = inspect.signature(winoscope.sweep).parameters
    shared = {n: p for n, p in params.items() if n in RUN_DEFAULTS}
    assert set(shared) >= {"data", "limit", "backend_options", "scorer_options", "template"}
    for name, p in shared.items():
        if name in ("n_boot", "seed", "quiet", "tags", "out"):
            continue  # the sweep's own defaults or meaning (None: run's, tags added per point)
        expected = RUN_DEFAULTS[name]
        assert p.default == expected or (p.default is None and expected == {}), name
    with pytest.raises(TypeError, match="n_bot"):
        winoscope.sweep("winobias-uk", {0: "baseline:first"}, out="x", n_bot=3)  # type: ignore[call-arg]
