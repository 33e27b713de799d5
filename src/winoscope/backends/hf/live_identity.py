"""What a model held in Python is, for the response store's key and the manifest.

A model object has no checkpoint files to fingerprint, and the things a bias-mitigation
experiment changes are exactly the ones a path cannot show: weights updated in place (a
checkpoint between training steps, an RMU-style edit), a PEFT adapter put on or swapped, its
scale changed, forward hooks added at some layers. :func:`live_identity` describes each of them:

- ``config``: sha256 of the base model's ``config`` (as JSON, without its path and the
  transformers version that wrote it), and its ``model_type``;
- ``weights``: a fingerprint of the live tensors: every parameter and buffer's name, dtype and
  shape, and ``SAMPLES`` elements taken at evenly spaced positions of each, gathered on the
  tensor's own device so only a few kilobytes cross to the CPU (milliseconds for a 12B model;
  ``full=True`` hashes every byte instead, seconds to minutes);
- ``adapters`` (a PEFT model): per adapter its config and the fingerprint of its own tensors,
  which adapters are active, whether they are disabled (``disable_adapter()``), and every LoRA
  layer's scaling;
- ``hooks``: every forward and forward-pre hook on any submodule (and PyTorch's global ones):
  module path, kind, the callable's qualified name, a digest of its code, and a digest of the
  state it can reach that decides what it does: closure cells, defaults, ``functools.partial``
  arguments, a callable object's attributes (numbers, strings, tensors by fingerprint).

What it cannot see: state a hook reads from elsewhere (a global, an object it mutates between
calls, a file). A model whose hook works like that needs a new ``label`` for each setting.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from collections.abc import Iterator
from typing import Any

SAMPLES = 64
IDENTITY_FORMAT = 1
#: peft's wrapper classes (PeftMixedModel since peft 0.7)
WRAPPERS = ("PeftModel", "PeftMixedModel")
HOOK_KINDS = (
    ("_forward_pre_hooks", "forward_pre"),
    ("_forward_hooks", "forward"),
    ("_backward_pre_hooks", "backward_pre"),
    ("_backward_hooks", "backward"),
)


def _sha(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)


def tensor_digest(tensor: Any, *, full: bool = False, samples: int = SAMPLES) -> str:
    """sha256 of a tensor's dtype, shape and sampled (or, with ``full``, all) elements."""
    import torch

    t = tensor.detach()
    head = f"{t.dtype}|{tuple(t.shape)}|".encode()
    if t.device.type == "meta":  # offloaded: only its shape is known here
        return _sha(head + b"meta")
    flat = t.reshape(-1)
    n = flat.numel()
    if n == 0:
        return _sha(head)
    if not full and n > samples:
        # integer positions: a float linspace rounds past the end of a 167M-element embedding
        steps = torch.arange(samples, dtype=torch.int64, device=flat.device)
        idx = steps * (n - 1) // (samples - 1)
        flat = flat.index_select(0, idx)
    raw = flat.contiguous().cpu()
    if raw.is_quantized:
        raw = raw.int_repr()
    return _sha(head + raw.view(torch.uint8).numpy().tobytes())


def weights_fingerprint(model: Any, *, full: bool = False) -> str:
    """A digest of every parameter and buffer: name, dtype, shape and sampled elements."""
    digest = hashlib.sha256(f"winoscope-live-{IDENTITY_FORMAT}-{int(full)}".encode())
    seen: set[int] = set()
    for name, tensor in _named_tensors(model):
        key = id(tensor)
        digest.update(b"\0" + name.encode())
        if key in seen:  # a tied weight: its name is recorded, its data once
            digest.update(b"=tied")
            continue
        seen.add(key)
        digest.update(tensor_digest(tensor, full=full).encode())
    return digest.hexdigest()


def _named_tensors(model: Any) -> Iterator[tuple[str, Any]]:
    yield from model.named_parameters(remove_duplicate=False)
    yield from model.named_buffers(remove_duplicate=False)


def base_model(model: Any) -> Any:
    """The transformers model under a PEFT wrapper (the model itself when there is none)."""
    get = getattr(model, "get_base_model", None)
    return get() if callable(get) and is_peft_wrapper(model) else model


