"""``gguf:PATH`` and ``demo``: local GGUF models through llama-cpp-python.

The chat template comes from the GGUF metadata; a JSON schema becomes a llama.cpp grammar
(``response_format={"type": "json_object", "schema": ...}``). A mild repeat penalty (1.1)
keeps small models from looping at temperature 0. One model instance answers one
request at a time, in a worker thread, so the event loop stays free.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError, TaiwaError
from taiwa.models.base import ConcurrentModel, refuse_audio
from taiwa.models.file_hash import content_sha256
from taiwa.models.types import ChatRequest, Reply, Usage


class LlamaCppModel(ConcurrentModel):
    """A GGUF chat model run in-process by llama.cpp."""

    backend = "llama.cpp"
    counts_tokens = True

    def __init__(
        self,
        path: str | Path,
        *,
        model_id: str | None = None,
        cache_dir: Path | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        repeat_penalty: float = 1.1,
    ) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise TaiwaError(
                f"GGUF model file not found: {self.path} "
                "(expected gguf:PATH to an existing .gguf file)"
            )
        from llama_cpp import Llama

        digest = content_sha256(self.path, cache_dir)
        self.model_id = model_id or f"{self.path.name}:{digest[:12]}"
        self.identity = (
            f"sha256:{digest}|n_ctx={n_ctx}|repeat_penalty={repeat_penalty}|seed=per-request"
        )
        self.concurrency = 1
        self.repeat_penalty = repeat_penalty
        self._lock = threading.Lock()
        threads = n_threads or default_threads()
        try:
            # the prompt (batch) threads too: llama-cpp-python's own default for them is every
            # core, whatever n_threads says, so two jobs given one thread each still spun two
            # threads each on every prompt (2.7x the CPU on 3 long prompts on a loaded machine)
            self.llm = Llama(
                model_path=str(self.path),
                n_ctx=n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                verbose=False,
                seed=0,
            )
        except (ValueError, RuntimeError, OSError) as exc:  # a truncated or foreign file
            raise InputError(
                str(self.path),
                None,
                None,
                "a GGUF model file llama.cpp can load (gguf:PATH)",
                " ".join(str(exc).split())[:120] or type(exc).__name__,
            ) from None

    def _complete_sync(self, request: ChatRequest) -> Reply:
        refuse_audio(request, f"the llama.cpp model {self.model_id}")
        p = request.params
        kwargs: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.text} for m in request.messages],
            "temperature": p.temperature,
            "max_tokens": p.max_tokens,
            "seed": request_seed(p.seed, request),
            "repeat_penalty": self.repeat_penalty,
        }
        if p.stop:
            kwargs["stop"] = p.stop
        if p.json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": p.json_schema}
        with self._lock:
            out: Any = self.llm.create_chat_completion(**kwargs)
        text = str(out["choices"][0]["message"]["content"] or "")
        used = out.get("usage") or {}
        tokens = used.get("prompt_tokens"), used.get("completion_tokens")
        if all(isinstance(t, int) for t in tokens):  # llama.cpp counts them itself
            return Reply(
                text=text, usage=Usage(prompt_tokens=tokens[0], completion_tokens=tokens[1])
            )
        return Reply(text=text)

    async def _complete(self, request: ChatRequest) -> Reply:
        return await asyncio.to_thread(self._complete_sync, request)


THREADS_ENV = "TAIWA_LLAMA_THREADS"
"""The environment variable that sets how many threads llama.cpp computes with."""


def default_threads() -> int:
    """``$TAIWA_LLAMA_THREADS`` if set, else the cores this process may run on. llama.cpp's
    threads wait for each other by spinning, so more threads than free cores (two runs side
    by side, each with all cores) is many times slower than one thread each: give each
    parallel job its share."""
    value = os.environ.get(THREADS_ENV)
    if value is None or not value.strip():
        return (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else (os.cpu_count() or 1)
        )
    if not value.strip().isdigit() or int(value) < 1:
        raise TaiwaError(f"{THREADS_ENV}={value[:20]!r}: expected a whole number of threads >= 1")
    return int(value)


def request_seed(seed: int, request: ChatRequest) -> int:
    """The sampling seed of one request: the run's ``seed`` mixed with the request's messages.

    llama.cpp draws the same random numbers for the same seed, so one seed for every request
    makes a sampling model pick the same quantile of every answer distribution: at temperature
    0.8 the demo LLM answered option 3 or 4 on every intent item under one seed and option 1
    on every item under another (issue 27). A per-request seed keeps a run reproducible while
    its items are sampled independently."""
    import hashlib

    key = "\0".join([str(seed), *(f"{m.role}:{m.text}" for m in request.messages)])
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:4], "big") & 0x7FFFFFFF
