"""`trainwreck fmt`: one canonical layout for every entry, with every comment kept.

ruamel.yaml round-trips comments and scalar styles, which PyYAML cannot; the formatter only
reorders keys into schema order, picks flow style for short lists of ids and numbers and block
style for everything else, and leaves the text of every value alone. Keys the schema does not
know stay, after the known ones, so formatting never loses what an editor wrote. A comment
written on the lines right above a key, at the key's column, moves with the key.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import yaml
from pydantic import BaseModel
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.emitter import Emitter
from ruamel.yaml.error import YAMLError

from generator.loading.yaml_source import nesting_problem
from generator.model.entry import Entry, model_in

# Lists that read best on one line: ids, tags and codes.
_FLOW_LISTS = {"tags", "related", "collateral", "xid", "nccl", "cuda", "aliases"}


class FormatError(Exception):
    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


class _DoubleQuoteEmitter(Emitter):
    """Quote with double quotes where quoting is needed, as the entries are written."""

    def choose_scalar_style(self) -> Any:
        style = super().choose_scalar_style()
        return '"' if style == "'" else style

    def determine_block_hints(self, text: Any) -> Any:
        hints, indent, indicator = super().determine_block_hints(text)
        # ruamel.yaml gives a block scalar an indentation indicator only when its text starts
        # with a space or a line break. Text that starts with a tab (a log line printed with
        # one) needs it too: without it the reader takes the tab for indentation and fails.
        if text and text[0] == "\t" and not indent:
            indent = 2
            hints = f"{indent}{hints}"
        return hints, indent, indicator


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.Emitter = _DoubleQuoteEmitter
    yaml.preserve_quotes = False
    yaml.width = 4096  # never re-wrap prose
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def _model_for(model: type[BaseModel], key: str) -> type[BaseModel] | None:
    info = model.model_fields.get(key)
    if info is None:
        return None
    return model_in(info.annotation)


def _reorder(node: CommentedMap, model: type[BaseModel]) -> None:
    order = list(model.model_fields)
    known = [k for k in order if k in node]
    unknown = [k for k in node if k not in model.model_fields]
    wanted = known + unknown
    if list(node) != wanted:
        # Moving keys with their values: ruamel keeps each key's comments in node.ca.items,
        # which is keyed by name, so popping and re-inserting keeps them attached.
        items = [(k, node[k]) for k in wanted]
        for key in list(node):
            del node[key]
        for key, value in items:
            node[key] = value
    for key in node:
        value = node[key]
        child = _model_for(model, key) if isinstance(key, str) else None
        if isinstance(value, CommentedMap) and child is not None:
            _reorder(value, child)
        elif isinstance(value, CommentedSeq):
            _style_list(value, key)
            for item in value:
                if isinstance(item, CommentedMap) and child is not None:
                    _reorder(item, child)


def _style_list(seq: CommentedSeq, key: object) -> None:
    simple = all(isinstance(v, str | int) and "\n" not in str(v) for v in seq)
    if key in _FLOW_LISTS and simple:
        seq.fa.set_flow_style()
    else:
        seq.fa.set_block_style()


def format_text(text: str) -> str:
    """The canonical form of one entry file's text. Idempotent."""
    data = _load(text)
    lines = text.splitlines(keepends=True)
    # ruamel.yaml attaches a full-line comment to whatever precedes it, so a comment written
    # above a key would stay behind when the key moves. Take each key's comment lines out
    # first, and put them back above the key once it is in its place.
    leading, taken = _leading_comments(data, lines)
    without = "".join(line for number, line in enumerate(lines) if number not in taken)
    out = _dump(_reordered(_load(without)))
    if leading:
        out_lines = out.splitlines(keepends=True)
        placed = sorted(
            (
                (line, col, leading[path])
                for path, line, col in _key_positions(_load(out))
                if path in leading
            ),
            key=lambda item: item[0],
            reverse=True,
        )
        for line, col, comments in placed:
            out_lines[line:line] = [" " * col + comment + "\n" for comment in comments]
        out = "".join(out_lines)
    if yaml.safe_load(out) != yaml.safe_load(text):
        # The formatter must never change what an entry says; an emitter quirk that would is
        # refused here rather than written over the editor's file.
        raise FormatError("cannot format: the canonical layout would change the data", 1, 1)
    return out


_KeyPath = tuple[object, ...]


def _load(text: str) -> CommentedMap:
    deep = nesting_problem(text)
    if deep is not None:
        # ruamel.yaml's composer recurses once a level and would exhaust the stack.
        raise FormatError(f"cannot format: {deep.message}", deep.line, deep.col)
    try:
        data = _yaml().load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise FormatError(f"cannot format: {getattr(exc, 'problem', exc)}", line, col) from None
    if not isinstance(data, CommentedMap):
        raise FormatError("cannot format: the document is not a mapping", 1, 1)
    return data


def _reordered(data: CommentedMap) -> CommentedMap:
    _reorder(data, Entry)
    return data


def _dump(data: CommentedMap) -> str:
    out = io.StringIO()
    _yaml().dump(data, out)
    return out.getvalue()


def _key_positions(node: object, path: _KeyPath = ()) -> Iterator[tuple[_KeyPath, int, int]]:
    """Every mapping key under `node`, by its path, with its 0-based line and column."""
    if isinstance(node, CommentedMap):
        for key in node:
            line, col = node.lc.key(key)
            yield (*path, key), line, col
            yield from _key_positions(node[key], (*path, key))
    elif isinstance(node, CommentedSeq):
        for number, item in enumerate(node):
            yield from _key_positions(item, (*path, number))


def _leading_comments(
    data: CommentedMap, lines: list[str]
) -> tuple[dict[_KeyPath, list[str]], set[int]]:
    """The full-line comments right above each key, at the key's own column, and their line
    numbers. A line of a block scalar is indented deeper than any key after it, so it is never
    taken for a comment. The lines above the document's first key are its header and stay."""
    leading: dict[_KeyPath, list[str]] = {}
    taken: set[int] = set()
    first = next(iter(data), None)
    for path, line, col in _key_positions(data):
        if path == (first,):
            continue
        start = line
        while start > 0 and start - 1 not in taken and _is_comment_at(lines[start - 1], col):
            start -= 1
        if start < line:
            leading[path] = [lines[n].strip() for n in range(start, line)]
            taken.update(range(start, line))
    return leading, taken


def _is_comment_at(line: str, col: int) -> bool:
    body = line.lstrip(" ")
    return body.startswith("#") and len(line) - len(body) == col
