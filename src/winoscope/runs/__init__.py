"""A run: its settings (:mod:`.config`), then the stages that turn them into numbers and files,
each returning a typed record: the plan (:mod:`.plan`: task, backend, protocol, template,
requests), the record of what was asked and answered (:mod:`.record`: the manifest, built
once), the outcome and its exit status (:mod:`.outcome`), and the runner that takes them in order
and asks ``report`` to write the pages (:mod:`.runner`, which ``winoscope.run`` and
``winoscope.score`` are)."""
