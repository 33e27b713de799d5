"""A tiny name -> object registry used for tasks and backends, filled on first look-up.

Components register themselves with a decorator (``@backend("hf")``, ``task(Task(...))``), so
the registry is the table of contents. What gets imported is said in two ways, both run on the
first look-up (:meth:`~Registry.get`, :meth:`~Registry.names`, ``in``, iteration) so that
importing the registry's package stays cheap:

- the owner's own components, which sit in or below the owner's package, by a function of the
  owner that imports them with plain import statements (the backends' ``registration``);
- everything that sits above the owner, by an entry-point group: winoscope's own families
  (``[project.entry-points."winoscope.tasks"]`` in its pyproject) and every installed plugin
  alike (docs/plugins.md). The task registry never names a family, and no module is imported
  from a string: an entry point is loaded by :mod:`importlib.metadata`.

Nothing is found by reading source text or walking folders.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
        self,
        group: str,
        adopt: Adopt | None = None,
        builtin: Callable[[], object] | None = None,
        own: bool = False,
    ) -> None:
        """On the first look-up, call ``builtin`` (which imports the owner's own components) and
        load every entry point of ``group`` (see :func:`discover`); ``own``: winoscope itself
        declares entry points in ``group``."""

        def run() -> None:
            if builtin is not None:
                builtin()
            discover(group, self, adopt, own)

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


def entry_points_of(group: str) -> list[Any]:
    """The entry points of ``group``: winoscope's own first (a plugin may build on a built-in
    task), then the others by name."""
    from importlib.metadata import entry_points

    def key(ep: Any) -> tuple[bool, str, str]:
        dist = getattr(ep, "dist", None)
        return (getattr(dist, "name", "") != "winoscope", ep.name, ep.value)

    return sorted(entry_points(group=group), key=key)


def discover(group: str, registry: Registry[Any], adopt: Adopt | None, own: bool = False) -> None:
    """Load every entry point of ``group``; with ``own``, winoscope's own must be among them.

    An entry point may name a module (``winoscope_plugin_demo.tasks``: importing it registers
    what it defines with the usual decorator) or an object (``winoscope_plugin_demo:TASK``),
    which ``adopt(entry_point_name, obj)`` registers. An entry point that cannot be loaded or
    registered stops with the registry's error naming the entry point and its distribution:
    a plugin that was installed but silently missing would change what a run can ask for.
    An installation whose metadata predates winoscope's own entry points (an editable install
    made before they were declared) is told to reinstall rather than finding nothing.
    """
    found = entry_points_of(group)
    if own and not any(getattr(ep.dist, "name", "") == "winoscope" for ep in found):
        raise registry._error(
            f"winoscope declares no entry points of group {group} in its installed metadata, "
            "which is older than its source: reinstall it (pip install -e . in a checkout)"
        )
    for ep in found:
        with plugin_errors(ep, registry.kind, registry._error):
            obj = ep.load()
            if not isinstance(obj, types.ModuleType):
                if adopt is None:
                    raise TypeError(f"expected a module, got {type(obj).__name__}")
                adopt(ep.name, obj)


@contextmanager
def plugin_errors(ep: Any, kind: str, error: type[Exception]) -> Iterator[None]:
    """Any failure while loading or registering ``ep`` as ``error`` naming the entry point."""
    try:
        yield
    except Exception as exc:
        raise error(
            f"{kind} plugin: {entry_point_label(ep)} failed to load: {type(exc).__name__}: {exc}"
        ) from exc
