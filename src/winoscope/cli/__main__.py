"""``python -m winoscope.cli``: the same as the ``winoscope`` command."""

from . import main

main()