def is_peft_wrapper(model: Any) -> bool:
    """A ``PeftModel`` (or peft's mixed model) around a transformers model."""
    peft = sys.modules.get("peft")  # no peft imported: no peft object exists either
    if peft is None:
        return False
    kinds = tuple(k for k in (getattr(peft, n, None) for n in WRAPPERS) if isinstance(k, type))
    return isinstance(model, kinds)


def tuner_layers(model: Any) -> list[tuple[str, Any]]:
    """The adapter layers peft put into the model, by module path (none once unloaded)."""
    if sys.modules.get("peft") is None or not hasattr(model, "named_modules"):
        return []
    from peft.tuners.tuners_utils import BaseTunerLayer

    return [(p, m) for p, m in model.named_modules() if isinstance(m, BaseTunerLayer)]


def is_peft_model(model: Any) -> bool:
    """Whether the model carries PEFT adapters now.

    ``peft_config`` alone does not say: after ``PeftModel.unload()`` (peft 0.18 and older)
    the base model keeps it, and transformers 4.x's ``active_adapters()`` then raises "No
    adapter loaded". Such a model is the base again, and is identified as the base.
    """
    config = getattr(model, "peft_config", None)
    if not isinstance(config, dict) or not config:
        return False
    return bool(tuner_layers(model))


#: config entries that name where the model came from, not what it computes
CONFIG_NOISE = ("_name_or_path", "transformers_version", "_commit_hash")


def config_identity(model: Any) -> dict[str, Any]:
    """``model_type`` and a sha256 of the base model's config (less where it came from)."""
    config = getattr(base_model(model), "config", None)
    if config is None:
        return {"sha256": None}
    try:
        data = {k: v for k, v in config.to_dict().items() if k not in CONFIG_NOISE}
        text = _canonical(data)
    except Exception:  # a config that cannot be written as a dict: its repr
        text = repr(config)
    return {"model_type": getattr(config, "model_type", None), "sha256": _sha(text)}


def adapter_identity(model: Any) -> dict[str, Any] | None:
    """Per PEFT adapter: config digest and tensor fingerprint; active, disabled and scaling."""
    if not is_peft_model(model):
        return None
    from peft import get_peft_model_state_dict

    adapters: dict[str, Any] = {}
    for name, cfg in sorted(model.peft_config.items()):
        conf = cfg.to_dict() if hasattr(cfg, "to_dict") else dict(vars(cfg))
        state = get_peft_model_state_dict(model, adapter_name=name)
        digest = hashlib.sha256()
        for key in sorted(state):
            digest.update(key.encode() + b"\0" + tensor_digest(state[key]).encode())
        adapters[name] = {
            "peft_type": str(getattr(conf.get("peft_type"), "value", conf.get("peft_type", ""))),
            "config_sha256": _sha(_canonical(conf)),
            "weights": digest.hexdigest(),
        }
    scaling: dict[str, Any] = {}
    disabled = False
    layers = tuner_layers(model)
    for path, module in layers:
        disabled = disabled or bool(module.disable_adapters)
        scale = getattr(module, "scaling", None)
        if isinstance(scale, dict) and scale:
            scaling[path] = {k: float(v) for k, v in sorted(scale.items())}
    return {
        "adapters": adapters,
        "active": active_adapters(model, layers),
        "disabled": disabled,
        "scaling_sha256": _sha(_canonical(scaling)),
    }


def active_adapters(model: Any, layers: list[tuple[str, Any]]) -> list[str]:
    """The active adapters' names: a ``PeftModel``'s own list; for adapters loaded into a
    transformers model (``load_adapter``), those its adapter layers have active, read from
    the layers because transformers' ``active_adapters()`` refuses some peft versions."""
    if is_peft_wrapper(model):
        active = model.active_adapters
        return list(active() if callable(active) else active)
    names: list[str] = []
    for _, layer in layers:
        for name in getattr(layer, "active_adapters", ()):
            if name not in names:
                names.append(name)
    return names


def callable_name(fn: Any) -> str:
    """``module.qualname`` of a function, a bound method, a partial or a callable object."""
    target = fn.func if isinstance(fn, functools.partial) else fn
    target = getattr(target, "__func__", target)  # a bound method
    qual = getattr(target, "__qualname__", None)
    if qual is None:
        target = type(target)
        qual = target.__qualname__
    module = getattr(target, "__module__", None) or "?"
    name = f"{module}.{qual}"
    return f"functools.partial({name})" if isinstance(fn, functools.partial) else name


