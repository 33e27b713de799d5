"""One name -> record registry for every kind of component, filled on first look-up.

Tasks, families, releases, cross-lingual links, fairness-board benchmarks, backends, metrics,
languages and prompt templates each live in one :class:`Registry`. Components register
themselves when their module is imported (``task(Task(...))``, ``@backend("hf")``,
``metric(...)``, ``register_language(...)``), so the registry is the table of contents. What
gets imported is said in three ways, all run on the first look-up (:meth:`~Registry.get`,
:meth:`~Registry.names`, ``in``, iteration) so that importing a registry's package stays cheap:

- the owner's own components, which sit in or below the owner's package, by a function of the
  owner that imports them with plain import statements (the backends' ``registration``);
- winoscope's own dataset families, which sit above every registry they fill: the explicit
  list of :mod:`winoscope.families` (plain import statements too), which the package's
  ``__init__``, the one module above them, hands to :func:`builtin_families`; a registry the
  families fill names :func:`load_families` as its ``builtin``;
- every installed plugin: the entry points of the one group :data:`PLUGIN_GROUP`, each naming
  a module that registers whatever it defines with the usual decorators (:func:`load_plugins`).
  The groups each registry read before (:data:`DEPRECATED_GROUPS`) are still read after it.

No module is imported from a string (an entry point is loaded by :mod:`importlib.metadata`),
and nothing is found by reading source text or walking folders.
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar, overload

from .errors import TaskError

T = TypeVar("T")
D = TypeVar("D")

#: the one entry-point group of plugins: each entry point names a module that registers what it
#: defines (tasks, families, links, backends, metrics, languages) when it is imported
PLUGIN_GROUP = "winoscope.plugins"
#: the groups read before :data:`PLUGIN_GROUP` existed, one per registry (deprecated): each is
#: still read by the registries that read it, where an entry point may also name an object
DEPRECATED_GROUPS = ("winoscope.tasks", "winoscope.links", "winoscope.backends")

# what an entry point's loaded object may be: a module (importing it registered its
# components) or a component, which ``adopt`` registers under the entry point's name
Adopt = Callable[[str, Any], None]

_MISSING: Any = object()


class Registry(Generic[T]):
    """Records by name. ``error``: the exception for an unknown name and for a second,
    different record under a taken name (``twice(name, old)`` words it; by default
    ``"KIND 'NAME' is registered twice"``); ``same(old, new)``: whether ``new`` states the same
    as ``old``, so registering it again keeps ``old`` (by default only the same object does);
    ``plugin_error``: the exception for a plugin that fails to load (default ``error``);
    ``ordered``: names, ``in`` and iteration by name (else in registration order)."""

    def __init__(
        self,
        kind: str,
        error: type[Exception] = TaskError,
        *,
        same: Callable[[T, T], bool] | None = None,
        twice: Callable[[str, T], str] | None = None,
        plugin_error: type[Exception] | None = None,
        ordered: bool = True,
    ) -> None:
        self.kind = kind
        self._error = error
        self._same = same
        self._twice = twice
        self._plugin_error = plugin_error or error
        self._ordered = ordered
        self._items: dict[str, T] = {}
        self._discover: Callable[[], None] | None = None
        self._discovered = False

    def register(self, name: str) -> Callable[[T], T]:
        def deco(obj: T) -> T:
            self.add(name, obj)
            return obj

        return deco

    def add(self, name: str, obj: T, *, replace: bool = False) -> T:
        """Register ``obj`` under ``name`` and return the record now held: the first one where
        ``obj`` is the same again, ``obj`` where ``replace`` puts it in place of another."""
        old = self._items.get(name, _MISSING)
        if old is not _MISSING and not replace:
            if old is obj or (self._same is not None and self._same(old, obj)):
                return old  # the same record again (a plugin re-read, a shared metric)
            message = self._twice(name, old) if self._twice else None
            raise self._error(message or f"{self.kind} '{name}' is registered twice")
        self._items[name] = obj
        return obj

    def discover_with(
        self,
        builtin: Callable[[], object] | None = None,
        *,
        plugins: bool = False,
        deprecated: str | None = None,
        adopt: Adopt | None = None,
    ) -> None:
        """On the first look-up, call ``builtin`` (which imports the owner's own components,
        or :func:`load_families`), then with ``plugins`` load the plugins (:func:`load_plugins`)
        and every entry point of the ``deprecated`` group (see :func:`discover`)."""

        def run() -> None:
            if builtin is not None:
                builtin()
            if plugins:
                load_plugins(self._plugin_error)
            if deprecated is not None:
                discover(deprecated, self, adopt)

        self._discover = run
        self._discovered = False

    def rebuild(self) -> None:
        """Drop every record and discover again on the next look-up (a view of other
        registries, such as the prompt templates of the languages)."""
        self._items.clear()
        self._discovered = False

    def remove(self, name: str) -> T | None:
        """Drop ``name`` (a record registered for a while, by a test or a session); the record
        it held, or None."""
        return self._items.pop(name, None)

    def _ensure(self) -> None:
        if self._discovered or self._discover is None:
            return
        self._discovered = True  # set first: modules being imported may look names up
        try:
            self._discover()
        except BaseException:
            self._discovered = False  # the next look-up reports the same error again
            raise

    @overload
    def get(self, name: str) -> T: ...

    @overload
    def get(self, name: str, default: D) -> T | D: ...

    def get(self, name: str, default: Any = _MISSING) -> Any:
        """The record of ``name``; ``default`` (where given) for an unknown name, else the
        registry's error listing the known names."""
        self._ensure()
        found = self._items.get(name, _MISSING)
        if found is not _MISSING:
            return found
        if default is not _MISSING:
            return default
        known = ", ".join(sorted(self._items)) or "none"
        raise self._error(f"unknown {self.kind} '{name}' (known: {known})")

    def peek(self, name: str) -> T | None:
        """The record of ``name`` if it is registered already, without discovering anything
        (a look-up that must stay cheap, or may run while its registry's modules import)."""
        return self._items.get(name)

    def names(self) -> list[str]:
        self._ensure()
        return sorted(self._items) if self._ordered else list(self._items)

    def items(self) -> list[tuple[str, T]]:
        return [(n, self._items[n]) for n in self.names()]

    def values(self) -> list[T]:
        return [self._items[n] for n in self.names()]

    def __contains__(self, name: object) -> bool:
        self._ensure()
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        self._ensure()
        return len(self._items)


