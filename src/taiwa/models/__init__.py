"""Chat model backends behind one async protocol, plus the response cache."""

from taiwa.models.base import ChatModel, ConcurrentModel
from taiwa.models.cache import CachingModel, ResponseCache, default_cache_dir
from taiwa.models.spec import ModelOptions, ModelSpec, load_model
from taiwa.models.types import ChatMessage, ChatRequest, ChatResponse, ContentPart, GenerationParams

__all__ = [
    "CachingModel",
    "ChatMessage",
    "ChatModel",
    "ChatRequest",
    "ChatResponse",
    "ConcurrentModel",
    "ContentPart",
    "GenerationParams",
    "ModelOptions",
    "ModelSpec",
    "ResponseCache",
    "default_cache_dir",
    "load_model",
]
