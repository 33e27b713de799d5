"""Model backends. Importing this package registers every built-in backend kind."""

from . import baselines  # noqa: F401  (registers baseline:*)
from .base import BACKENDS, Backend, backend, create_backend, model_label, parse_model_spec

__all__ = ["BACKENDS", "Backend", "backend", "create_backend", "model_label", "parse_model_spec"]
