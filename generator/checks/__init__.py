"""All checks, registered by id on import."""

from generator.checks import (
    identity,
    invisible,
    loading,
    markdown,
    refines,
    schema,
    signatures,
)
from generator.checks.base import REGISTRY, Check, EntryDoc

__all__ = [
    "REGISTRY",
    "Check",
    "EntryDoc",
    "identity",
    "invisible",
    "loading",
    "markdown",
    "refines",
    "schema",
    "signatures",
]
