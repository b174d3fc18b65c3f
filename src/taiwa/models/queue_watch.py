"""Timeouts that come from queueing (issue 42): a server with fewer slots than the client's
``--concurrency`` (llama-cpp-python's server answers one request at a time by default) keeps
the other requests waiting, and those time out although the server answers each one quickly.

:class:`QueueWatch` counts the requests in flight to one server and the fastest answer; a
timeout while other requests were in flight, from a server that answered one in less than half
the timeout, is put down to waiting for a free slot: a warning at once (a run that queues could
otherwise go on timing out for minutes) and a note in the run's summary, both saying to give
``--concurrency`` the server's number of slots or a longer ``--timeout``."""

from __future__ import annotations

import logging
import time

log = logging.getLogger(__name__)


class QueueWatch:
    """The requests in flight to one server (``url``, its ``timeout`` and the client's
    ``concurrency``) and the timeouts that queueing explains."""

    def __init__(self, url: str, timeout: float, concurrency: int) -> None:
        self.url = url
        self.timeout = timeout
        self.concurrency = concurrency
        self.in_flight = 0
        #: seconds the fastest answer took (None before the first)
        self.fastest: float | None = None
        #: timeouts put down to queueing, and the most requests in flight at one of them
        self.queued = 0
        self.most_in_flight = 0

    def start(self) -> float:
        """A request is sent: its start time, for :meth:`end`."""
        self.in_flight += 1
        return time.monotonic()

    def end(self, started: float, *, answered: bool) -> None:
        """The request sent at ``started`` is over: answered (``answered``), refused, timed
        out or not sent at all."""
        self.in_flight -= 1
        if answered:
            took = time.monotonic() - started
            self.fastest = took if self.fastest is None else min(self.fastest, took)

    def timed_out(self) -> None:
        """A request timed out (before its :meth:`end`); warn when queueing explains it."""
        others = self.in_flight - 1
        if others < 1 or self.concurrency < 2 or self.fastest is None:
            return
        if self.fastest >= self.timeout / 2:
            return
        self.queued += 1
        self.most_in_flight = max(self.most_in_flight, others + 1)
        if self.queued == 1:
            log.warning("note: %s", self.hint())

    def hint(self) -> str:
        return (
            f"requests to {self.url} time out after {self.timeout:g} s with up to "
            f"{self.most_in_flight} in flight, though it answered one in {self.fastest or 0:.1f} "
            f"s: the server answers fewer requests at once than --concurrency {self.concurrency} "
            "and queues the rest (llama-cpp-python's server has one slot by default); give "
            "--concurrency its number of slots, or a longer --timeout"
        )

    def notes(self) -> list[str]:
        """The summary's note, when a timeout was put down to queueing."""
        return [f"{self.queued} timeout(s): {self.hint()}"] if self.queued else []
