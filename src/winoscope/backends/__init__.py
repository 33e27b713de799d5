"""Model backends. The built-in kinds are registered by :mod:`.registration` and every
installed plugin adds its own (``winoscope.plugins`` entry points, and the deprecated
``winoscope.backends`` group), both on the first look-up in :data:`BACKENDS` (see
:mod:`winoscope.registry` and docs/plugins.md)."""

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

#: the deprecated entry-point group of backends (plugins now declare ``winoscope.plugins``)
ENTRY_POINT_GROUP = "winoscope.backends"


def _adopt(name: str, obj: Any) -> None:
    """An entry point of the deprecated group naming a factory
    (``KIND = package.module:make_backend``) registers it as backend kind ``KIND``:
    ``make_backend(name, **options)`` returns a :class:`Backend`."""
    if not callable(obj):
        raise TypeError(f"expected a backend factory or a module, got {type(obj).__name__}")
    BACKENDS.add(name, obj)


def _builtin() -> None:
    """The built-in kinds: importing :mod:`.registration` registers them."""
    from . import registration  # noqa: F401


BACKENDS.discover_with(_builtin, plugins=True, deprecated=ENTRY_POINT_GROUP, adopt=_adopt)

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
