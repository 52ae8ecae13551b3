"""All checks, registered by id on import."""

from generator.checks import (
    export,
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
    "export",
    "identity",
    "invisible",
    "loading",
    "markdown",
    "refines",
    "schema",
    "signatures",
]
