"""``hf:PATH``: a local transformers causal LM with its own chat template (no hub access)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError, TaiwaError
from taiwa.models.base import ConcurrentModel, refuse_audio
from taiwa.models.file_hash import content_sha256
from taiwa.models.types import ChatRequest, Reply, Usage


class TransformersModel(ConcurrentModel):
    """Greedy (temperature 0) or sampled generation with ``AutoModelForCausalLM`` on the CPU."""

    backend = "transformers"
    counts_tokens = True

    def __init__(self, path: str | Path, *, cache_dir: Path | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise TaiwaError(f"hf:PATH must be a local model directory; {self.path} is not one")
        from transformers import AutoModelForCausalLM, AutoTokenizer

        try:
            self.tokenizer: Any = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
            self.model: Any = AutoModelForCausalLM.from_pretrained(self.path, local_files_only=True)
        except Exception as exc:  # any failure to load: a broken model directory
            raise InputError(
                str(self.path),
                None,
                None,
                "a transformers model directory (config.json, tokenizer files, weights) for hf:",
                f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:160],
            ) from None
        self.model.train(False)
        if getattr(self.tokenizer, "chat_template", None) is None:
            raise TaiwaError(f"{self.path}: the tokenizer has no chat template")
        self.model_id = str(self.path.resolve())
        self.identity = f"sha256:{content_sha256(self.path, cache_dir)}"
        self.concurrency = 1
        self._lock = threading.Lock()

    def _complete_sync(self, request: ChatRequest) -> Reply:
        import torch

        refuse_audio(request, f"hf:{self.path}")

        p = request.params
        messages = [{"role": m.role, "content": m.text} for m in request.messages]
        inputs = self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
        )
        gen: dict[str, Any] = {"max_new_tokens": p.max_tokens, "do_sample": p.temperature > 0}
        if p.temperature > 0:
            gen["temperature"] = p.temperature
        pad = self.tokenizer.pad_token_id
        gen["pad_token_id"] = pad if pad is not None else self.tokenizer.eos_token_id
        with self._lock, torch.no_grad():
            torch.manual_seed(p.seed)
            out = self.model.generate(**inputs, **gen)
        new_tokens = out[0, inputs["input_ids"].shape[1] :]
        text = str(self.tokenizer.decode(new_tokens, skip_special_tokens=True))
        for s in p.stop or []:
            text = text.split(s)[0]
        usage = Usage(
            prompt_tokens=int(inputs["input_ids"].shape[1]), completion_tokens=len(new_tokens)
        )
        return Reply(text=text, usage=usage)

    async def _complete(self, request: ChatRequest) -> Reply:
        return await asyncio.to_thread(self._complete_sync, request)
