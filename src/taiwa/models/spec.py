"""Model SPEC strings: ``openai:MODEL``, ``gguf:PATH``, ``hf:PATH``, ``replay:FILE``,
``builtin:NAME``, ``demo`` and ``cascade:ASR+LLM`` (DESIGN.md, CLI shape)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from taiwa.core.errors import TaiwaError
from taiwa.models.base import ChatModel

KINDS = ("openai", "gguf", "hf", "replay", "builtin", "cascade")
HELP = (
    "openai:MODEL, gguf:PATH, hf:PATH, replay:FILE, builtin:parrot|eliza|fixed|random, demo "
    "or cascade:ASR+LLM (e.g. cascade:whisper-base+demo)"
)
AUDIO_KINDS = ("openai", "cascade", "replay")
"""Backends that take audio input: an OpenAI-compatible audio chat model, a cascade (ASR, then
any text model), and replayed answers (recorded from whatever heard the audio)."""


def looks_like_path(spec: str) -> bool:
    """Whether ``spec``, no model SPEC (no ``openai:``, ``gguf:`` ... prefix), reads as a
    path: it holds a ``/`` or starts with ``.`` or ``~`` (``runs/my-bert``, ``./model``)."""
    if spec == "demo" or spec.partition(":")[0] in KINDS:
        return False
    return "/" in spec or "\\" in spec or spec.startswith((".", "~"))


@dataclass(frozen=True)
class ModelSpec:
    """A parsed SPEC: the backend kind and its target (model name, path or built-in name)."""

    kind: str
    target: str

    @classmethod
    def parse(cls, spec: str) -> ModelSpec:
        spec = spec.strip()
        if spec == "demo":
            return cls("demo", "")
        kind, sep, target = spec.partition(":")
        shown = spec if len(spec) <= 80 else spec[:77] + "..."
        if not sep or kind not in KINDS or not target:
            raise TaiwaError(f"bad model spec {shown!r}: expected {HELP}")
        if kind == "cascade":
            asr, plus, llm = target.partition("+")
            if not plus or not asr or not llm:
                raise TaiwaError(
                    f"bad model spec {shown!r}: expected cascade:ASR+LLM, e.g. "
                    "cascade:whisper-base+demo"
                )
            if cls.parse(llm).kind == "cascade":
                raise TaiwaError(f"bad model spec {shown!r}: the LLM of a cascade takes text")
        return cls(kind, target)

    @property
    def accepts_audio(self) -> bool:
        """Whether this backend can be given audio (text-only ones refuse it)."""
        return self.kind in AUDIO_KINDS

    @property
    def cascade_parts(self) -> tuple[str, ModelSpec]:
        """``cascade:ASR+LLM``: the ASR name and the text model's SPEC."""
        asr, _, llm = self.target.partition("+")
        return asr, ModelSpec.parse(llm)

    def check(self, options: ModelOptions) -> None:
        """Cheap checks before a run starts (no model loaded): the file or directory exists,
        a GGUF file starts like one, a base URL is well formed."""
        path = Path(self.target)
        try:
            self._check(path, options)
        except OSError as exc:  # e.g. a name too long to look up
            raise TaiwaError(f"{self.kind}:{str(path)[:80]}: {exc.strerror}") from None

    def _check(self, path: Path, options: ModelOptions) -> None:
        if self.kind == "gguf":
            try:
                with open(path, "rb") as fh:
                    magic = fh.read(4)
            except OSError as exc:
                raise TaiwaError(
                    f"GGUF model file not found: {path} ({exc.strerror}; expected gguf:PATH to "
                    "an existing .gguf file)"
                ) from None
            if magic != b"GGUF":
                raise TaiwaError(f"{path} is not a GGUF file (it does not start with 'GGUF')")
        elif self.kind in ("hf", "replay"):
            wanted = path.is_dir() if self.kind == "hf" else path.is_file()
            if not wanted:
                what = "a local model directory" if self.kind == "hf" else "an existing file"
                raise TaiwaError(f"{self.kind}:{path}: expected {what}")
        elif self.kind == "openai":
            from taiwa.models.openai_transport import DEFAULT_BASE_URL, checked_base_url

            checked_base_url(options.base_url or DEFAULT_BASE_URL)
        elif self.kind == "cascade":
            from taiwa.models.asr import BUNDLED, HELP

            asr, llm = self.cascade_parts
            if asr != BUNDLED and not Path(asr).is_dir():
                raise TaiwaError(
                    f"unknown ASR {asr[:80]!r} in {self.kind}:{self.target[:80]}: {HELP}"
                )
            llm.check(options)


@dataclass(frozen=True)
class ModelOptions:
    """Backend options that come from the run configuration."""

    base_url: str | None = None
    concurrency: int = 16
    rpm: float | None = None
    timeout: float = 60.0
    max_retries: int = 5
    retry_window: float = 120.0
    max_retry_wait: float = 600.0
    cache_dir: Path | None = None


def load_model(spec: str | ModelSpec, options: ModelOptions | None = None) -> ChatModel:
    """Build the backend named by ``spec``. Heavy libraries are imported only when needed."""
    s = spec if isinstance(spec, ModelSpec) else ModelSpec.parse(spec)
    o = options or ModelOptions()
    if s.kind == "builtin":
        from taiwa.models.builtin import BuiltinModel

        return BuiltinModel(s.target)
    if s.kind == "replay":
        from taiwa.models.replay import ReplayModel

        return ReplayModel(s.target)
    if s.kind == "cascade":
        from taiwa.models.asr import load_asr
        from taiwa.models.cache import default_cache_dir
        from taiwa.models.cascade import CascadeModel

        asr, llm = s.cascade_parts
        return CascadeModel(load_asr(asr, o.cache_dir or default_cache_dir()), load_model(llm, o))
    if s.kind == "openai":
        from taiwa.models.openai_compat import OpenAICompatModel

        return OpenAICompatModel(
            s.target,
            base_url=o.base_url,
            concurrency=o.concurrency,
            rpm=o.rpm,
            timeout=o.timeout,
            max_retries=o.max_retries,
            retry_window=o.retry_window,
            max_retry_wait=o.max_retry_wait,
        )
    if s.kind in ("gguf", "demo"):
        from taiwa.models.cache import default_cache_dir
        from taiwa.models.llama_cpp_backend import LlamaCppModel

        cache_dir = o.cache_dir or default_cache_dir()
        if s.kind == "gguf":
            return LlamaCppModel(s.target, cache_dir=cache_dir)
        from taiwa.models.embedded import MODEL_ID, embedded_model_path

        return LlamaCppModel(embedded_model_path(cache_dir), model_id=MODEL_ID, cache_dir=cache_dir)
    from taiwa.models.cache import default_cache_dir
    from taiwa.models.transformers_backend import TransformersModel

    return TransformersModel(s.target, cache_dir=o.cache_dir or default_cache_dir())


def load_checked_model(spec: str, options: ModelOptions | None = None) -> ChatModel:
    """The model of ``spec`` with its endpoint checked before any request, as a run checks each
    of its models (:meth:`ModelSpec.check`, then :meth:`ChatModel.check`: one line, fast, for a
    server that cannot be reached or refuses the key); for commands that call a model outside
    a run (``taiwa validate``, issue 42)."""
    import asyncio

    o = options or ModelOptions()
    parsed = ModelSpec.parse(spec)
    parsed.check(o)
    model = load_model(parsed, o)
    asyncio.run(model.check())
    return model
