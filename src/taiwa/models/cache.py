"""A response cache that wraps any :class:`ChatModel` (like lm-eval-harness's ``CachingLM``).

Keys are SHA-256 hashes of (backend, the model's identity — endpoint and name, or the content hash
of its weights —, parameters, messages): a changed model or input is never served an old reply.
What a composite model records beside a reply (``ChatResponse.meta``, e.g. a cascade's transcript)
is stored with it in ``response_meta``, and the tokens the reply cost (``ChatResponse.usage``) in
``response_usage``; both are served with the cached reply (a resumed run reports the same tokens,
counted as served from the cache).
The store is SQLite in WAL mode; each finished response is committed by a writer thread within
20 ms, so a run killed at any point (SIGKILL included) loses at most the requests in
flight, and a restart sends only those. Failed responses are not cached: they are retried next time.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from taiwa.core.errors import TaiwaError
from taiwa.models.base import ChatModel, OnResponse
from taiwa.models.types import ChatRequest, ChatResponse, Usage

GATHER_SECONDS = 0.02
"""How long the writer waits after a first queued row for more before it commits: the most a
SIGKILL can lose of what has already arrived."""

MAX_PENDING = 4096
"""Rows queued for the writer at most, beside the batch it is committing: a model that
answers faster than SQLite commits (the built-in baselines, thousands of replies a second)
waits in :meth:`ResponseCache.put` for the writer to catch up, so the queue (about 0.4 KB a
row) does not grow with the run. Before, 100,000 parrot replies queued up to 66,000 rows, and
peak RSS grew with the dataset (93 MB at 1,000 prompts, 127 MB at 100,000; issue 10). A
server's replies never come this fast."""

_CHUNK = 500
"""Keys per lookup query (SQLite allows at least 999 parameters)."""

_TABLES = (
    "responses (key TEXT PRIMARY KEY, text TEXT NOT NULL, created REAL)",
    "response_meta (key TEXT PRIMARY KEY, meta TEXT NOT NULL)",
    "response_usage (key TEXT PRIMARY KEY, prompt_tokens INTEGER NOT NULL,"
    " completion_tokens INTEGER NOT NULL)",
)
"""The cache's tables, as ``CREATE TABLE IF NOT EXISTS`` takes them."""


def default_cache_dir() -> Path:
    """``$TAIWA_CACHE_DIR``, else ``$XDG_CACHE_HOME/taiwa``, else ``~/.cache/taiwa``."""
    if env := os.environ.get("TAIWA_CACHE_DIR"):
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "taiwa"


_Row = tuple[str, float, "str | None", "Usage | None"]
"""A queued row: text, time, meta as JSON, usage."""


