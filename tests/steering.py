"""A real steering intervention on the tiny test model, shared by the live-model tests.

The direction is the difference between the output embeddings of the feminine and the
masculine forms of the WinoBias-UK sample's occupations, of unit length; a forward hook on the final layer
norm adds ``alpha`` times it to the hidden states. On the tiny GPT-2 (seed 1) in ``texts``
mode it moves the sample's signed gap from 0.125 (alpha 0) to 0 (alpha 5).
"""

from __future__ import annotations

from typing import Any

import torch


def gender_direction(model: Any, tok: Any) -> torch.Tensor:
    import winoscope
    from winoscope.tasks import get_task

    task = get_task("winobias-uk")
    requests = task.primary.build_requests(
        winoscope.load_dataset("winobias-uk"), task.primary.template
    )
    feminine = sorted({o.forms[2] for r in requests for o in r.options})
    masculine = sorted({o.forms[0] for r in requests for o in r.options})
    weights = model.get_output_embeddings().weight.detach()

    def mean(words: list[str]) -> torch.Tensor:
        ids = [i for w in words for i in tok(" " + w, add_special_tokens=False)["input_ids"]]
        return weights[ids].mean(0)

    direction = mean(feminine) - mean(masculine)
    assert torch.isfinite(direction).all() and float(direction.norm()) > 0
    return direction / direction.norm()


class AddVector:
    """A forward hook adding ``alpha * vector`` to a module's output (tensor or tuple)."""

    def __init__(self, vector: torch.Tensor, alpha: float) -> None:
        self.vector = vector
        self.alpha = alpha

    def __call__(self, module: Any, inputs: Any, output: Any) -> Any:
        if isinstance(output, tuple):
            return (output[0] + self.alpha * self.vector, *output[1:])
        return output + self.alpha * self.vector
