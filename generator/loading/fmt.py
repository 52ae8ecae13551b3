"""`trainwreck fmt`: one canonical layout for every entry, with every comment kept.

ruamel.yaml round-trips comments and scalar styles, which PyYAML cannot; the formatter only
reorders keys into schema order, picks flow style for short lists of ids and numbers and block
style for everything else, and leaves the text of every value alone. Keys the schema does not
know stay, after the known ones, so formatting never loses what an editor wrote.
"""

from __future__ import annotations

import io
from typing import Any

from pydantic import BaseModel
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.emitter import Emitter
from ruamel.yaml.error import YAMLError

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
    yaml = _yaml()
    try:
        data = yaml.load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise FormatError(f"cannot format: {getattr(exc, 'problem', exc)}", line, col) from None
    if not isinstance(data, CommentedMap):
        raise FormatError("cannot format: the document is not a mapping", 1, 1)
    _reorder(data, Entry)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()