class ResponseCache:
    """SQLite key → reply text, safe across threads and processes.

    Writes do not block the caller (the event loop): :meth:`put` queues the row and a writer
    thread commits what has queued up, one transaction at a time, within milliseconds (only
    with :data:`MAX_PENDING` rows queued beside the batch being committed does :meth:`put`
    wait for the writer). When
    another process holds the write lock, the writer waits and retries (``lock_budget``
    seconds, then the error is raised by :meth:`close`, naming the file). :meth:`get` sees
    queued rows too."""

    def __init__(self, path: str | Path, *, lock_budget: float = 600.0) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise TaiwaError(
                f"cannot create the response cache in {self.path.parent}: {exc.strerror} "
                "(pass --cache-dir DIR or --no-cache)"
            ) from None
        self.lock_budget = lock_budget
        self._lock = threading.Lock()
        self._db = self._open()
        self._pending: dict[str, _Row] = {}
        self._committing = 0  # rows of _pending in the writer's current commit
        self._wake = threading.Condition(self._lock)
        self._closing = False
        self._error: BaseException | None = None
        self._writer = threading.Thread(target=self._write_loop, name="taiwa-cache", daemon=True)
        self._writer.start()

    def _open(self) -> sqlite3.Connection:
        """Connect and create the tables. Several runs opening one new cache at once race for
        the switch to WAL, which SQLite may refuse as locked without waiting: retried with
        backoff within ``lock_budget``, like a commit."""
        deadline = time.monotonic() + self.lock_budget
        delay = 0.05
        while True:
            db: sqlite3.Connection | None = None
            try:
                db = self._connect()
                for table in _TABLES:
                    db.execute(f"CREATE TABLE IF NOT EXISTS {table}")
                db.execute("SELECT key, text, created FROM responses LIMIT 1").fetchall()
                return db
            except sqlite3.Error as exc:
                if db is not None:
                    db.close()
                busy = "locked" in str(exc) or "busy" in str(exc)
                if not busy or time.monotonic() > deadline:
                    raise TaiwaError(
                        f"response cache {self.path} is not usable ({exc}): move it away, or "
                        "pass --cache-dir DIR (or --no-cache)"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 2.0)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=5, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        return db

    def get(self, key: str) -> str | None:
        with self._lock:
            if key in self._pending:
                return self._pending[key][0]
            row = self._db.execute("SELECT text FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _rows(self, table: str, columns: str, keys: Sequence[str]) -> list[tuple[Any, ...]]:
        """``key, columns`` of ``table`` for each of ``keys`` that has a row (a few queries,
        not one per key); the caller holds the lock."""
        found: list[tuple[Any, ...]] = []
        for start in range(0, len(keys), _CHUNK):
            chunk = keys[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            query = f"SELECT key, {columns} FROM {table} WHERE key IN ({marks})"
            found.extend(self._db.execute(query, chunk))
        return found

    def _lookup(self, table: str, column: str, keys: Sequence[str]) -> dict[str, str]:
        return {str(k): str(v) for k, v in self._rows(table, column, keys)}

    def get_many(self, keys: Sequence[str]) -> dict[str, str]:
        """The cached text of each of ``keys`` that has one."""
        with self._lock:
            found = self._lookup("responses", "text", keys)
            found.update((k, self._pending[k][0]) for k in keys if k in self._pending)
        return found

    def get_meta_many(self, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """What was recorded beside the cached replies of ``keys`` (only keys that have some)."""
        with self._lock:
            raw = self._lookup("response_meta", "meta", keys)
            for k in keys:
                pending = self._pending.get(k)
                if pending is not None and pending[2] is not None:
                    raw[k] = pending[2]
        return {k: json.loads(m) for k, m in raw.items()}

    def get_usage_many(self, keys: Sequence[str]) -> dict[str, Usage]:
        """The tokens each cached reply of ``keys`` cost when it was made (keys that have it)."""
        with self._lock:
            rows = self._rows("response_usage", "prompt_tokens, completion_tokens", keys)
            found = {
                str(k): Usage(prompt_tokens=int(i), completion_tokens=int(o)) for k, i, o in rows
            }
            for k in keys:
                pending = self._pending.get(k)
                if pending is not None and pending[3] is not None:
                    found[k] = pending[3]
        return found

    def put(
        self,
        key: str,
        text: str,
        meta: dict[str, Any] | None = None,
        usage: Usage | None = None,
    ) -> None:
        meta_json = json.dumps(meta, ensure_ascii=False) if meta else None
        try:
            text.encode("utf-8")
            if meta_json is not None:
                meta_json.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates (an escape in a server's JSON): not stored
            return
        with self._wake:
            while (
                len(self._pending) - self._committing >= MAX_PENDING
                and self._error is None
                and self._writer.is_alive()
            ):
                self._wake.wait(0.5)
            first = not self._pending
            self._pending[key] = (text, time.time(), meta_json, usage)
            if first or len(self._pending) - self._committing >= MAX_PENDING:
                self._wake.notify()  # a first row to gather, or a full batch: no more waiting

    def _write_loop(self) -> None:
        db = self._connect()
        try:
            while True:
                with self._wake:
                    while not self._pending and not self._closing:
                        self._wake.wait()
                    if not self._pending:
                        return
                    if not self._closing and len(self._pending) < MAX_PENDING:
                        self._wake.wait(GATHER_SECONDS)  # gather what else comes: fewer commits
                    batch = dict(self._pending)
                    self._committing = len(batch)  # put() may queue as many more meanwhile
                self._commit(db, batch)
                with self._wake:
                    for k, v in batch.items():
                        if self._pending.get(k) == v:
                            del self._pending[k]
                    self._committing = 0
                    self._wake.notify_all()
        except BaseException as exc:  # surfaced by close(); the run's outputs still get written
            with self._wake:
                self._error = exc
                self._wake.notify_all()
        finally:
            db.close()

    def _commit(self, db: sqlite3.Connection, batch: dict[str, _Row]) -> None:
        rows = [(k, t, c) for k, (t, c, _, _) in batch.items()]
        metas = [(k, m) for k, (_, _, m, _) in batch.items() if m is not None]
        usages = [
            (k, u.prompt_tokens, u.completion_tokens)
            for k, (_, _, _, u) in batch.items()
            if u is not None
        ]
        deadline = time.monotonic() + self.lock_budget
        delay = 0.05
        while True:
            try:
                db.execute("BEGIN IMMEDIATE")
                db.executemany(
                    "INSERT OR REPLACE INTO responses (key, text, created) VALUES (?, ?, ?)", rows
                )
                if metas:
                    db.executemany(
                        "INSERT OR REPLACE INTO response_meta (key, meta) VALUES (?, ?)", metas
                    )
                if usages:
                    db.executemany(
                        "INSERT OR REPLACE INTO response_usage"
                        " (key, prompt_tokens, completion_tokens) VALUES (?, ?, ?)",
                        usages,
                    )
                db.execute("COMMIT")
                return
            except sqlite3.OperationalError as exc:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise TaiwaError(
                        f"response cache {self.path}: {exc} (another process has held it for "
                        f"over {self.lock_budget:.0f} s?)"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 2.0)

    def flush(self) -> None:
        """Wait until every queued row is committed."""
        with self._wake:
            while self._pending and self._error is None and self._writer.is_alive():
                self._wake.wait(0.5)

    def close(self) -> None:
        with self._wake:
            self._closing = True
            self._wake.notify_all()
        self._writer.join()
        with self._lock:
            self._db.close()
        if self._error is not None:
            raise self._error


class CachingModel:
    """Serve cached replies, send the rest to ``inner``, store each new reply as it arrives.

    ``calls`` counts requests sent to the inner model, ``hits`` those answered from the cache.
    """

    def __init__(self, inner: ChatModel, cache: ResponseCache) -> None:
        self.inner = inner
        self.cache = cache
        self.backend = inner.backend
        self.model_id = inner.model_id
        self.identity = inner.identity
        self.cacheable = True
        self.calls = 0
        self.hits = 0

    async def check(self) -> None:
        await self.inner.check()

    def key(self, request: ChatRequest) -> str:
        return request.cache_key(self.backend, self.identity)

    async def generate(
        self, requests: Sequence[ChatRequest], *, on_response: OnResponse | None = None
    ) -> list[ChatResponse]:
        results: dict[int, ChatResponse] = {}
        misses: list[tuple[int, ChatRequest]] = []
        all_keys = [self.key(req) for req in requests]
        cached = self.cache.get_many(all_keys)
        metas = self.cache.get_meta_many(list(cached)) if cached else {}
        usages = self.cache.get_usage_many(list(cached)) if cached else {}
        for i, (req, key) in enumerate(zip(requests, all_keys, strict=True)):
            text = cached.get(key)
            if text is None:
                misses.append((i, req))
                continue
            results[i] = ChatResponse(
                id=req.id, text=text, cached=True, meta=metas.get(key), usage=usages.get(key)
            )
            self.hits += 1
            if on_response is not None:
                on_response(results[i])
        keys = {requests[i].id: all_keys[i] for i, _ in misses}

        def store(res: ChatResponse) -> None:
            if res.ok and res.text is not None:
                self.cache.put(keys[res.id], res.text, res.meta, res.usage)
            if on_response is not None:
                on_response(res)

        self.calls += len(misses)
        fresh = await self.inner.generate([r for _, r in misses], on_response=store)
        for (i, _), res in zip(misses, fresh, strict=True):
            results[i] = res
        return [results[i] for i in range(len(requests))]
