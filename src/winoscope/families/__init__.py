"""Dataset families, one folder each: WinoBias, WinoPron (with Winogender) and SweWinogender.

A family's folder holds everything about it: the column maps and loaders of its adaptations,
the bundled samples (``samples/``), the card checks, item building, tasks, the scorer with its
metric declarations, the cross-lingual join and the coreference view; its tests are in
``tests/families/<name>/`` and its page in ``docs/`` (its package docstring names it).

Nothing outside this package imports a family module but the package's ``__init__``, which
hands :func:`register` to :func:`winoscope.registry.builtin_families`: the registries the
families fill (tasks, families, metrics, releases, links, fairness-board benchmarks) call it on
their first look-up, and importing a family's package registers its tasks, metrics, links and
:class:`~winoscope.tasks.family.Family` record. A new family is one more folder and one more
name in :data:`BUILTIN` and in :func:`register`'s import statement; no entry point, so no
reinstall.
"""

#: winoscope's own families, the packages :func:`register` imports
BUILTIN = ("bbq", "stereoset", "swewinogender", "winobias", "winobias_controlled", "winopron")


def register() -> None:
    """Import every family of :data:`BUILTIN` (each registers itself when imported)."""
    from . import (  # noqa: F401
        bbq,
        stereoset,
        swewinogender,
        winobias,
        winobias_controlled,
        winopron,
    )