def _value_digest(value: Any, depth: int = 0) -> Any:
    """What a hook's reachable value contributes: plain values as they are, tensors and arrays
    by digest, containers element by element, anything else by its type's name."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if depth > 3:
        return f"<{type(value).__qualname__}>"
    kind = type(value).__module__.split(".")[0]
    if kind == "torch" and hasattr(value, "detach") and hasattr(value, "shape"):
        return "tensor:" + tensor_digest(value, full=value.numel() <= 65536)
    if kind == "numpy" and hasattr(value, "tobytes"):
        return "array:" + _sha(str(getattr(value, "dtype", "")).encode() + value.tobytes())
    if isinstance(value, list | tuple):
        return [_value_digest(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): _value_digest(v, depth + 1) for k, v in sorted(value.items(), key=str)}
    if callable(value) and hasattr(value, "__code__"):
        return "fn:" + callable_name(value)
    if kind == "torch" and hasattr(value, "named_parameters"):
        return f"<module {type(value).__qualname__}>"  # a submodule: its weights are counted
    return f"<{type(value).__qualname__}>"


def hook_state(fn: Any) -> dict[str, Any]:
    """Digests of a hook's code and of the state it reaches (see the module docstring)."""
    out: dict[str, Any] = {}
    target = fn
    if isinstance(fn, functools.partial):
        out["args"] = _value_digest(list(fn.args))
        out["keywords"] = _value_digest(dict(fn.keywords))
        target = fn.func
    owner = getattr(target, "__self__", None)
    func = getattr(target, "__func__", target)
    code = getattr(func, "__code__", None)
    if code is None:  # a callable object: its class's __call__ and its attributes
        owner = target
        call = vars(type(target)).get("__call__") or type(target).__call__
        code = getattr(call, "__code__", None)
    if code is not None:
        out["code"] = _sha(code.co_code + repr(code.co_consts).encode())
    cells = getattr(func, "__closure__", None) or ()
    if cells:
        names = getattr(code, "co_freevars", ())
        values = {}
        for name, cell in zip(names, cells, strict=False):
            try:
                values[name] = _value_digest(cell.cell_contents)
            except ValueError:  # an empty cell
                values[name] = "<empty>"
        out["closure"] = values
    defaults = getattr(func, "__defaults__", None)
    if defaults:
        out["defaults"] = _value_digest(list(defaults))
    if owner is not None and hasattr(owner, "__dict__"):
        attrs = {k: v for k, v in vars(owner).items() if not k.startswith("__")}
        if not _is_module(owner):
            out["attributes"] = _value_digest(attrs)
    return out


def _is_module(obj: Any) -> bool:
    return hasattr(obj, "_forward_hooks") and hasattr(obj, "named_parameters")


def hook_inventory(model: Any) -> list[dict[str, Any]]:
    """Every hook registered on ``model``'s modules and PyTorch's global module hooks."""
    from torch.nn.modules import module as torch_module

    found: list[dict[str, Any]] = []
    for path, mod in model.named_modules(remove_duplicate=False):
        for attr, kind in HOOK_KINDS:
            for fn in getattr(mod, attr, {}).values():
                found.append(_hook_entry(path or "<model>", kind, fn))
    for attr, kind in (
        ("_global_forward_pre_hooks", "global_forward_pre"),
        ("_global_forward_hooks", "global_forward"),
    ):
        for fn in getattr(torch_module, attr, {}).values():
            found.append(_hook_entry("<all modules>", kind, fn))
    return found


def _hook_entry(path: str, kind: str, fn: Any) -> dict[str, Any]:
    state = hook_state(fn)
    return {
        "module": path,
        "kind": kind,
        "callable": callable_name(fn),
        "state_sha256": _sha(_canonical(state))[:16],
    }


def live_identity(model: Any, *, full: bool = False) -> dict[str, Any]:
    """Config, weights, adapters and hooks of a model object (what keys its stored answers)."""
    out: dict[str, Any] = {
        "config": config_identity(model),
        "weights": weights_fingerprint(model, full=full),
        "weights_check": "full sha256" if full else f"{SAMPLES} sampled elements per tensor",
    }
    adapters = adapter_identity(model)
    if adapters is not None:
        out["adapters"] = adapters
    hooks = hook_inventory(model)
    if hooks:
        out["hooks"] = hooks
    return out
