"""Dataset families, one folder each: WinoBias, WinoPron (with Winogender) and SweWinogender.

A family's folder holds everything about it: the column maps and loaders of its adaptations,
the card checks, item building, tasks, the scorer with its metric declarations, the
cross-lingual join and the coreference view. Nothing outside this package imports a family
module; the rest of winoscope finds the families' tasks through the task registry, which
imports :mod:`winoscope.families.registration` by name on its first look-up.
"""
