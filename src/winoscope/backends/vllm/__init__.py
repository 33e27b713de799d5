"""``vllm:PATH``: a causal language model served in process by vLLM's ``LLM`` engine.

vLLM is imported when the engine starts (at the first request), never at import time.
"""
