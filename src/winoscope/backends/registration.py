"""The built-in backends: importing this module registers every backend kind.

The backend registry (:data:`winoscope.backends.BACKENDS`) imports it on its first look-up.
None of these modules imports torch, transformers or aiohttp at module level.
"""

from . import baselines as _baselines  # noqa: F401
from . import nli_baselines as _nli_baselines  # noqa: F401
from . import resolver_file as _resolver_file  # noqa: F401
from .hf import gemma as _gemma  # noqa: F401
from .hf import local as _hf  # noqa: F401
from .openai import backend as _openai  # noqa: F401
from .vllm import factory as _vllm  # noqa: F401