# winoscope's own families: the function importing them, handed over by winoscope/__init__
_FAMILIES: list[Callable[[], object]] = []


def builtin_families(load: Callable[[], object]) -> None:
    """Hand over the function that imports winoscope's own families (the package's
    ``__init__`` calls it: the families sit above every registry they fill)."""
    _FAMILIES[:] = [load]


def load_families() -> None:
    """Import winoscope's own families (each registers its tasks, family record, metrics,
    releases and links); the ``builtin`` of every registry the families fill."""
    for load in _FAMILIES:
        load()


_PLUGINS: list[bool] = []  # holds True once every plugin was loaded (or is being loaded)


def load_plugins(error: type[Exception] = TaskError) -> None:
    """Import the module each entry point of :data:`PLUGIN_GROUP` names, once (again after a
    failure, so the next look-up reports it too). A module registers whatever it defines when
    it is imported; an entry point naming anything else, or failing to import, is ``error``
    naming the entry point and its distribution (see :func:`plugin_errors`)."""
    if _PLUGINS:
        return
    _PLUGINS.append(True)  # set first: a plugin being imported may look names up
    try:
        for ep in entry_points_of(PLUGIN_GROUP):
            with plugin_errors(ep, "winoscope", error):
                obj = ep.load()
                if not isinstance(obj, types.ModuleType):
                    raise TypeError(f"expected a module, got {type(obj).__name__}")
    except BaseException:
        _PLUGINS.clear()
        raise


def entry_point_label(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    where = (
        f"distribution {dist.name} {dist.version}"
        if dist is not None
        else "an unknown distribution"
    )
    return f"entry point '{ep.name} = {ep.value}' (group {ep.group}) of {where}"


def entry_points_of(group: str) -> list[Any]:
    """The entry points of ``group`` by name, but winoscope's own: its families come in
    through :func:`load_families`, and older metadata of an editable install may still
    declare them in a deprecated group."""
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=group) if _dist_name(ep) != "winoscope"]
    return sorted(found, key=lambda ep: (ep.name, ep.value))


def _dist_name(ep: Any) -> str:
    return str(getattr(getattr(ep, "dist", None), "name", "") or "")


def discover(group: str, registry: Registry[Any], adopt: Adopt | None) -> None:
    """Load every entry point of ``group``, one of the :data:`DEPRECATED_GROUPS`.

    An entry point may name a module (``winoscope_plugin_demo.tasks``: importing it registers
    what it defines with the usual decorator) or an object (``winoscope_plugin_demo:TASK``),
    which ``adopt(entry_point_name, obj)`` registers. An entry point that cannot be loaded or
    registered stops with the registry's error naming the entry point and its distribution:
    a plugin that was installed but silently missing would change what a run can ask for.
    """
    found = entry_points_of(group)
    if found:
        warnings.warn(
            f"the entry-point group {group} is deprecated: declare the plugin's modules in "
            f"{PLUGIN_GROUP} (docs/plugins.md); read here: "
            + ", ".join(entry_point_label(ep) for ep in found),
            DeprecationWarning,
            stacklevel=2,
        )
    for ep in found:
        with plugin_errors(ep, registry.kind, registry._plugin_error):
            obj = ep.load()
            if not isinstance(obj, types.ModuleType):
                if adopt is None:
                    raise TypeError(f"expected a module, got {type(obj).__name__}")
                adopt(ep.name, obj)


def ignore_objects(name: str, obj: Any) -> None:
    """``adopt`` of a registry that reads a deprecated group whose objects another registry
    adopts (a task object of ``winoscope.tasks`` registers no family, release or metric)."""


@contextmanager
def plugin_errors(ep: Any, kind: str, error: type[Exception]) -> Iterator[None]:
    """Any failure while loading or registering ``ep`` as ``error`` naming the entry point."""
    try:
        yield
    except Exception as exc:
        raise error(
            f"{kind} plugin: {entry_point_label(ep)} failed to load: {type(exc).__name__}: {exc}"
        ) from exc
