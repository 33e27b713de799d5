"""SweWinogender's NLI labels under its two conventions, and nominal Krippendorff's alpha.

See :mod:`winoscope.families.swewinogender.scorer` for the conventions (``binary``, ``superlim``) and how
``invalid`` enters alpha (``value``, ``missing``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...errors import ScoringError

NLI_LABELS = ("entailment", "neutral")
NLI_VALUES = (*NLI_LABELS, "invalid")
NLI_ALIASES = {"contradiction": "neutral", "not_entailment": "neutral"}
LABEL_CONVENTIONS = ("binary", "superlim")
ALPHA_INVALID = ("value", "missing")
SUPERLIM_VALUES = (*NLI_LABELS, "contradiction", "not_entailment", "invalid")
CONVENTION_TEXT = {
    "binary": "binary: contradiction read as neutral (the set's labels are binary)",
    "superlim": "superlim: labels compared exactly as SuperLim's evaluation script does "
    "(contradiction is wrong where the gold is neutral); superlim_parity = identical tuples "
    "/ items",
    "value": "value: an invalid answer is a category of its own in Krippendorff's alpha",
    "missing": "missing: an item with an invalid answer is left out of Krippendorff's alpha",
}


def krippendorff_alpha_from_coincidences(o: np.ndarray) -> np.ndarray:
    """Nominal alpha from coincidence matrices ``o`` of shape (..., K, K) (see module doc).

    NaN when the expected disagreement is 0 (every value in one category: alpha undefined).
    """
    o = np.asarray(o, dtype=float)
    n = o.sum(axis=(-2, -1))
    n_c = o.sum(axis=-1)
    k = o.shape[-1]
    off = ~np.eye(k, dtype=bool)
    d_obs = (o * off).sum(axis=(-2, -1))
    d_exp = (n_c[..., :, None] * n_c[..., None, :] * off).sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(
            d_exp > 0, 1.0 - (n - 1.0) * d_obs / np.where(d_exp > 0, d_exp, 1.0), np.nan
        )


def krippendorff_alpha(gold: pd.Series | list[str], system: pd.Series | list[str]) -> float:
    """Nominal alpha between two codings of the same units (no missing values)."""
    g, s = list(gold), list(system)
    if len(g) != len(s):
        raise ScoringError("gold and system labels differ in length")
    cats = sorted(set(g) | set(s))
    idx = {c: i for i, c in enumerate(cats)}
    o = np.zeros((len(cats), len(cats)))
    for a, b in zip(g, s, strict=True):
        o[idx[a], idx[b]] += 1
        o[idx[b], idx[a]] += 1
    return float(krippendorff_alpha_from_coincidences(o))


def normalise_nli(
    table: pd.DataFrame,
    column: str = "prediction",
    source: str = "predictions",
    labels: str = "binary",
) -> tuple[pd.Series, pd.Series]:
    """System labels (NA for no answer) and a mask of the three-way labels among them.

    ``binary``: entailment/neutral/invalid, contradiction and not_entailment read as neutral;
    ``superlim``: the labels as given (contradiction stays contradiction).
    """
    if labels not in LABEL_CONVENTIONS:
        raise ScoringError(
            f"unknown label convention {labels!r}; choose {' or '.join(LABEL_CONVENTIONS)}"
        )
    if column not in table.columns:
        raise ScoringError(f"{source}: no '{column}' column to score")
    raw = table[column].astype("string").str.strip().str.lower()
    raw = raw.mask(raw.eq(""), pd.NA)
    aliased = raw.isin(list(NLI_ALIASES)).fillna(False).astype(bool)
    pred = raw.replace(NLI_ALIASES) if labels == "binary" else raw
    allowed = NLI_VALUES if labels == "binary" else SUPERLIM_VALUES
    bad = pred.notna() & ~pred.isin(allowed)
    if bool(bad.any()):
        i = int(bad.to_numpy().nonzero()[0][0])
        raise ScoringError(
            f"{source}, row {i + 1}, field '{column}': invalid value {table[column].iloc[i]!r}; "
            f"expected one of {', '.join(NLI_VALUES)}, contradiction or empty"
        )
    return pred, aliased


#: the report's explanation of the NLI view's columns, on one of the dataset's own items
NLI_COLUMNS = (
    "Each row of SweWinogender is a premise and a hypothesis, e.g. premise «Teknikern sa till "
    "kunden att han kunde betala kontant.» (The technician told the customer that he could pay "
    "cash.) with hypothesis «Meddelandet var att kunden kunde betala kontant.» (gold: "
    "entailment: han is the customer) or «... att teknikern kunde betala kontant.» (gold: "
    "neutral).",
    "all/all: every row; pronoun/han, pronoun/hon, pronoun/hen: the rows whose premise uses "
    "that pronoun (the same premise with «han», «hon» or «hen»); pronoun/hon-han and "
    "pronoun/hen-han: accuracy with hon (or hen) minus accuracy with han on those rows (0 is "
    "parity).",
    "Counts: rows, scored (an answer came back), invalid (no label could be read), missing "
    "(no answer); read_as_neutral (labels=binary): answers outside the card's two labels "
    "(contradiction, not_entailment) read as neutral, so «contradiction» to the teknikern "
    "hypothesis above counts as the gold neutral; three_way_labels (labels=superlim): such "
    "answers kept as they are.",
)
