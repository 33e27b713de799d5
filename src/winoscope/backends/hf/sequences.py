"""``sequence`` requests in token ids, as every tokenizer-driven backend builds them.

A ``sequence`` request (:mod:`winoscope.protocols.scored_sequences`) names a recipe; this module
turns it into, per option, the token ids of the *context* (what the model reads before the
first scored token) and of the *scored* tokens, using the model's own tokenizer. The ``hf:``,
``vllm:`` and ``openai:`` (with ``tokenizer=``) backends all call :func:`sequence_parts`, so they
feed their models the same ids; each then scores the scored tokens by their log-probability
after the context and reports their mean (:func:`mean_response`).

``append_label:*`` follows the leaderboard evaluators exactly: ``encode(rendered)`` and
``encode(rendered + label)`` with the tokenizer's special tokens (a chat-rendered prompt that
already starts with BOS gets a second one, as the evaluators' ids have), and the split at the two
id lists' common prefix, so a token that merges the prompt's last characters with the letter is
scored as part of the answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...errors import BackendError
from ...records import Request, Response

Parts = list[tuple[list[int], list[int]]]


def render_prompt(tok: Any, prompt: str, recipe: str) -> str:
    """The prompt as the recipe renders it: raw, or the user turn of the chat template."""
    form = recipe.split(":", 1)[1] if ":" in recipe else "raw"
    has_template = bool(getattr(tok, "chat_template", None))
    if form == "chat" and not has_template:
        raise BackendError(f"recipe {recipe}: the tokenizer has no chat template")
    if form == "raw" or (form == "auto" and not has_template):
        return prompt
    return str(
        tok.apply_chat_template(
            [{"role": "user", "content": prompt}],
            tokenize=False,
            add_generation_prompt=True,
            enable_thinking=False,
        )
    )


def common_prefix(left: Sequence[int], right: Sequence[int]) -> int:
    n = 0
    for a, b in zip(left, right, strict=False):
        if a != b:
            break
        n += 1
    return n


def start_token(tok: Any) -> int | None:
    """The token a ``start_token`` sequence begins with: BOS, else PAD, else EOS."""
    for candidate in (tok.bos_token_id, tok.pad_token_id, tok.eos_token_id):
        if candidate is not None:
            return int(candidate[0] if isinstance(candidate, list) else candidate)
    return None


def _encode(tok: Any, text: str, special: bool) -> list[int]:
    return [int(t) for t in tok.encode(text, add_special_tokens=special)]


def sequence_parts(tok: Any, req: Request) -> Parts | str:
    """Per option, ``(context ids, scored ids)``, or why the request cannot be scored."""
    recipe = req.recipe
    if recipe.startswith("append_label:"):
        try:
            rendered = render_prompt(tok, req.prompt, recipe)
        except BackendError as exc:
            return str(exc)
        except Exception as exc:
            return f"chat template failed: {exc}"
        prompt = _encode(tok, rendered, True)
        parts: Parts = []
        for o in req.options:
            full = _encode(tok, rendered + o.label, True)
            k = common_prefix(prompt, full)
            if k >= len(full):
                return f"option {o.label} adds no token after the prompt"
            if k == 0:
                return f"option {o.label}: no context token precedes the scored ones"
            parts.append((full[:k], full[k:]))
        return parts
    if recipe == "start_token":
        first = start_token(tok)
        if first is None:
            return "the tokenizer has no BOS, PAD or EOS token to start a sequence with"
        parts = []
        for o in req.options:
            ids = _encode(tok, o.text, False)
            if not ids:
                return f"option {o.label} is empty after tokenisation"
            parts.append(([first], ids))
        return parts
    return f"unknown sequence recipe {recipe!r}"


def shared_context(parts: Parts) -> list[int] | None:
    """The context every option shares (one pass scores them all), or None."""
    first = parts[0][0]
    return first if all(c == first for c, _ in parts) else None


def mean_response(resp: Response, counts: Sequence[int]) -> Response:
    """A response of summed option log-probabilities as the means the protocol reports."""
    if not resp.ok or resp.option_logprobs is None:
        return resp
    from dataclasses import replace

    means = tuple(float(s) / n for s, n in zip(resp.option_logprobs, counts, strict=True))
    return replace(resp, option_logprobs=means, option_token_counts=tuple(counts))


PART = "\x1f"  # joins a split request's id and its option's index


@dataclass
class SequenceWork:
    """``sequence`` requests as units a backend scores: ``(request, context, scored ids per
    option)``. Where every option shares its context the unit is the request itself (one pass
    reads every option); otherwise each option is a unit of its own (a part request, its id
    ``request_id`` + :data:`PART` + index), joined back by :meth:`finish`. ``failed`` holds the
    requests that cannot be scored, with the reason."""

    units: list[tuple[Request, list[int], list[list[int]]]] = field(default_factory=list)
    failed: list[tuple[Request, str]] = field(default_factory=list)
    counts: dict[str, list[int]] = field(default_factory=dict)
    split: dict[str, tuple[Request, dict[int, Response]]] = field(default_factory=dict)

    @classmethod
    def plan(cls, tok: Any, requests: Sequence[Request]) -> SequenceWork:
        from dataclasses import replace

        work = cls()
        for req in requests:
            parts = sequence_parts(tok, req)
            if isinstance(parts, str):
                work.failed.append((req, parts))
                continue
            work.counts[req.request_id] = [len(s) for _, s in parts]
            context = shared_context(parts)
            if context is not None:
                work.units.append((req, context, [s for _, s in parts]))
                continue
            work.split[req.request_id] = (req, {})
            for k, (ctx, scored) in enumerate(parts):
                one = replace(
                    req, request_id=f"{req.request_id}{PART}{k}", options=(req.options[k],)
                )
                work.units.append((one, ctx, [scored]))
        return work

    def finish(self, responses: Iterable[Response]) -> Iterator[Response]:
        """The units' responses (summed log-probabilities) as the requests' mean responses."""
        from dataclasses import replace

        for resp in responses:
            base, sep, index = resp.request_id.rpartition(PART)
            if not (sep and base in self.split):
                yield mean_response(resp, self.counts[resp.request_id])
                continue
            req, got = self.split[base]
            got[int(index)] = resp
            if len(got) < len(req.options):
                continue
            bad = next((r for r in got.values() if not r.ok), None)
            if bad is not None:
                yield replace(bad, request_id=base)
                continue
            sums = tuple(float((got[i].option_logprobs or (0.0,))[0]) for i in range(len(got)))
            joined = replace(
                got[0], request_id=base, option_logprobs=sums, option_token_counts=None
            )
            yield mean_response(joined, self.counts[base])
