"""``python -m winoscope``: the same as the ``winoscope`` command.

The guard matters: vLLM's engine (``vllm:``) starts worker processes by spawning, and a
spawned process imports this module again (as ``__mp_main__``); unguarded, each worker would
run the command line anew.
"""

from .cli import main

if __name__ == "__main__":
    main()
