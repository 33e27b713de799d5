"""Dataset families, one folder each: WinoBias, WinoPron (with Winogender) and SweWinogender.

A family's folder holds everything about it: the column maps and loaders of its adaptations,
the bundled samples (``samples/``), the card checks, item building, tasks, the scorer with its
metric declarations, the cross-lingual join and the coreference view; its tests are in
``tests/families/<name>/`` and its page in ``docs/`` (its package docstring names it).

Nothing outside this package imports a family module. The registries load the
``winoscope.tasks`` and ``winoscope.links`` entry points on their first look-up; winoscope's
pyproject names each family's package there, and importing it registers the family's tasks,
metrics, links and :class:`~winoscope.tasks.family.Family` record.
"""
