"""A tiny random GPT-2 built offline: byte-level BPE trained on a few sentences, 2 layers.

Small enough to build in well under a second once torch is imported, and deterministic.
"""

from __future__ import annotations

from pathlib import Path

SENTENCES = [
    "Прочитайте речення і визначте, кого позначає займенник «він».",
    "Речення: Лікар найняв секретарку, бо він мав багато пацієнтів.",
    "A. лікар\nB. секретарка\nВідповідь (A або B): A",
    "Відповідь (A або B): B",
    "The doctor hired the secretary because she was busy. Answer: A or B",
    "Кухар подякував прибиральниці, бо вона допомогла йому.",
]

CHAT_TEMPLATE = (
    "{% for m in messages %}<|user|>{{ m['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def build_tiny_gpt2(
    out: Path,
    *,
    seed: int = 0,
    chat: bool = False,
    n_positions: int = 256,
    n_embd: int = 32,
    n_head: int = 2,
    bos: bool = False,
) -> Path:
    """Write a tokenizer and a random 2-layer GPT-2 to ``out`` and return it.

    vLLM's CPU attention takes heads of 32 dimensions or more: its tests pass ``n_embd=64`` or
    ``n_head=1``. Where torch or transformers is missing (CI's Python 3.13 environment) the
    calling test is skipped.
    """
    import pytest

    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import GPT2Config, GPT2LMHeadModel

    fast = _tokenizer(chat, bos)
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=len(fast),
        n_positions=n_positions,
        n_embd=n_embd,
        n_layer=2,
        n_head=n_head,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
    )
    model = GPT2LMHeadModel(config)
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    fast.save_pretrained(out)
    return out


def build_tiny_llama(out: Path, *, seed: int = 0, chat: bool = True) -> Path:
    """The same tokenizer on a random 2-layer Llama (heads of 32 dimensions): an architecture
    vLLM puts LoRA adapters on (its GPT-2 takes none)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    fast = _tokenizer(chat)
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        tie_word_embeddings=False,
    )
    model = LlamaForCausalLM(config)
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    fast.save_pretrained(out)
    return out


def _tokenizer(chat: bool, bos: bool = False):  # type: ignore[no-untyped-def]
    """The byte-level BPE; with ``bos`` it adds ``<|endoftext|>`` before every text it encodes
    with special tokens (as Gemma's and Llama's add BOS), and its chat template starts with
    the BOS text too (so encoding a rendered chat with special tokens gives two, as Gemma's)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    from tokenizers import decoders as tk_decoders
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = tk_decoders.ByteLevel()
    specials = ["<|endoftext|>", "<|user|>", "<|end|>", "<|assistant|>"]
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(SENTENCES, trainer=trainer)
    if bos:
        tok.post_processor = processors.TemplateProcessing(
            single="<|endoftext|> $A", special_tokens=[("<|endoftext|>", 0)]
        )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        additional_special_tokens=specials[1:],
    )
    if chat:
        fast.chat_template = ("{{ bos_token }}" if bos else "") + CHAT_TEMPLATE
    return fast
