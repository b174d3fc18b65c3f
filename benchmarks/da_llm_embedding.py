"""Hidden states of the embedded demo LLM as a pretrained Japanese representation of an
utterance (issue 26, point 1: a feature block for the default chitchat11 tagger, tried).

The demo LLM (Qwen2.5-Coder-0.5B-Instruct, GGUF, shipped in PyPI wheels and joined by
:func:`taiwa.models.embedded.embedded_model_path`) run by llama.cpp with ``embedding=True``
and mean pooling gives an utterance's vector: the mean over its tokens of the last layer's
hidden state (896 values). (Not with no pooling and the per-token states averaged here:
llama-cpp-python's ``embed`` of several texts in one batch then returns wrong states for every
text but the first, up to 134 apart from the same text embedded alone; mean pooling in a batch
agrees with one text at a time to 0.65 in values up to 100.) The vectors are cached in an
``.npz`` keyed by text (written atomically), so the cross-validation in
``benchmarks/da_tagger_cv.py --llm-embedding CACHE`` computes each text once.

    python benchmarks/da_llm_embedding.py CACHE.npz [--threads 1] [--rate N]

fills the cache with every reply, unpunctuated reply copy and previous utterance of the
training data and of the chat-style held-out split, and prints the rate (texts/s). ``--rate
N``: instead, the rate of embedding the first N distinct training replies afresh (no cache;
the model loaded beforehand, its load time printed apart), best of 3 runs.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

POOLINGS = ("mean",)
BATCH = 32


def model_path() -> Path:
    """The assembled demo GGUF (joined from the wheels on first use)."""
    from taiwa.models.cache import default_cache_dir
    from taiwa.models.embedded import embedded_model_path

    return embedded_model_path(default_cache_dir())


def load_llm(threads: int = 1):
    import llama_cpp

    return llama_cpp.Llama(
        model_path=str(model_path()),
        embedding=True,
        pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
        n_threads=threads,
        n_threads_batch=threads,
        n_ctx=1024,
        n_batch=1024,
        verbose=False,
    )


def pooled(llm, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """``{"mean": n × d}`` of the non-empty ``texts``."""
    return {"mean": np.array(llm.embed(list(texts), normalize=False), dtype=np.float32)}


def read_cache(path: Path) -> dict[str, dict[str, np.ndarray]]:
    """``{pooling: {text: vector}}`` of a cache file (empty when it does not exist)."""
    if not path.is_file():
        return {p: {} for p in POOLINGS}
    with np.load(path, allow_pickle=False) as f:
        texts = [str(t) for t in f["texts"]]
        return {p: dict(zip(texts, f[p], strict=True)) for p in POOLINGS}


def write_cache(path: Path, cache: dict[str, dict[str, np.ndarray]]) -> None:
    texts = sorted(cache["mean"])
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".npz", dir=path.parent)
    os.close(fd)
    np.savez(
        tmp, texts=np.array(texts), **{p: np.array([cache[p][t] for t in texts]) for p in POOLINGS}
    )
    os.replace(tmp, path)


def embeddings(
    texts: Sequence[str], path: Path, threads: int = 1
) -> tuple[dict[str, dict[str, np.ndarray]], float | None]:
    """The cache with every non-empty text of ``texts`` in it (missing ones computed in the
    order given, the file rewritten as they come) and the rate of the computation (texts/s;
    None when nothing was new)."""
    cache = read_cache(path)
    todo = [t for t in dict.fromkeys(texts) if t.strip() and t not in cache["mean"]]
    if not todo:
        return cache, None
    llm = load_llm(threads)
    start = time.perf_counter()
    for k in range(0, len(todo), BATCH):
        chunk = todo[k : k + BATCH]
        out = pooled(llm, chunk)
        for p in POOLINGS:
            cache[p].update(zip(chunk, out[p], strict=True))
        if (k // BATCH) % 5 == 4:
            write_cache(path, cache)
    rate = len(todo) / (time.perf_counter() - start)
    write_cache(path, cache)
    return cache, rate


def matrix(cache: dict[str, np.ndarray], texts: Sequence[str], dim: int = 896) -> np.ndarray:
    """``len(texts) × dim`` rows of the cached vectors (zeros for an empty text)."""
    out = np.zeros((len(texts), dim))
    for k, t in enumerate(texts):
        if t.strip():
            out[k] = cache[t]
    return out


def all_texts() -> list[str]:
    """Replies, unpunctuated reply copies and previous utterances of the training data, then
    those of the chat-style held-out split (in that order: the cross-validation needs the
    first ones)."""
    from taiwa.annotators.da_classifier.chat_text import strip_punctuation
    from taiwa.annotators.da_classifier.model import held_out_split, load_examples
    from taiwa.annotators.da_classifier.recipe import CHAT_HELD_OUT_PATH, CHAT_TRAIN_PATH, bundled

    dev, _ = held_out_split(load_examples()[0])
    more = "data/samples/da_distribution/chatstyle_train_more.jsonl"
    train = bundled(CHAT_TRAIN_PATH) + bundled(more) + dev
    held_out = bundled(CHAT_HELD_OUT_PATH)
    texts = [e.reply for e in train] + [strip_punctuation(e.reply) for e in train]
    texts += [e.context for e in train]
    return texts + [e.reply for e in held_out] + [e.context for e in held_out]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("cache", type=Path)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rate", type=int, default=0, help="time N texts afresh")
    args = parser.parse_args()
    texts = all_texts()
    if args.rate:
        start = time.perf_counter()
        llm = load_llm(args.threads)
        print(f"model loaded in {time.perf_counter() - start:.1f} s")
        sample = list(dict.fromkeys(t for t in texts if t.strip()))[: args.rate]
        rates = []
        for _ in range(3):
            start = time.perf_counter()
            for k in range(0, len(sample), BATCH):
                pooled(llm, sample[k : k + BATCH])
            rates.append(len(sample) / (time.perf_counter() - start))
        runs = ", ".join(f"{r:.1f}" for r in rates)
        print(f"{len(sample)} texts, {args.threads} thread(s): {max(rates):.1f}/s (runs {runs})")
        return
    cache, rate = embeddings(texts, args.cache, args.threads)
    n = len(cache["mean"])
    print(f"{n} texts cached in {args.cache}" + (f"; {rate:.1f} texts/s" if rate else ""))


if __name__ == "__main__":
    main()
