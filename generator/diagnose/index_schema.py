"""The shape check for a signature index that comes from outside the package (`--index`).

Kept apart from index.py so that a start with the bundled index never imports pydantic.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from generator.diagnose.index import IndexFormatError


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Entry(_Model):
    title: str
    category: str
    severity: str
    quick_fix: str
    path: str
    related: tuple[str, ...] = ()
    collateral: tuple[str, ...] = ()
    refines: str | None = None


class _Signature(_Model):
    entry: str
    pattern: str
    role: Literal["defining", "context", "harmless"]
    seen_in: str


class _File(_Model):
    version: Literal[1]
    catalog: str | None = None
    max_line_bytes: int = Field(ge=256, le=1 << 24)
    entries: dict[str, _Entry]
    signatures: tuple[_Signature, ...]


def check_shape(data: dict[str, Any]) -> None:
    """Raise IndexFormatError naming the first field that is not what the index holds."""
    try:
        _File.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise IndexFormatError(f"{where}: {first['msg']}") from None
