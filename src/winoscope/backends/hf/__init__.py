"""Local ``transformers`` causal language models: ``hf:PATH_OR_ID``, ``gemma:270m`` and models
already held in Python (:func:`~winoscope.backends.hf.live.hf_model`).

torch and transformers are imported inside the functions that need them, never here.
"""
