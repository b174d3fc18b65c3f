"""The contract between a method package (``taiwa.benchmarks.<method>``) and the runner.

A method declares its helper **roles** (model SPECs besides the systems under test), its
**options** (one pydantic model), how to **load** its dataset, and a small pipeline of
**stages**. The runner executes the stages for every system, owns the models, the cache,
concurrency, repair rounds, progress bars and the run directory; a method owns only meaning.

A stage turns one sample (plus the rows earlier stages produced for it, its *upstream*) into
chat requests for one role's model, then turns the replies into one output row. A stage with
``role=None`` (or one whose :meth:`Stage.requests` returns nothing) computes locally. A stage
with ``across_systems=True`` sees the upstream rows of every system at once (a pairwise judge).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from taiwa.models.types import ChatRequest, ChatResponse, GenerationParams

if TYPE_CHECKING:
    from taiwa.display.section import Section
    from taiwa.harness.demo_spec import Demo
    from taiwa.harness.evidence import ItemEvidence
    from taiwa.harness.run_reader import RunData
    from taiwa.metrics.comparisons import ComparedMetric
    from taiwa.models.spec import ModelOptions

Row = dict[str, Any]
"""One output line of a stage for one sample (written to the stage's JSONL file)."""

Upstream = Mapping[str, Row]
"""The rows earlier stages produced for the same sample and system, keyed by stage name."""

SYSTEM = "system"
"""The role of the systems under test (``--model``): implicit in every method with systems."""

HUMAN = "human"
"""The pseudo-system answering with the dataset's reference replies (``--model human``)."""

REPAIRS = "repairs"
"""Row key a stage sets to ``{kind: count}`` when it accepted an output only after repairing
it (renormalised importances, dropped unknown labels ...); the runner adds them up per role in
``summary.json`` (``calls[].repairs``), beside :data:`RE_ASKED`."""

RE_ASKED = "re_asked"
"""Repair kind the runner counts itself: rounds in which an invalid output was re-asked."""

S = TypeVar("S", bound="Sample")
S_contra = TypeVar("S_contra", bound="Sample", contravariant=True)


class Sample(Protocol):
    """A dataset item: anything with a unique string ``id``."""

    @property
    def id(self) -> str: ...


@dataclass(frozen=True)
class Role:
    """A helper model a method uses (``judge``, ``annotator``, ``tagger`` ...).

    ``local`` names the values that are not model SPECs but something the method computes
    itself (e.g. ``offline`` for a built-in tagger, ``replay:`` for a file of answers; a value
    ending in ``:`` is a prefix). ``paths``: an existing file or directory is a local value too
    (e.g. a trained classifier). ``models``: whether chat-model SPECs are accepted at all.
    """

    name: str
    help: str
    default: str | None = None
    required: bool = False
    local: tuple[str, ...] = ()
    paths: bool = False
    models: bool = True

    def is_model(self, spec: str) -> bool:
        """Whether ``spec`` names a chat model (as opposed to one of the ``local`` values)."""
        if any(spec == v or (v.endswith(":") and spec.startswith(v)) for v in self.local):
            return False
        if not self.paths:
            return True
        try:
            return not Path(spec).exists()
        except OSError:  # a name too long to look up: not a path
            return True


@dataclass(frozen=True)
class Retry:
    """Returned by :meth:`Stage.finish` when a reply did not validate: the runner re-asks each
    request of the sample with the model's own output and ``reason`` appended as a repair turn
    (:func:`taiwa.models.json_replies.repair_turn`), up to the stage's ``attempts``. ``repair`` is
    the
    repair message (``{error}`` is the reason); ``None``: ask for corrected JSON
    (:data:`taiwa.models.json_replies.REPAIR`)."""

    reason: str
    repair: str | None = None


class StageFailure(Exception):
    """Raised by :meth:`Stage.finish` for a sample that cannot be processed (recorded with its
    reason and counted; later stages skip the sample)."""


class Held(Protocol):
    """Something a stage keeps for the whole run (a worker process, a connection): the runner
    opens it once when the run is prepared, before the dataset is read, so that its start-up
    overlaps the reading and validation, and closes it once when the run ends, however it
    ends (finished, an error, Ctrl-C). ``open`` gets the dataset's path (to size itself: e.g.
    start a worker only for a large file); ``close`` must be safe to call when ``open`` did
    nothing or failed. A stage lists what it holds in an optional ``held`` attribute
    (:class:`StageBase` has one, empty); the same object held by two stages is opened once."""

    def open(self, data: Path) -> None: ...
    def close(self) -> None: ...


class Stage(Protocol[S_contra]):
    """One step of a method's pipeline; the runner calls it for every sample of every system.

    ``name`` keys the rows in the upstream of later stages; ``output`` is the run-directory
    file its rows go to (``None``: not written). ``attempts`` bounds the repair rounds when
    :meth:`finish` returns :class:`Retry`. Optional: ``held``, the :class:`Held` resources the
    stage keeps for the whole run.
    """

    name: str
    role: str | None
    output: str | None
    attempts: int
    across_systems: bool

    def requests(self, sample: S_contra, upstream: Any) -> Sequence[ChatRequest]:
        """The chat requests for this sample (none: :meth:`finish` gets no replies).

        ``upstream`` is an :data:`Upstream`, or for ``across_systems`` stages a mapping
        system → :data:`Upstream`."""
        ...

    def finish(
        self, sample: S_contra, upstream: Any, replies: Sequence[ChatResponse]
    ) -> Row | Retry:
        """The output row for this sample, or :class:`Retry`; raise :class:`StageFailure`."""
        ...


@dataclass
class StageBase:
    """Defaults for the stage attributes, so a stage class states only what differs."""

    name: str
    role: str | None = None
    output: str | None = None
    attempts: int = 1
    across_systems: bool = False
    held: Sequence[Held] = ()


@dataclass(frozen=True)
class Setup:
    """What a method's stages may depend on: its options, the SPEC of each helper role, the
    generation parameters of the systems, the run's seed and the systems under test (their
    ``--model`` SPECs, ``human`` included; empty for methods whose systems come from the data).
    """

    options: Any
    roles: Mapping[str, str]
    params: GenerationParams
    seed: int = 0
    systems: tuple[str, ...] = ()


class RowView(Protocol):
    """Rows of one stage and system: re-iterable (each pass reads them again, so a large run
    is never held in memory), with a free ``len``."""

    def __iter__(self) -> Iterator[Row]: ...
    def __len__(self) -> int: ...
    def __bool__(self) -> bool: ...


class Results(Protocol):
    """The rows of every stage, by stage name and system (``""`` for methods whose systems
    come from the data and for cross-system stages), as :meth:`Method.aggregate` sees them.

    :meth:`rows` and :meth:`ok` return views (:class:`RowView`) that read the rows again on each
    pass: aggregate in one pass where the dataset may be large, and keep only what the summary
    needs. (Where the rows are kept is the runner's business.)"""

    @property
    def systems(self) -> Sequence[str]:
        """The systems under test, in the order given (empty when they come from the data)."""
        ...

    def rows(self, stage: str, system: str = "") -> RowView:
        """Every row of ``stage`` for ``system``, failed ones (with ``error``) included."""
        ...

    def ok(self, stage: str, system: str = "") -> RowView:
        """The rows of ``stage`` for ``system`` that did not fail."""
        ...


class NoOptions(BaseModel):
    """For methods without options."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


@dataclass
class Summary:
    """What :meth:`Method.aggregate` returns: one block per system and the cross-system results.

    ``notes`` are warnings the user should see beside the numbers (printed and stored).
    ``files`` are extra files of the run directory (charts): name → a function that writes the
    file atomically to the path it is given; the runner calls them after the stage outputs,
    before ``summary.json``."""

    systems: dict[str, dict[str, Any]]
    across: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    files: dict[str, Callable[[Path], None]] = field(default_factory=dict)


class Validator(Protocol):
    """How ``taiwa validate ROLE`` scores a value of a method's helper role (an annotator, a
    tagger ...) against gold labels, beside trivial baselines. A method offers them as an
    optional ``validators`` mapping, role name → validator."""

    def default_data(self) -> list[Path]:
        """The bundled held-out files used when no ``--data`` is given."""
        ...

    def validate(
        self, spec: str, data: Sequence[Path], seed: int, models: ModelOptions
    ) -> dict[str, Any]:
        """The report (JSON-able): the figures of ``spec`` and of the baselines, each with n,
        and ``failures``: ``{"failed": N, "items": M}``, the items the helper gave nothing for
        (no reply after the retries, or none valid after the re-asks), which the command holds
        against ``--max-failures`` as ``taiwa run`` does. A chat-model SPEC is called with
        ``models`` (``taiwa run``'s flags: base URL, concurrency, retries) and its endpoint
        checked before anything else (:func:`taiwa.models.spec.load_checked_model`)."""
        ...

    def tables(self, report: Mapping[str, Any]) -> list[Any]:
        """Terminal tables of a report."""
        ...


class Compares(Protocol):
    """Optional part of a :class:`Method` (issue 27): ``compared(options)`` declares the
    per-item metrics (or statistics over shared items) its systems are compared on, each with
    its direction (:class:`taiwa.metrics.comparisons.ComparedMetric`). A function, so statistic
    objects
    are built only when a run aggregates. When a run has two or more systems the runner pairs
    them on these (every pair, or each against ``--baseline``) and stores the ``comparisons``
    block of ``summary.json``; the method re-implements no statistics. An empty sequence: the
    method's systems share no items (say why in the method's docstring)."""

    def compared(self, options: Any) -> Sequence[ComparedMetric]: ...


class Evidences(Protocol):
    """Optional part of a :class:`Method` (issue 43): ``evidence()`` declares once what the
    method knows about each item (:class:`taiwa.harness.evidence.ItemEvidence`: the item's
    blocks, the reply, per-item metrics, splits and flags, its own evidence per system and
    across systems, the prompt rebuilt from the item's record), which the report's item view
    and ``taiwa show`` render through shared code. A method that declares it also records each
    item with :class:`taiwa.harness.stages.ItemStage` (its last stage, ``items.jsonl``)."""

    def evidence(self) -> ItemEvidence: ...


def compared_metrics(method: Any, options: Any) -> list[ComparedMetric]:
    """What ``method`` declares it compares (none when it has no ``compared``)."""
    declare = getattr(method, "compared", None)
    return list(declare(options)) if callable(declare) else []


class Method(Protocol, Generic[S]):
    """One evaluation method (seed paper). See ``docs/architecture.md`` for a worked example.

    ``takes_systems``: the method evaluates models given with ``--model`` (a ``system`` role);
    when false the systems come from the data (e.g. dialogues whose agent is already known).
    ``options`` is the pydantic model of ``-o key=value``; ``prompts`` are hashed into
    ``config.json``.
    """

    @property
    def name(self) -> str: ...
    @property
    def seed(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def takes_systems(self) -> bool: ...
    @property
    def roles(self) -> Sequence[Role]: ...
    @property
    def options(self) -> type[BaseModel]: ...
    @property
    def prompts(self) -> Mapping[str, str]: ...

    def default_data(self) -> Path:
        """The bundled sample dataset."""
        ...

    def load(self, path: Path, options: Any) -> Iterable[S]:
        """Read and validate the dataset (errors name file, line and field).

        May be a generator: the runner reads the dataset once to validate and count it before
        the first model call, then again chunk by chunk, so a large dataset is never held in
        memory whole. Raise at the end for checks over the whole file. A list is kept whole
        and never read again (a method that holds its samples anyway, e.g. after a pass over
        the whole file)."""
        ...

    def reference(self, sample: S) -> str | None:
        """The human reference reply of a sample (the ``human`` system), if the data has one."""
        ...

    def stages(self, setup: Setup) -> Sequence[Stage[S]]:
        """The pipeline for this run (e.g. generate → annotate → score)."""
        ...

    def aggregate(self, samples: Iterable[S], results: Results, setup: Setup) -> Summary:
        """Aggregate the stages' rows into one block per system and the cross-system results.

        ``samples`` and the views of ``results`` are re-read on each pass (see
        :class:`Results`)."""
        ...

    def tables(self, summary: Mapping[str, Any]) -> Sequence[Any]:
        """Terminal tables (rich renderables) of a written ``summary.json``."""
        ...

    def report(self, run: RunData) -> Section:
        """The method's figures and examples for the HTML report of one finished run
        (``taiwa report``), read from its run directory (``summary.json``, the stage files, the
        charts the run wrote); never calls a model. The page shows :meth:`tables` itself."""
        ...

    def demo(self) -> Demo:
        """What the method's section of ``taiwa demo`` runs (offline, embedded defaults), as a
        value that ``taiwa demo`` hands to the runner (:mod:`taiwa.harness.demo_spec`);
        ``Demo()`` shows nothing."""
        ...
