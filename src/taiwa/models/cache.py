"""A response cache that wraps any :class:`ChatModel` (like lm-eval-harness's ``CachingLM``).

Keys are SHA-256 hashes of (backend, model id, parameters, messages[, sample id for replay]).
The store is SQLite in WAL mode; each finished response is committed at once, so a run killed
at any point (SIGKILL included) loses at most the requests in flight, and a restart sends only
those. Failed responses are not cached: they are retried next time.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from taiwa.models.base import ChatModel, OnResponse
from taiwa.models.types import ChatRequest, ChatResponse


def default_cache_dir() -> Path:
    """``$TAIWA_CACHE_DIR``, else ``$XDG_CACHE_HOME/taiwa``, else ``~/.cache/taiwa``."""
    if env := os.environ.get("TAIWA_CACHE_DIR"):
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "taiwa"


class ResponseCache:
    """SQLite key → reply text, safe across threads and processes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            self.path, timeout=60, check_same_thread=False, isolation_level=None
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses"
            " (key TEXT PRIMARY KEY, text TEXT NOT NULL, created REAL)"
        )

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT text FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, text: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, text, created) VALUES (?, ?, ?)",
                (key, text, time.time()),
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachingModel:
    """Serve cached replies, send the rest to ``inner``, store each new reply as it arrives.

    ``calls`` counts requests sent to the inner model, ``hits`` those answered from the cache.
    """

    def __init__(self, inner: ChatModel, cache: ResponseCache) -> None:
        self.inner = inner
        self.cache = cache
        self.backend = inner.backend
        self.model_id = inner.model_id
        self.cacheable = True
        self.calls = 0
        self.hits = 0

    async def check(self) -> None:
        await self.inner.check()

    def key(self, request: ChatRequest) -> str:
        return request.cache_key(self.backend, self.model_id)

    async def generate(
        self, requests: Sequence[ChatRequest], *, on_response: OnResponse | None = None
    ) -> list[ChatResponse]:
        results: dict[int, ChatResponse] = {}
        misses: list[tuple[int, ChatRequest]] = []
        for i, req in enumerate(requests):
            text = self.cache.get(self.key(req))
            if text is None:
                misses.append((i, req))
                continue
            results[i] = ChatResponse(id=req.id, text=text, cached=True)
            self.hits += 1
            if on_response is not None:
                on_response(results[i])
        keys = {req.id: self.key(req) for _, req in misses}

        def store(res: ChatResponse) -> None:
            if res.ok and res.text is not None:
                self.cache.put(keys[res.id], res.text)
            if on_response is not None:
                on_response(res)

        self.calls += len(misses)
        fresh = await self.inner.generate([r for _, r in misses], on_response=store)
        for (i, _), res in zip(misses, fresh, strict=True):
            results[i] = res
        return [results[i] for i in range(len(requests))]
