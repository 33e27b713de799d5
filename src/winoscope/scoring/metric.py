"""What a metric means, declared once next to the code that computes it.

A scorer declares each metric it writes::

    metric(
        "signed_bias_gap",
        kind="gap",
        direction="zero",
        components=("pro_accuracy", "anti_accuracy"),
        label="pro − anti accuracy",
        card="Pro-stereotypical minus anti-stereotypical accuracy; 0 is no bias.",
    )

and plots, tables, headline cards and comparison verdicts ask :func:`get_metric` what a name
means instead of reading it (a "gap" in the name, a "minus", a pronoun token). ``kind`` says
what the value is:

- ``accuracy``, ``f1``, ``agreement`` (chance-corrected agreement such as Krippendorff's
  alpha), ``consistency`` (a share of items answered the same way twice), ``share`` (a share of
  answers picking something, no right answer), ``rate`` (a share of answers of a kind, e.g.
  invalid), ``correlation``, ``count``;
- ``gap``: a difference of two metrics, ``components = (a, b)`` meaning ``a - b``; a signed gap
  has ``direction="zero"`` (its sign matters), an absolute one ``direction="lower"``.

``direction`` says which values are good: ``higher``, ``lower``, ``zero`` (0 is no difference),
``one`` (1 is perfect, e.g. parity), ``none`` (no better value, e.g. a share). ``group`` names
the condition or pronoun gender a metric is restricted to (``pro``, ``anti``, ``male``,
``female``, ``han`` ...) and ``measure`` the measure it restricts (``accuracy``, ``conll_f1``),
so a by-group plot can line up ``pro_accuracy`` with ``anti_accuracy``. ``role`` marks a
task's ``overall`` score and ``diagnostic`` checks of the answers (option-order consistency).

Declaring the same name twice with the same meaning is allowed (two scorers that share a
metric: the first declaration is kept); with a different meaning it is an error. The
declarations are the registry :data:`METRICS` (:class:`winoscope.registry.Registry`), which
imports winoscope's own families and the plugins on its first look-up. A name nobody declared
gets a neutral spec (kind ``count``, direction ``none``) from :func:`get_metric`, so a
third-party task's metrics are shown as plain numbers until it declares them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, get_args

from ..errors import TaskError
from ..registry import Registry, ignore_objects, load_families

Kind = Literal[
    "accuracy", "gap", "agreement", "share", "count", "correlation", "f1", "rate", "consistency"
]
Direction = Literal["higher", "lower", "zero", "one", "none"]
# "overall": a task's single overall score (shown first after the signed gaps); "diagnostic": a
# check of the answers rather than a result (option-order consistency, invalid rate)
Role = Literal["", "overall", "diagnostic"]
KINDS: tuple[str, ...] = get_args(Kind)
DIRECTIONS: tuple[str, ...] = get_args(Direction)
# the conditions and pronoun genders a metric can be restricted to, in plotting order
CONDITION_GROUPS = ("pro", "anti")
GENDER_GROUPS = (
    "male",
    "female",
    "plural",
    "neutral",
    "nonbinary",
    "he",
    "she",
    "they",
    "han",
    "hon",
    "hen",
)


@dataclass(frozen=True)
class MetricSpec:
    """The meaning of one metric name (see the module docstring)."""

    name: str
    kind: Kind
    direction: Direction
    components: tuple[str, ...] = ()
    label: str = ""
    card: str = ""
    group: str = ""
    measure: str = ""
    role: Role = ""
    declared: bool = True
    #: protocols under which the metric is fixed by construction (never a hypothesis there)
    constant_under: tuple[str, ...] = ()
    # the module that declared it (not part of the meaning: two scorers may share a metric)
    module: str = field(default="", compare=False)

    @property
    def signed_gap(self) -> bool:
        """A difference whose sign matters (shown around zero, coloured by side)."""
        return self.kind == "gap" and self.direction == "zero"

    @property
    def is_score(self) -> bool:
        """A score with a right answer (accuracy or F1): what by-group plots show."""
        return self.kind in ("accuracy", "f1")

    @property
    def display(self) -> str:
        """The label, or the name with spaces."""
        return self.label or self.name.replace("_", " ")


METRICS: Registry[MetricSpec] = Registry(
    "metric",
    ValueError,
    same=lambda old, new: old == new,
    twice=lambda name, old: f"metric {name!r} is already declared with another meaning: {old}",
    plugin_error=TaskError,
)
# every task's scorer, so a report drawn from a run directory alone knows every metric: each
# family's package, winoscope's own and a plugin's alike, declares its metrics when imported (the
# shared scorers, .base and .coref, come in with the tasks that use them)
METRICS.discover_with(
    load_families, plugins=True, deprecated="winoscope.tasks", adopt=ignore_objects
)

F = TypeVar("F", bound=Callable[..., object])


def metric(
    name: str,
    *,
    kind: Kind,
    direction: Direction,
    components: Iterable[str] = (),
    label: str = "",
    card: str = "",
    group: str = "",
    measure: str = "",
    role: Role = "",
    constant_under: Iterable[str] = (),
    module: str = "",
) -> Callable[[F], F]:
    """Declare ``name``; usable as a plain call or as a decorator on the function computing it.
    ``module`` names the declaring scorer's module (:class:`Declarations` passes it).

    >>> _ = metric("made_up_difference", kind="gap", direction="zero",
    ...            components=("a_accuracy", "b_accuracy"))
    >>> get_metric("made_up_difference").signed_gap
    True
    >>> gap_meaning("made_up_difference")
    'a accuracy − b accuracy'
    """
    if kind not in KINDS:
        raise ValueError(f"metric {name!r}: unknown kind {kind!r}; one of {', '.join(KINDS)}")
    if direction not in DIRECTIONS:
        raise ValueError(
            f"metric {name!r}: unknown direction {direction!r}; one of {', '.join(DIRECTIONS)}"
        )
    comps = tuple(components)
    if kind == "gap" and len(comps) != 2:
        raise ValueError(f"metric {name!r}: a gap names its two components (a, b) for a - b")
    spec = MetricSpec(
        name,
        kind,
        direction,
        comps,
        label,
        card,
        group,
        measure,
        role,
        True,
        tuple(constant_under),
        module,
    )
    METRICS.add(name, spec)

    def decorate(fn: F) -> F:
        return fn

    return decorate


def group_metrics(
    measure: str,
    groups: Mapping[str, str],
    *,
    kind: Kind,
    card: str,
    name: str = "{group}_{measure}",
    direction: Direction = "higher",
    module: str = "",
) -> None:
    """Declare ``measure`` restricted to each of ``groups`` (group -> its description): the
    metric ``name`` (``{group}``, ``{measure}`` filled in), whose ``card`` may use ``{what}``,
    the description. A group that is a condition or pronoun gender becomes the spec's ``group``
    (for the by-group plots); any other (a control subset) is a plain score.

    >>> group_metrics("example_score", {"pro": "pro items"}, kind="accuracy", card="On {what}.")
    >>> get_metric("pro_example_score").group, get_metric("pro_example_score").card
    ('pro', 'On pro items.')
    """
    for group, what in groups.items():
        metric(
            name.format(group=group, measure=measure),
            kind=kind,
            direction=direction,
            group=group if group in (*CONDITION_GROUPS, *GENDER_GROUPS) else "",
            measure=measure,
            card=card.format(group=group, what=what),
            module=module,
        )


class Declarations:
    """The metrics one scorer declares, attached to the scorer it belongs to.

    A scorer module makes one (``declare = Declarations(__name__)``), declares each metric next
    to the code that computes it (``declare.metric("signed_bias_gap", kind="gap", ...)``) and
    attaches the set to its scoring function (``@declare.scorer``), whose ``declarations``
    attribute then lists them and the scorer's options (``declare.option(...)``, see
    :mod:`winoscope.scoring.options`); the module is named explicitly, so nothing inspects the
    caller's frame.

    >>> d = Declarations("example.scorer")
    >>> d.metric("example_rate", kind="rate", direction="lower")
    >>> @d.scorer
    ... def score(frame): ...
    >>> score.declarations.names, get_metric("example_rate").module
    (('example_rate',), 'example.scorer')
    """

    def __init__(self, module: str) -> None:
        self.module = module
        self._names: list[str] = []
        self._options: list[Any] = []

    @property
    def options(self) -> tuple[Any, ...]:
        """The scorer's options (:class:`~winoscope.scoring.options.ScorerOption`)."""
        return tuple(self._options)

    def option(self, name: str, **declaration: Any) -> None:
        """Declare a scorer option (see :mod:`winoscope.scoring.options`)."""
        from .options import ScorerOption

        self._options.append(ScorerOption(name, **declaration))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._names)

    def metric(self, name: str, **meaning: Any) -> None:
        metric(name, module=self.module, **meaning)
        self._names.append(name)

    def group_metrics(self, measure: str, groups: Mapping[str, str], **meaning: Any) -> None:
        group_metrics(measure, groups, module=self.module, **meaning)
        pattern = meaning.get("name", "{group}_{measure}")
        self._names += [pattern.format(group=g, measure=measure) for g in groups]

    def scorer(self, fn: F) -> F:
        fn.declarations = self  # type: ignore[attr-defined]
        return fn


