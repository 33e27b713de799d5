"""The worked examples in the report modules' docstrings are run."""

from __future__ import annotations

import doctest

import pytest

from winoscope.report import plots, tables


@pytest.mark.parametrize("module", [plots, tables], ids=lambda m: m.__name__)
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module, raise_on_error=False)
    assert result.attempted > 0
    assert result.failed == 0
