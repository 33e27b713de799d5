"""Command line: thin typer commands over the Python API (``winoscope.run``, ``winoscope.score``
...), one module per command group; :mod:`.app` puts them together."""

from .app import app, main

__all__ = ["app", "main"]
