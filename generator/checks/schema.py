"""The schema check: pydantic validation errors mapped back to the line and column at fault."""

from __future__ import annotations

import datetime
import difflib
from typing import Any

from pydantic import BaseModel, ValidationError

from generator.checks.base import Check, register
from generator.loading.yaml_source import LoadedYaml, Path
from generator.model.entry import Entry, model_in
from generator.problems import Level, Problem, quoted


@register
class Schema(Check):
    """The entry matches the schema: every required field, the right types, no unknown keys.

    Passes: `severity: high`. Fails: `severity: urgent` (not one of the allowed values).
    """

    id = "schema"
    phase = "model"


def _data_path(data: Any, loc: tuple[int | str, ...]) -> Path:
    """Keep the parts of a pydantic `loc` that name real keys or indexes in the data.

    pydantic adds the names of union members and validators (such as `str` or
    `function-after[...]`) to `loc`; those are not places in the file.
    """
    path: list[str | int] = []
    node = data
    for part in loc:
        in_dict = isinstance(node, dict) and isinstance(part, str) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if in_dict or in_list:
            node = node[part]
            path.append(part)
        elif isinstance(node, dict | list):
            # A missing key or index: keep it, so the message can name it.
            path.append(part)
            node = None
    return tuple(path)


def _dotted(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "entry"


def _field_names(model: type[BaseModel], path: Path) -> list[str]:
    """The field names allowed at `path`, to suggest a fix for a misspelt key."""
    current: Any = model
    for part in path:
        if isinstance(part, int):
            continue
        info = current.model_fields.get(part)
        if info is None:
            return []
        annotation = info.annotation
        current = model_in(annotation)
        if current is None:
            return []
    return list(current.model_fields)


def _description(model: type[BaseModel], path: Path) -> str:
    """The schema's description of the field at `path`, to tell an editor what to write."""
    names = [p for p in path if isinstance(p, str)]
    if not names:
        return ""
    current: Any = model
    for name in names[:-1]:
        info = current.model_fields.get(name)
        current = model_in(info.annotation) if info is not None else None
        if current is None:
            return ""
    info = current.model_fields.get(names[-1])
    return (info.description or "") if info is not None else ""


def _not_text(where: Path, source: LoadedYaml, value: Any, message: str) -> str:
    """Text was wanted and YAML 1.1 read a plain value as something else: say what, and how
    to keep it text (`no` and `on` are booleans, `1.10` is the number 1.1)."""
    pos = source.positions.get(where)
    written = pos.written if pos is not None else None
    if written is None or isinstance(value, list | dict):
        return message
    if value is None and not written:
        return f"{_dotted(where)}: has no value"
    if isinstance(value, bool):
        what = f"the boolean {str(value).lower()}"
    elif isinstance(value, int | float):
        what = f"the number {value!r}"
    elif isinstance(value, datetime.date):
        what = "a date"
    elif value is None:
        what = "null (no value)"
    else:
        return message
    return f"{_dotted(where)}: YAML read `{written}` as {what}; quote it: {quoted(written)}"


def _length_message(where: Path, error: Any) -> str:
    """pydantic counts a string's length as "items"; say characters for text."""
    ctx = error.get("ctx") or {}
    unit = "character" if isinstance(error.get("input"), str) else "item"
    if error["type"] == "too_long":
        limit = ctx.get("max_length", 0)
        return (
            f"{_dotted(where)}: is {ctx.get('actual_length', 0):,} {unit}s long; "
            f"the limit is {limit:,} {unit}{'s' if limit != 1 else ''}"
        )
    wanted = ctx.get("min_length", 1)
    message = f"{_dotted(where)}: needs at least {wanted} {unit}{'s' if wanted != 1 else ''}"
    if ctx.get("actual_length"):
        message += f", has {ctx['actual_length']}"
    return message


# Errors that mean "nothing written here yet": the message adds what belongs there.
_EMPTY_KINDS = {"missing", "too_short", "value_error", "string_too_short"}


def schema_problems(path: str, source: LoadedYaml, exc: ValidationError) -> list[Problem]:
    problems: list[Problem] = []
    errors = exc.errors(include_url=False)
    item_error_locs = {tuple(e["loc"])[:-1] for e in errors if e["type"] != "too_short"}
    for error in errors:
        where = _data_path(source.data, tuple(error["loc"]))
        kind = error["type"]
        if kind == "too_short" and any(
            loc[: len(error["loc"])] == tuple(error["loc"]) for loc in item_error_locs
        ):
            # pydantic drops the invalid items before it counts them; the item's own error
            # already says what is wrong, and "at least 1 item, not 0" would only mislead.
            continue
        if kind == "missing":
            parent, name = where[:-1], where[-1]
            line, col = source.position(parent, at_key=True) if parent else (1, 1)
            where_text = f" in {_dotted(parent)}" if parent else ""
            message = f"missing required field {quoted(name)}{where_text}"
        elif kind == "extra_forbidden":
            line, col = source.position(where, at_key=True)
            name = where[-1]
            allowed = _field_names(Entry, where[:-1])
            close = difflib.get_close_matches(str(name), allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            message = f"unknown field {quoted(name)}{hint}"
        else:
            line, col = source.position(where)
            msg = str(error["msg"])
            msg = msg.removeprefix("Value error, ")
            message = f"{_dotted(where)}: {msg}"
            if kind == "string_type" and isinstance(error.get("input"), dict):
                # The classic YAML trap: "text: more text" on one line is a mapping.
                message += (
                    "; YAML read this text as a mapping because it contains ': ' — "
                    "put the text in quotes or use a block scalar (>-)"
                )
            elif kind == "string_type":
                message = _not_text(where, source, error.get("input"), message)
        if kind in ("too_short", "too_long"):
            message = _length_message(where, error)
        if kind in _EMPTY_KINDS and (kind != "value_error" or "must not be empty" in message):
            hint = _description(Entry, where)
            if hint:
                message += f" — write {hint[0].lower()}{hint[1:].rstrip('.')}"
        problems.append(Problem(path, line, col, Level.ERROR, Schema.id, message))
    return problems
