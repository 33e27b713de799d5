"""Datasets: one module per family, the language held as data.

- :mod:`.winobias`: the WinoBias family (``UK``: WinoBias-UK Natural's table; ``EN``: English
  WinoBias's bracket files, read by :mod:`.winobias_brackets`; checks in :mod:`.winobias_card`),
  and :mod:`.winobias_en_conll` (English WinoBias's CoNLL files, the resolver protocol's key);
- :mod:`.winopron`: the WinoPron family (``UK``: WinoPron-UK; ``EN``: English WinoPron;
  ``WINOGENDER``: English Winogender, their template readers in :mod:`.winopron_templates`;
  checks in :mod:`.winopron_checks`);
- :mod:`.swewinogender`: SweWinogender v2.0 (SuperLim 2);
- :mod:`.loading`: :class:`~.loading.ColumnMap` (an adaptation's name, language, card column
  names, sample, hub id) and :func:`~.loading.load_tables`, the one source dispatch (sample,
  URL, file, folder, hub); :mod:`.sources` reads tables, :mod:`.schema` types them,
  :mod:`.provenance` hashes them, :mod:`.conll` and :mod:`.raw_files` read raw formats,
  :mod:`.lexicon` the shipped word tables.

A new adaptation in a family's table layout is one declaration::

    from winoscope.datasets.loading import ColumnMap
    from winoscope.families.winobias.dataset import WinoBias

    DA = WinoBias(ColumnMap("winobias-da", "da", columns={"tekst": "sentence"}, sample=path))
    ds = DA.load()            # or DA.load("file.csv"), DA.load("owner/dataset-on-the-hub")
    issues = DA.validate(ds)
"""
