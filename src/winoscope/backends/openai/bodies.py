"""What the openai backend sends and how it reads the answers: request bodies per mode, and
each 200 body turned into a :class:`~winoscope.records.Response` (see :mod:`.backend` for the
modes, :mod:`.token_ids` for token-id prompts, :mod:`.parse` for the reading rules)."""

from __future__ import annotations

import json
from typing import Any

from ...records import Request, Response
from .parse import (
    RequestFailed,
    RetryableError,
    chat_text,
    cloze_scores,
    label_scores,
    letter_mass,
    load_json,
    redact,
    snippet,
    top_from_chat,
    top_from_completions,
)
from .token_ids import EchoPlan, TokenPrompts, echo_sums


class RequestBodies:
    """The request bodies and answer parsing of :class:`~.backend.OpenAIBackend` (a mixin: the
    backend holds the state named here)."""

    model: str
    params: dict[str, Any]
    kind: str
    _body_parts: tuple[bytes, bytes] | None
    _cloze_tokens: int
    _tokens: TokenPrompts | None

    @property
    def mode(self) -> str:
        return str(self.params["mode"])

    @property
    def token_param(self) -> str:
        return str(self.params.get("token_param", "max_tokens"))

    def endpoint(self) -> str:
        if self._tokens is not None or self.mode in ("letters", "cloze"):
            return "/completions"
        return "/chat/completions"

    def plan(self, req: Request) -> EchoPlan | None:
        """The request as token-id prompts when a tokenizer is given (else None)."""
        return None if self._tokens is None else self._tokens.plan(req)

    def payload(self, req: Request, plan: EchoPlan | None = None) -> dict[str, Any]:
        if plan is not None:
            return {
                "model": self.model,
                "prompt": plan.prompts,
                "max_tokens": self._cloze_tokens,
                "echo": True,
                "logprobs": 1,
                "temperature": 0.0,
            }
        if self.mode == "cloze":
            return {
                "model": self.model,
                "prompt": [req.prompt + o.text for o in req.options],
                "max_tokens": self._cloze_tokens,
                "echo": True,
                "logprobs": 1,
                "temperature": 0.0,
            }
        return self._payload(req.prompt)

    def _payload(self, prompt: str) -> dict[str, Any]:
        p = self.params
        body: dict[str, Any] = {"model": self.model, "temperature": p["temperature"]}
        if "seed" in p:
            body["seed"] = p["seed"]
        if self.mode == "letters":
            body.update(prompt=prompt, max_tokens=1, logprobs=p["top_logprobs"])
            return body
        messages = []
        if p.get("system"):
            messages.append({"role": "system", "content": p["system"]})
        messages.append({"role": "user", "content": prompt})
        body["messages"] = messages
        if self.mode == "chat-letters":
            body.update(logprobs=True, top_logprobs=p["top_logprobs"])
            body[self.token_param] = 1
        else:
            body[self.token_param] = p["max_tokens"]
        return body

    def encode(self, req: Request, plan: EchoPlan | None = None) -> bytes:
        """``payload(req)`` as JSON bytes; for one-prompt modes the rest is encoded once and
        the prompt spliced in."""
        if plan is not None or self.mode == "cloze":
            return json.dumps(self.payload(req, plan), ensure_ascii=False).encode("utf-8")
        parts = self._body_parts
        if parts is None:
            mark = "\u0000winoscope-prompt\u0000"
            text = json.dumps(self._payload(mark), ensure_ascii=False)
            before, after = text.split(json.dumps(mark), 1)
            parts = self._body_parts = (before.encode("utf-8"), after.encode("utf-8"))
        return parts[0] + json.dumps(req.prompt, ensure_ascii=False).encode("utf-8") + parts[1]

    def parse(
        self, req: Request, raw: bytes, latency: float, key: str = "", plan: EchoPlan | None = None
    ) -> Response:
        """Turn a 200 body into a response. Unreadable: ``RetryableError``; readable but
        unusable (empty answer, no log-probabilities): ``RequestFailed``."""
        body = load_json(raw, key)
        base: dict[str, Any] = {
            "request_id": req.request_id,
            "backend": self.kind,
            "model": self.model,
            "latency_s": latency,
        }
        try:
            if plan is not None:
                scores, counts, mass = plan.option_scores(echo_sums(body, plan))
                return Response(
                    **base, option_logprobs=scores, option_token_counts=counts, letter_mass=mass
                )
            if self.mode == "chat":
                text, finish = chat_text(body)  # an answer echoing the key is masked too
                return Response(**base, text=redact(text, key), finish_reason=finish)
            if self.mode == "cloze":
                sums, counts = cloze_scores(body, req)
                return Response(**base, option_logprobs=sums, option_token_counts=counts)
            # one token is asked for, so finish_reason (``length``) says nothing: not kept
            top = top_from_completions(body) if self.mode == "letters" else top_from_chat(body)
            labels = [o.label for o in req.options]
            return Response(
                **base,
                option_logprobs=label_scores(top, labels),
                letter_mass=letter_mass(top, labels),
            )
        except RequestFailed:
            raise
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, OverflowError,
                RecursionError) as exc:  # fmt: skip
            why = redact(str(exc), key)
            raise RetryableError(
                f"malformed response body ({why}): {snippet(raw, key, 120)}"
            ) from None