def get_metric(name: str) -> MetricSpec:
    """The declaration of ``name``; a neutral spec (``declared=False``) for an unknown name.

    The scorers are imported on the first miss (the registry's discovery), so a report drawn
    from a run directory alone knows their metrics; a name already declared is no look-up."""
    spec = METRICS.peek(str(name)) or METRICS.get(str(name), None)
    return spec if spec is not None else MetricSpec(str(name), "count", "none", declared=False)


def signed_gap_metrics(names: Iterable[str]) -> list[str]:
    """The names declared as signed gaps, in order, once each."""
    return [m for m in dict.fromkeys(names) if get_metric(m).signed_gap]


def metrics_naming(metrics: Sequence[str], group: Sequence[str]) -> list[str]:
    """Scores declared for one of ``group``'s members, by measure and then in the group's order.

    >>> metrics_naming(["overall_accuracy", "anti_accuracy", "pro_accuracy"], ("pro", "anti"))
    ['pro_accuracy', 'anti_accuracy']
    >>> metrics_naming(["conll_f1_pro", "muc_f1_pro", "conll_f1_anti", "muc_f1_anti"], ("pro", "anti"))
    ['conll_f1_pro', 'conll_f1_anti', 'muc_f1_pro', 'muc_f1_anti']
    """
    found: list[tuple[int, int, str]] = []
    bases: dict[str, int] = {}
    for m in dict.fromkeys(metrics):
        spec = get_metric(m)
        if not spec.is_score or spec.group not in group:
            continue
        base = bases.setdefault(spec.measure or m, len(bases))
        found.append((base, list(group).index(spec.group), m))
    return [m for _, _, m in sorted(found)]


