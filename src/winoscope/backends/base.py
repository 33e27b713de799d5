"""The backend interface and the registry that turns a model spec into a backend.

A model spec is ``KIND:NAME`` (``baseline:agreement``, ``openai:gpt-4o-mini``,
``hf:./my-model``). Each kind registers a factory with :func:`backend`; the factory receives the
name and keyword options from the CLI or the Python API.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol, cast, runtime_checkable

from ..errors import BackendError
from ..records import CHOICE_PROTOCOLS, NO_MODES, PROTOCOLS, Description, Request, Response
from ..registry import Registry

ProgressFn = Callable[[Response], None]

__all__ = ["CHOICE_PROTOCOLS", "NO_MODES", "PROTOCOLS", "Backend", "Description"]


@runtime_checkable
class Backend(Protocol):
    """Anything that answers requests.

    ``kind`` and ``model`` identify it; ``params`` holds every generation or scoring parameter
    that changes answers (temperature, max tokens, scoring mode, seed ...), recorded in the
    manifest and part of the response-store key. ``cacheable`` is False for backends whose
    answers cost nothing to recompute (reference baselines). ``protocols`` says which of
    :data:`PROTOCOLS` it answers (a run checks the one it asks against it); a backend with a
    ``mode`` option also states ``modes``, every mode it can be set to with the protocols it
    answers in that mode, and ``mode``, the one it is set to (``protocols`` is then
    ``modes[mode]``). :meth:`describe` says what the manifest records about it besides
    ``params``.
    """

    kind: str
    model: str
    cacheable: bool

    @property
    def params(self) -> dict[str, Any]:
        """The parameters that change answers (an attribute or a property)."""
        ...

    @property
    def protocols(self) -> frozenset[str]:
        """The protocols this backend answers, in its present mode."""
        ...

    @property
    def mode(self) -> str | None:
        """The mode it is set to (``-M mode=...``); None for a backend without modes."""
        ...

    @property
    def modes(self) -> Mapping[str, frozenset[str]]:
        """Each mode it can be set to and the protocols it answers in it (:data:`NO_MODES`,
        empty, for a backend without modes)."""
        ...

    def describe(self) -> Description:
        """Runtime, transport and output facts for the manifest (read after answering)."""
        ...

    def respond(self, requests: Sequence[Request]) -> Iterator[Response]:
        """Yield one response per request, in any order, as they complete."""
        ...


#: the members of :class:`Backend`, for the error naming what an object lacks
BACKEND_MEMBERS = (
    "kind",
    "model",
    "cacheable",
    "params",
    "protocols",
    "mode",
    "modes",
    "describe",
    "respond",
)


def _has(obj: object, name: str) -> bool:
    try:
        inspect.getattr_static(obj, name)
    except AttributeError:
        return False
    return True


def check_backend(obj: object, source: str = "the model object") -> Backend:
    """``obj`` itself when it has every member of :class:`Backend`, else one error naming the
    members it lacks (a model object from Python, or what a plugin's factory returned).

    Members are looked up without being read (``inspect.getattr_static``): reading ``params``
    of a model held in Python fingerprints its weights, which a run does once, when it asks.
    """
    missing = [m for m in BACKEND_MEMBERS if not _has(obj, m)]
    if not missing:
        return cast(Backend, obj)
    raise BackendError(
        f"{source} ({type(obj).__name__}) is not a backend: it lacks {', '.join(missing)} "
        "(see winoscope.backends.base.Backend)"
    )


BackendFactory = Callable[..., Backend]
BACKENDS: Registry[BackendFactory] = Registry("backend", error=BackendError)


#: the options each backend kind declared it takes (its factory refuses any other): what a
#: study file's ``model_args`` are checked against before any job starts
BACKEND_OPTIONS: dict[str, tuple[str, ...]] = {}


def backend(
    kind: str, options: Sequence[str] | None = None
) -> Callable[[BackendFactory], BackendFactory]:
    """Register a backend factory under ``kind`` (the part of a model spec before the colon),
    with the names of the options it takes when it declares them."""
    if options is not None:
        BACKEND_OPTIONS[kind] = tuple(options)
    return BACKENDS.register(kind)


def reject_unknown(kind: str, unknown: Mapping[str, Any], known: Sequence[str]) -> None:
    """One clear error for options a backend does not take, naming it and what it knows.

    Every factory calls this with the options left over after its own keyword arguments, so a
    misspelt option (``temprature=0.7``) stops the run instead of being ignored. Options whose
    value is None count as not given (callers pass unset optional settings as None).
    """
    given = sorted(k for k, v in unknown.items() if v is not None)
    if given:
        raise BackendError(
            f"{kind} backend: unknown option(s) {', '.join(given)} "
            f"(known: {', '.join(known) or 'none'})"
        )


def parse_model_spec(spec: str) -> tuple[str, str]:
    kind, sep, name = spec.partition(":")
    if not sep or not kind or not name:
        raise BackendError(
            f"model spec '{spec}' must look like KIND:NAME, e.g. baseline:agreement "
            f"(kinds: {', '.join(BACKENDS.names())})"
        )
    return kind, name


def create_backend(spec: str, **options: Any) -> Backend:
    """Build the backend for ``spec``; options a factory does not know are rejected by it."""
    kind, name = parse_model_spec(spec)
    factory = BACKENDS.get(kind)
    return check_backend(factory(name, **options), f"the {kind} factory's backend")


def close_backend(b: object) -> None:
    """Release what a backend holds beyond memory (``vllm:``'s engine and its processes) by its
    ``close()``, an optional member of :class:`Backend`; a backend without one holds nothing to
    release. Whoever made the backend closes it, once done with it."""
    close = getattr(b, "close", None)
    if callable(close):
        close()


def model_label(b: Backend) -> str:
    return f"{b.kind}:{b.model}"


def model_display(model: Mapping[str, Any]) -> str:
    """A manifest's model as pages name it: the spec, and the PEFT adapter put on it
    (``hf:models/base + peft:out/lora-debias``), which the spec alone does not show."""
    spec = str(model.get("spec", "?"))
    adapter = (model.get("runtime") or {}).get("adapter_path")
    return f"{spec} + peft:{adapter}" if adapter else spec
