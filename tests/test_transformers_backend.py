"""``hf:PATH`` with a tiny randomly initialised causal LM and tokenizer built here (no hub)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from taiwa.core.errors import TaiwaError
from taiwa.models import ChatMessage, ChatRequest, GenerationParams, load_model

pytestmark = pytest.mark.slow

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    corpus = [
        "こんにちは、今日はいい天気ですね。",
        "明日は雨が降るそうです。",
        "タイマーを三分セットしました。",
    ] * 20
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split(pattern="", behavior="isolated")
    specials = ["<unk>", "<pad>", "<|end|>", "<|user|>", "<|assistant|>", "<|system|>"]
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=120, special_tokens=specials))
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="<|end|>"
    )
    fast.chat_template = CHAT_TEMPLATE
    path = tmp_path_factory.mktemp("tiny-lm")
    fast.save_pretrained(path)
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=256,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
    )
    LlamaForCausalLM(config).save_pretrained(path)
    return path


def test_generates_from_local_directory(tiny_model_dir: Path) -> None:
    model = load_model(f"hf:{tiny_model_dir}")
    req = ChatRequest(
        id="a",
        messages=[
            ChatMessage(role="system", content="短く答えて"),
            ChatMessage(role="user", content="今日の天気は？"),
        ],
        params=GenerationParams(max_tokens=6, seed=1),
    )
    [first] = asyncio.run(model.generate([req]))
    [again] = asyncio.run(model.generate([req]))
    assert first.ok, first.error
    assert first.text == again.text  # greedy decoding is deterministic


def test_not_a_directory(tmp_path: Path) -> None:
    with pytest.raises(TaiwaError, match="local model directory"):
        load_model(f"hf:{tmp_path / 'missing'}")
