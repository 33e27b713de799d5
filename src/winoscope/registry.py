"""A tiny name -> object registry used for tasks and backends, filled on first look-up.

Components register themselves with a decorator (``@backend("hf")``, ``task(Task(...))``), so
the registry is the table of contents. Which modules get imported is said by one registration
module per registry, which imports the built-in components by name (``winoscope.families``
for tasks, ``winoscope.backends.registration`` for backends), and by an entry-point group
through which installed distributions add their own (``[project.entry-points."winoscope.tasks"]``,
see docs/plugins.md). Nothing is found by reading source text or walking folders. Both happen on
the first look-up (:meth:`~Registry.get`, :meth:`~Registry.names`, ``in``, iteration), so
importing the registry's package stays cheap, and the package that owns a registry never
imports the modules it registers (the registration module is imported by name).
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from .errors import TaskError

T = TypeVar("T")

# what an entry point's loaded object may be: a module (importing it registered its
# components) or a component, which ``adopt`` registers under the entry point's name
Adopt = Callable[[str, Any], None]


class Registry(Generic[T]):
    def __init__(self, kind: str, error: type[Exception] = TaskError) -> None:
        self.kind = kind
        self._error = error
        self._items: dict[str, T] = {}
        self._discover: Callable[[], None] | None = None
        self._discovered = False

    def register(self, name: str) -> Callable[[T], T]:
        def deco(obj: T) -> T:
            if name in self._items:
                if self._items[name] is obj:  # the same object again (a plugin re-read)
                    return obj
                raise self._error(f"{self.kind} '{name}' is registered twice")
            self._items[name] = obj
            return obj

        return deco

    def add(self, name: str, obj: T) -> None:
        self.register(name)(obj)

    def discover_with(
        self, registration: str | None, group: str, adopt: Adopt | None = None
    ) -> None:
        """On the first look-up, import the module ``registration`` (which imports the built-in
        components) and load every entry point of ``group`` (see :func:`discover`)."""

        def run() -> None:
            discover(registration, group, self, adopt)

        self._discover = run
        self._discovered = False

    def _ensure(self) -> None:
        if self._discovered or self._discover is None:
            return
        self._discovered = True  # set first: modules being imported may look names up
        try:
            self._discover()
        except BaseException:
            self._discovered = False  # the next look-up reports the same error again
            raise

    def get(self, name: str) -> T:
        self._ensure()
        try:
            return self._items[name]
        except KeyError:
            known = ", ".join(sorted(self._items)) or "none"
            raise self._error(f"unknown {self.kind} '{name}' (known: {known})") from None

    def names(self) -> list[str]:
        self._ensure()
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        self._ensure()
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        self._ensure()
        return iter(sorted(self._items))


def entry_point_label(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    where = (
        f"distribution {dist.name} {dist.version}"
        if dist is not None
        else "an unknown distribution"
    )
    return f"entry point '{ep.name} = {ep.value}' (group {ep.group}) of {where}"


def discover(
    registration: str | None, group: str, registry: Registry[Any], adopt: Adopt | None
) -> None:
    """Import the registration module of the built-in components, then load every entry point
    of ``group``.

    An entry point may name a module (``winoscope_plugin_demo.tasks``: importing it registers
    what it defines with the usual decorator) or an object (``winoscope_plugin_demo:TASK``),
    which ``adopt(entry_point_name, obj)`` registers. An entry point that cannot be loaded or
    registered stops with the registry's error naming the entry point and its distribution:
    a plugin that was installed but silently missing would change what a run can ask for.
    """
    from importlib.metadata import entry_points

    if registration:
        importlib.import_module(registration)
    for ep in sorted(entry_points(group=group), key=lambda e: (e.name, e.value)):
        try:
            obj = ep.load()
            if not isinstance(obj, types.ModuleType):
                if adopt is None:
                    raise TypeError(f"expected a module, got {type(obj).__name__}")
                adopt(ep.name, obj)
        except Exception as exc:
            raise registry._error(
                f"{registry.kind} plugin: {entry_point_label(ep)} failed to load: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
