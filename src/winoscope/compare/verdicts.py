"""The verdict lines of a paired comparison: what changed, by how much, and what decides.

Read from :func:`.difference.difference_table`'s table (one row per metric, stratum and
measure, with the paired intervals and the p-values); :func:`verdicts` writes one line per
headline metric.
"""

from __future__ import annotations

import math

import pandas as pd


def verdicts(table: pd.DataFrame) -> list[str]:
    """One line per headline metric: what changed, the interval, and what decides.

    A headline hypothesis (``family``) is decided by its Holm-adjusted p (below 0.05) together
    with its paired 95% interval; a signed gap by the change of its size (the declared absolute
    twin, else ``|B| - |A|``): "smaller gap" when that interval lies below 0, "larger gap" when
    it lies above 0 and the signed change's interval excludes 0 too (a size cannot fall below
    0, so near a gap of 0 every resampled size change is at least 0). Any other headline row
    is exploratory: its interval decides and its unadjusted p is shown. Bounds within
    :data:`~winoscope.scoring.decision.TOLERANCE` of 0 include 0. The words never claim an
    effect is absent: "no detectable change".
    """
    from ..scoring.decision import ALPHA, absolute_twin, fmt_interval, fmt_signed, side
    from ..scoring.metric import get_metric

    lines = []
    names = list(dict.fromkeys(table["metric"].astype(str)))
    n_family = int(table["family"].sum()) if "family" in table.columns else 0
    heads = table[table["headline"]]
    # a gap's declared size (its absolute twin) -> the signed gap whose line speaks for it
    gap_of = {
        twin: n
        for n in names
        if get_metric(n).signed_gap and (twin := absolute_twin(n, names)) is not None
    }
    shown = set(heads[["metric", "split", "type"]].astype(str).itertuples(index=False, name=None))
    for (metric, split, typ), g in heads.groupby(["metric", "split", "type"], sort=False):
        spec = get_metric(str(metric))
        if (gap_of.get(str(metric)), str(split), str(typ)) in shown:
            continue  # the size of a signed gap speaks in that gap's line
        where = "" if split in ("macro", "all") else f" ({split}/{typ})"
        signed = g[g["measure"] == "B - A"].iloc[0]
        size_rows = g[g["measure"] == "|B| - |A|"]
        twin = absolute_twin(str(metric), names) if spec.signed_gap else None
        if twin is not None:
            size_rows = table[
                (table["metric"] == twin) & (table["split"] == split) & (table["type"] == typ)
            ]
        gap = spec.signed_gap
        row = size_rows.iloc[0] if gap and len(size_rows) else signed
        if math.isnan(float(row["diff"])):
            lines.append(f"{metric}{where}: not defined in both runs")
            continue
        lo, hi = float(row["ci_low"]), float(row["ci_high"])
        where_side = side(lo, hi)
        if gap and where_side > 0 and side(float(signed["ci_low"]), float(signed["ci_high"])) == 0:
            where_side = 0  # a size that can only grow near a gap of 0 shows no change alone
        what = (f"{get_metric(twin).display} " if twin else "|gap| ") if gap else ""
        interval = f"{fmt_signed(row['diff'])} {fmt_interval(lo, hi)}"
        in_family = bool(row.get("family", False))
        p_holm, p_boot = float(row["p_holm"]), float(row["p_boot"])
        head = (
            f"{metric}{where}: {float(signed['value_a']):.3f} -> {float(signed['value_b']):.3f}; "
        )
        if in_family:
            decided = where_side != 0 and not math.isnan(p_holm) and p_holm < ALPHA
            if decided:
                word = (
                    ("larger gap" if where_side > 0 else "smaller gap")
                    if gap
                    else ("higher" if where_side > 0 else "lower")
                )
                text = f"{word}: {what}{interval}, Holm p = {p_holm:.3g}"
            elif where_side != 0:
                text = (
                    f"no detectable change after Holm's adjustment for the {n_family} headline "
                    f"hypotheses: {what}{interval} (unadjusted 95% interval), Holm p = {p_holm:.3g}"
                )
            else:
                text = (
                    f"no detectable change ({what}{fmt_signed(row['diff'])}, 95% interval "
                    f"{fmt_interval(lo, hi)} includes 0; Holm p = {p_holm:.3g})"
                )
        else:
            if where_side != 0:
                word = (
                    ("larger gap" if where_side > 0 else "smaller gap")
                    if gap
                    else ("higher" if where_side > 0 else "lower")
                )
                text = f"{word}: {what}{interval}, p = {p_boot:.3g} (exploratory, not in the Holm family)"
            else:
                text = (
                    f"no detectable change ({what}{fmt_signed(row['diff'])}, 95% interval "
                    f"{fmt_interval(lo, hi)} includes 0; exploratory)"
                )
        if gap:
            text += (
                f"; signed change {fmt_signed(signed['diff'])} "
                f"{fmt_interval(float(signed['ci_low']), float(signed['ci_high']))}"
            )
        lines.append(head + text)
    return lines
