"""Model backends. Importing this package registers every built-in backend kind."""

from . import (
    baselines,  # noqa: F401  (registers baseline:*)
    gemma,  # noqa: F401  (registers gemma:270m, the offline Gemma 3 270M)
    hf_local,  # noqa: F401  (registers hf:PATH_OR_ID; torch loads on first use)
    nli_baselines,  # noqa: F401  (registers nli-baseline:*)
    openai_compat,  # noqa: F401  (registers openai:MODEL)
    resolver_file,  # noqa: F401  (registers file:PATH, resolver output)
)
from .base import BACKENDS, Backend, backend, create_backend, model_label, parse_model_spec

__all__ = ["BACKENDS", "Backend", "backend", "create_backend", "model_label", "parse_model_spec"]
