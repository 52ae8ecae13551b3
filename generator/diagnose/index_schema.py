"""The shape check for a signature index that comes from outside the package (`--index`).

Kept apart from index.py so that a start with the bundled index never imports pydantic.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.diagnose.index import (
    MAX_INDEX_ENTRIES,
    MAX_INDEX_SIGNATURES,
    IndexFormatError,
    clip,
)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# Named as index.py names the records they check: the name shows in messages
# ("an instance of IndexSignature").
class IndexEntry(_Model):
    title: str
    category: str
    severity: str
    quick_fix: str
    path: str
    related: tuple[str, ...] = ()
    collateral: tuple[str, ...] = ()
    refines: str | None = None
    kind: Literal["failure", "class"] = "failure"
    signals: tuple[int, ...] = ()
    progress: tuple[
        Literal["non-finite", "loss-scale-collapse", "stall", "divergence", "spike", "slowdown"],
        ...,
    ] = ()


class IndexSignature(_Model):
    entry: str
    pattern: str
    role: Literal["defining", "context", "harmless"]
    seen_in: str


class _Shape(_Model):
    """The top level of an index; its entries and signatures are checked one by one after."""

    version: Literal[1]
    catalog: str | None = None
    max_line_bytes: int = Field(ge=256, le=1 << 24)
    entries: Any
    signatures: Any


def _first_error(exc: ValidationError, prefix: tuple[str | int, ...] = ()) -> IndexFormatError:
    first = exc.errors(include_url=False)[0]
    where = ".".join(clip(str(part)) for part in (*prefix, *first["loc"]))
    return IndexFormatError(f"{where}: {first['msg']}")


def _each(model: type[BaseModel], items: Iterable[tuple[str | int, Any]], name: str) -> None:
    """Each item validated on its own, stopping at the first bad one: validated together, a
    list of a million bad items would collect millions of errors before reporting one."""
    for key, value in items:
        try:
            model.model_validate(value)
        except ValidationError as exc:
            raise _first_error(exc, (name, key)) from None


def check_shape(data: dict[str, Any]) -> None:
    """Raise IndexFormatError naming the first field that is not what the index holds."""
    try:
        shape = _Shape.model_validate(data)
    except ValidationError as exc:
        raise _first_error(exc) from None
    if not isinstance(shape.entries, dict):
        raise IndexFormatError("entries: Input should be an object")
    if not isinstance(shape.signatures, list):
        raise IndexFormatError("signatures: Input should be a list")
    for name, items, cap in (
        ("entries", shape.entries, MAX_INDEX_ENTRIES),
        ("signatures", shape.signatures, MAX_INDEX_SIGNATURES),
    ):
        if len(items) > cap:
            raise IndexFormatError(
                f"{name}: {len(items):,} items, more than the {cap:,} an index may hold"
            )
    _each(IndexEntry, shape.entries.items(), "entries")
    _each(IndexSignature, enumerate(shape.signatures), "signatures")