def headline_metrics(names: Sequence[str], limit: int = 6) -> list[str]:
    """The metrics a reader should see first, by their declarations: signed gaps, the overall
    score, per-condition and per-gender scores, consistency, then the rest (absolute gaps last
    out: the signed gap says the same with its sign).

    >>> headline_metrics(["pro_accuracy", "anti_accuracy", "overall_accuracy", "signed_bias_gap",
    ...                   "absolute_bias_gap", "pair_consistency"])
    ['signed_bias_gap', 'overall_accuracy', 'pro_accuracy', 'anti_accuracy', 'pair_consistency']
    """
    specs = {m: get_metric(m) for m in names}
    ordered = signed_gap_metrics(names)
    ordered += [m for m in names if specs[m].role == "overall"]
    by_group = metrics_naming(names, CONDITION_GROUPS) + metrics_naming(names, GENDER_GROUPS)
    # a measure that is a component of another reported measure (MUC F1 of CoNLL F1) comes
    # after the other measures: the coreference headlines are CoNLL F1 and link accuracy
    measures = {specs[m].measure or m for m in names if specs[m].kind != "gap"}
    parts = {c for ms in measures for c in get_metric(ms).components}
    ordered += [m for m in by_group if specs[m].measure not in parts]
    ordered += [m for m in by_group if specs[m].measure in parts]
    ordered += [m for m in names if specs[m].kind == "consistency" and not specs[m].role]
    rest = [m for m in names if not (specs[m].kind == "gap" and not specs[m].signed_gap)]
    ordered += [m for m in rest if (specs[m].measure or m) not in parts]
    ordered += [m for m in rest if (specs[m].measure or m) in parts]
    return list(dict.fromkeys(ordered))[:limit]


def gap_meaning(name: str) -> str:
    """What a gap subtracts, for axis labels: its label, else ``a − b`` from its components.

    >>> gap_meaning("signed_bias_gap")
    'pro − anti accuracy'
    """
    spec = get_metric(name)
    if spec.label:
        return spec.label
    if spec.kind == "gap":
        a, b = spec.components
        return f"{a.replace('_', ' ')} − {b.replace('_', ' ')}"
    return name.replace("_", " ")
