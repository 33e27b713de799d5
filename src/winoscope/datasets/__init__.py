"""Datasets: what every family shares, the language held as data.

The families' own loaders live in their folders (``winoscope.families.winobias.dataset`` and
the others); this package holds what they share: :mod:`.loading` (:class:`~.loading.ColumnMap`,
an adaptation's name, language, card column names, sample and hub id, and
:func:`~.loading.load_tables`, the one source dispatch: sample, URL, file, folder, hub),
:mod:`.adaptation` (the base of a family read as one table), :mod:`.sources` (reading
tables), :mod:`.schema` (typing them), :mod:`.provenance` (hashing them), :mod:`.annotation`
(square-bracket coreference annotation), :mod:`.conll` and :mod:`.raw_files` (raw formats),
:mod:`.base` and :mod:`.validation` (the loaded dataset and its findings).

A new adaptation in a family's table layout is one declaration::

    from winoscope.datasets.loading import ColumnMap
    from winoscope.families.winobias.dataset import WinoBias

    DA = WinoBias(ColumnMap("winobias-da", "da", columns={"tekst": "sentence"}, sample=path))
    ds = DA.load()            # or DA.load("file.csv"), DA.load("owner/dataset-on-the-hub")
    issues = DA.validate(ds)
"""
