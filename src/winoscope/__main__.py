"""``python -m winoscope``: the same as the ``winoscope`` command."""

from .cli import main

main()
