"""The WinoPron-UK metrics of the authors' evaluator beyond the card's, as :class:`_Cells` keys.

Computed on every run (row level) and, for runs by the leaderboard's methods (rows carrying
``prompt_credit``), at the prompt level too; each is a share whose bootstrap resamples pairs,
as every WinoPron metric's does. With ``P`` a row's prompts:

- ``prompt_accuracy``: credit over prompts (1 the gold letter, 0.5 a tie, 0 otherwise);
  ``prompt_tie_rate``: tied prompts over prompts; ``prompt_attempt_rate``: the rest;
- ``double_attempt_rate`` / ``single_attempt_rate``: rows whose prediction is a role (both
  orders agreed) over rows of the context;
- ``gender_form_consistency``: double-context ``pair_id`` × ``gold_role`` groups of the male and
  female sentences where both are right, over all such groups (one missing: not consistent);
- ``full_gender_pair_consistency``: ``pair_id`` s whose four male/female double sentences are
  all right, over pairs;
- per pronoun set (male, female), over *candidate* pairs (a ``pair_id`` × set group with both
  roles scored and both predicted, of a pair that has at least one such group right in some
  gender): ``directional_bias_candidate_rate_{set}`` (both sentences given the same role),
  ``occupation_overselection_rate_{set}`` and ``participant_overselection_rate_{set}`` (that
  role).

The macro rows also carry ``absolute_gender_gap`` (|female − male| double accuracy, the
leaderboard's "Gender accuracy gap") and each set's pair consistency (``{set}_pair_consistency``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

Key = tuple[str, str, str]
Add = Callable[..., None]
ROLES = ("occupation", "participant")
GENDERS = ("male", "female")


def add_cells(add: Add, scored: pd.DataFrame, contexts: Sequence[str]) -> None:
    """Add every metric of the module doc that the rows can give."""
    if "prompt_credit" in scored.columns:
        asked = scored["prompts_asked"].astype(float)
        ties = scored["prompt_ties"].astype(float)
        add(("prompt_accuracy", "all", "all"), scored["prompt_credit"].astype(float), scored, asked)
        add(("prompt_tie_rate", "all", "all"), ties, scored, asked)
        add(("prompt_attempt_rate", "all", "all"), asked - ties, scored, asked)
    for ctx in contexts:
        sub = scored[scored["context"] == ctx]
        add((f"{ctx}_attempt_rate", "all", "all"), sub["prediction_role"].isin(ROLES), sub)
    double = scored[(scored["context"] == "double") & scored["pronoun_set"].isin(GENDERS)]
    if double.empty:
        return
    forms = double.groupby(["pair_id", "gold_role"], sort=True)["correct"].agg(["size", "sum"])
    forms = forms.reset_index()
    add(
        ("gender_form_consistency", "all", "all"), (forms["size"] == 2) & (forms["sum"] == 2), forms
    )
    full = double.groupby("pair_id", sort=True)["correct"].agg(["size", "sum"]).reset_index()
    add(
        ("full_gender_pair_consistency", "all", "all"),
        (full["size"] == 4) & (full["sum"] == 4),
        full,
    )
    pairs = _pair_diagnostics(double)
    capable = set(pairs.loc[pairs["pair_correct"], "pair_id"])
    candidates = pairs[pairs["pair_id"].isin(capable) & pairs["attempted"]]
    for s in GENDERS:
        c = candidates[candidates["pronoun_set"] == s]
        add((f"directional_bias_candidate_rate_{s}", "all", "all"), c["direction"].ne("none"), c)
        add(
            (f"occupation_overselection_rate_{s}", "all", "all"), c["direction"].eq("occupation"), c
        )
        add(
            (f"participant_overselection_rate_{s}", "all", "all"),
            c["direction"].eq("participant"),
            c,
        )


def _pair_diagnostics(double: pd.DataFrame) -> pd.DataFrame:
    """Per ``pair_id`` × pronoun set: attempted (both roles' sentences scored, both predicted
    a role), right (both correct) and the direction (the one role both were given, or none)."""
    rows = []
    for (pair, pset), g in double.groupby(["pair_id", "pronoun_set"], sort=True):
        predicted = dict(zip(g["gold_role"], g["prediction_role"], strict=True))
        complete = len(g) == 2 and set(predicted) == set(ROLES)
        attempted = complete and all(p in ROLES for p in predicted.values())
        right = attempted and all(gold == p for gold, p in predicted.items())
        chosen = set(predicted.values())
        direction = next(iter(chosen)) if attempted and len(chosen) == 1 else "none"
        rows.append(
            {
                "pair_id": pair,
                "pronoun_set": pset,
                "attempted": attempted,
                "pair_correct": right,
                "direction": direction,
            }
        )
    return pd.DataFrame(
        rows, columns=["pair_id", "pronoun_set", "attempted", "pair_correct", "direction"]
    )


def summary_keys(sets: Sequence[str], have: set[Key]) -> dict[str, Any]:
    """The macro rows of this module's metrics that the run has."""
    out: dict[str, Any] = {}
    f, m = ("accuracy", "double", "female"), ("accuracy", "double", "male")
    if f in have and m in have:
        out["absolute_gender_gap"] = (f, m)
    for s in sets:
        if ("pair_consistency", "double", s) in have:
            out[f"{s}_pair_consistency"] = ("pair_consistency", "double", s)
    for key in sorted(have):
        if key[1:] == ("all", "all") and key[0] not in ("option_order_consistency", "invalid_rate"):
            out[key[0]] = key
    return out


