"""What a forced-choice run's invalid rows have in common: the clue to why a run is degenerate.

A row asked in both option orders is ``invalid`` when its two answers disagree on the role or
either answer names no option. Two shapes explain nearly every degenerate run:

- the *same letter* in both orders (``B`` to "A. лікар / B. секретарка" and ``B`` to
  "A. секретарка / B. лікар"): the model picks a position, not a referent (position bias);
- an *unparsable* answer (no option letter or wording the answer normaliser can read): the
  prompt or the chat template does not get an option out of the model.

:func:`invalid_pattern` counts both over the rows of a run; the run's ``answer_quality``
(:mod:`winoscope.scoring.answer_quality`) names the likely cause from these counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..records import Request, Response
from .answers import INVALID
from .choice_rows import ERROR


def _letter(request: Request, role: str) -> str | None:
    for opt in request.options:
        if opt.role == role:
            return opt.label
    return None


def invalid_pattern(
    requests: Sequence[Request], responses: Mapping[str, Response]
) -> dict[str, Any] | None:
    """Counts of the two degenerate shapes over rows asked as lettered choices.

    Returns ``rows`` (rows with every order answered), ``same_letter`` (rows whose orders all
    gave one letter, so two different roles), ``letters`` (that letter -> rows), ``unparsable``
    (rows with an answer naming no option) and ``answers``/``unparsable_answers`` (single
    answers); None when no request is a lettered choice asked in two orders or more.
    """
    from .forced_choice import answer_role

    per_row: dict[str, list[tuple[str, str | None]]] = {}
    for req in requests:
        if req.kind not in ("choice", "nli") or req.order is None or not req.options:
            continue
        role = answer_role(req, responses.get(req.request_id))
        letter = None if role in (INVALID, ERROR) else _letter(req, role)
        per_row.setdefault(req.row_id, []).append((role, letter))
    if not per_row or max(len(v) for v in per_row.values()) < 2:
        return None
    rows = same = unparsable = answers = bad_answers = 0
    letters: Counter[str] = Counter()
    for answers_of_row in per_row.values():
        roles = [r for r, _ in answers_of_row]
        if ERROR in roles:
            continue
        rows += 1
        answers += len(roles)
        bad = roles.count(INVALID)
        bad_answers += bad
        if bad:
            unparsable += 1
            continue
        picked = {letter for _, letter in answers_of_row}
        if len(answers_of_row) >= 2 and len(picked) == 1 and len(set(roles)) > 1:
            same += 1
            letters[str(next(iter(picked)))] += 1
    return {
        "rows": rows,
        "same_letter": same,
        "letters": dict(sorted(letters.items())),
        "unparsable": unparsable,
        "answers": answers,
        "unparsable_answers": bad_answers,
    }
