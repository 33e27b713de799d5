"""Model backends. The built-in kinds are registered by :mod:`.registration` and every
``winoscope.backends`` entry point of an installed distribution adds its own, both on the first
look-up in :data:`BACKENDS` (see :mod:`winoscope.registry` and docs/plugins.md)."""

from typing import Any

from .base import (
    BACKENDS,
    Backend,
    backend,
    close_backend,
    create_backend,
    model_label,
    parse_model_spec,
)

ENTRY_POINT_GROUP = "winoscope.backends"


def _adopt(name: str, obj: Any) -> None:
    """An entry point naming a factory (``KIND = package.module:make_backend``) registers it as
    backend kind ``KIND``: ``make_backend(name, **options)`` returns a :class:`Backend`."""
    if not callable(obj):
        raise TypeError(f"expected a backend factory or a module, got {type(obj).__name__}")
    BACKENDS.add(name, obj)


def _builtin() -> None:
    """The built-in kinds: importing :mod:`.registration` registers them."""
    from . import registration  # noqa: F401


BACKENDS.discover_with(ENTRY_POINT_GROUP, _adopt, builtin=_builtin)

__all__ = [
    "BACKENDS",
    "ENTRY_POINT_GROUP",
    "Backend",
    "backend",
    "close_backend",
    "create_backend",
    "model_label",
    "parse_model_spec",
]