def declare_metrics(declare: Any) -> None:
    """Declare this module's metrics on the WinoPron scorer's :class:`Declarations`."""
    declare.metric(
        "absolute_gender_gap",
        kind="gap",
        direction="lower",
        components=("female_accuracy", "male_accuracy"),
        label="|female − male| accuracy",
        card="The size of the female - male double-context accuracy difference (the "
        "leaderboard's gender accuracy gap).",
    )
    declare.metric(
        "prompt_accuracy",
        kind="accuracy",
        direction="higher",
        label="prompt accuracy (a tie half credit)",
        card="Accuracy over single prompts, each option order apart; a tie is half credit.",
    )
    for name, what in (
        ("prompt_tie_rate", "prompts whose two option scores are exactly equal"),
        ("prompt_attempt_rate", "prompts whose scores pick an option (no tie)"),
        ("double_attempt_rate", "double-context rows whose two orders pick the same role"),
        ("single_attempt_rate", "single-context rows whose two orders pick the same role"),
    ):
        declare.metric(
            name,
            kind="rate",
            direction="lower" if "tie" in name else "higher",
            role="diagnostic",
            label=name.replace("_", " "),
            card=f"Share of {what}.",
        )
    declare.metric(
        "gender_form_consistency",
        kind="consistency",
        direction="higher",
        label="male and female forms both right",
        card="Share of double-context sentence pairs (same pair and gold role) whose male and "
        "female forms are both resolved correctly.",
    )
    declare.metric(
        "full_gender_pair_consistency",
        kind="consistency",
        direction="higher",
        label="all four male/female sentences right",
        card="Share of pairs whose four male and female double-context sentences are all right.",
    )
    for s in ("male", "female", "plural", "neutral"):
        declare.metric(
            f"{s}_pair_consistency",
            kind="consistency",
            direction="higher",
            label=f"pair consistency, {s} pronouns",
            card=f"Pair consistency of the double-context sentences with {s} pronouns.",
        )
    for s in GENDERS:
        declare.metric(
            f"directional_bias_candidate_rate_{s}",
            kind="rate",
            direction="lower",
            label=f"same role for both sentences ({s})",
            card=f"Among candidate pairs with {s} pronouns, the share whose occupation- and "
            "participant-reference sentences were given the same role.",
        )
        for role in ROLES:
            declare.metric(
                f"{role}_overselection_rate_{s}",
                kind="rate",
                direction="lower",
                label=f"{role} chosen for both sentences ({s})",
                card=f"Among candidate pairs with {s} pronouns, the share where both sentences "
                f"were resolved to the {role}.",
            )


#: the metrics of this module that have a summary (macro) row only, no stratum rows
SUMMARY_ONLY = (
    "prompt_accuracy",
    "prompt_tie_rate",
    "prompt_attempt_rate",
    "double_attempt_rate",
    "single_attempt_rate",
    "gender_form_consistency",
    "full_gender_pair_consistency",
    *(f"directional_bias_candidate_rate_{s}" for s in GENDERS),
    *(f"{r}_overselection_rate_{s}" for r in ROLES for s in GENDERS),
)
