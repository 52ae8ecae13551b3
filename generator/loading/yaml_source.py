"""Safe YAML loading that keeps the source position of every key and item.

PyYAML's safe loader silently keeps the last of two duplicate keys, expands aliases (the
billion-laughs bomb) and reports nothing about where a value came from. Entries are written by
strangers and every problem must name its line and column, so this loader composes the node
graph itself, refuses what an entry never needs, and records a position for every path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.events import AliasEvent, CollectionStartEvent, NodeEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from generator.diagnose.scan import utf16_order
from generator.problems import QUOTE_CHARS, Level, Problem, quoted

Path = tuple[str | int, ...]

# Entries are a few kilobytes; the cap keeps a hostile 20 MB file from costing memory and time.
MAX_FILE_BYTES = 512 * 1024
# A real entry nests four or five levels; the composer, the walker below and every check
# recurse once a level, so an 800-byte file 400 levels deep would exhaust Python's stack.
MAX_DEPTH = 32

_ALLOWED_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:seq",
    "tag:yaml.org,2002:map",
}


@dataclass(frozen=True)
class Position:
    """1-based places of a key (for mappings) and of its value."""

    key_line: int
    key_col: int
    value_line: int
    value_col: int
    # "|" or ">" for block scalars, whose text starts on the line after the value mark.
    style: str | None = None
    # A plain value YAML read as something other than text (`no`, `1.10`, `2024-01-01`), as
    # written, so that a message can say what YAML made of it.
    written: str | None = None


@dataclass
class LoadedYaml:
    data: Any
    positions: dict[Path, Position] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    def position(self, path: Path, *, at_key: bool = False) -> tuple[int, int]:
        """The place of `path`, or of its nearest ancestor when the path does not exist."""
        probe = tuple(path)
        while probe not in self.positions and probe:
            probe = probe[:-1]
            at_key = True
        pos = self.positions.get(probe)
        if pos is None:
            return (1, 1)
        return (pos.key_line, pos.key_col) if at_key else (pos.value_line, pos.value_col)


class YamlProblem(Exception):
    def __init__(self, check: str, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.check = check
        self.message = message
        self.line = line
        self.col = col


if yaml.__with_libyaml__:
    from yaml._yaml import CParser
    from yaml.composer import Composer
    from yaml.constructor import SafeConstructor
    from yaml.resolver import Resolver

    class _Base(Composer, CParser, SafeConstructor, Resolver):
        """LibYAML's C scanner and parser under PyYAML's Python composer.

        Scanning is where pure-Python PyYAML spends its time (about 5 ms an entry, 16x the C
        parser); composing stays in Python so that the hook below sees every anchor and alias.
        """

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            Composer.__init__(self)

else:  # pragma: no cover - PyYAML wheels ship LibYAML on every platform we run on
    _Base = yaml.SafeLoader  # type: ignore[assignment,misc]


class _StrictLoader(_Base):
    """A safe loader whose composer refuses anchors and aliases where they first appear, and
    lists and mappings nested deeper than MAX_DEPTH before it recurses into them."""

    depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()
        if isinstance(event, CollectionStartEvent):
            if self.depth >= MAX_DEPTH:
                raise _too_deep(event.start_mark)
            self.depth += 1
            try:
                return self._compose_checked(parent, index, event)
            finally:
                self.depth -= 1
        return self._compose_checked(parent, index, event)

    def _compose_checked(self, parent: Node | None, index: Any, event: Any) -> Node | None:
        if isinstance(event, AliasEvent):
            line, col = _place(event.start_mark)
            raise YamlProblem(
                "yaml-anchor",
                f"alias *{_name(event.anchor)} is not allowed; write the value out in full",
                line,
                col,
            )
        if isinstance(event, NodeEvent) and event.anchor is not None:
            line, col = _place(event.start_mark)
            raise YamlProblem(
                "yaml-anchor",
                f"anchor &{_name(event.anchor)} is not allowed; entries do not share values",
                line,
                col,
            )
        return super().compose_node(parent, index)


def _name(anchor: str | None) -> str:
    """An anchor's name as written, or its start and length when it is long."""
    name = anchor or ""
    return name if len(name) <= QUOTE_CHARS else quoted(name)


def _place(mark: Any) -> tuple[int, int]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def _too_deep(mark: Any) -> YamlProblem:
    line, col = _place(mark)
    return YamlProblem(
        "yaml-too-deep",
        f"lists and mappings are nested more than {MAX_DEPTH} levels deep; an entry needs a few",
        line,
        col,
    )


def nesting_problem(text: str) -> YamlProblem | None:
    """The place where `text` nests deeper than MAX_DEPTH, found from the parser's events
    (which do not recurse), for tools such as `fmt` whose own YAML library would recurse."""
    depth = 0
    try:
        parser = _Base(text)
    except yaml.YAMLError:
        return None  # not YAML at all: the tool's own parser says where
    try:
        while parser.check_event():
            event = parser.get_event()
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    return _too_deep(event.start_mark)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return None
    finally:
        parser.dispose()
    return None


# The characters YAML 1.1 does not allow in a stream (PyYAML's Reader refuses them before it
# parses anything); found here first, so the problem gets a line and a column.
_CONTROL = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


# Line breaks to YAML but not to editors or `grep -n`: after one, every line number YAML gives
# would point a line too low, so they are refused where they stand.
_ODD_BREAKS = re.compile("[\x85\u2028\u2029]")
_BREAK_NAMES = {"\x85": "next line", "\u2028": "line separator", "\u2029": "paragraph separator"}


def _decode(raw: bytes) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise YamlProblem("file-encoding", "file is UTF-16; save it as UTF-8", 1, 1)
    if utf16_order(raw) is not None:
        raise YamlProblem("file-encoding", "file is UTF-16 without a BOM; save it as UTF-8", 1, 1)
    if raw.startswith(b"\xef\xbb\xbf"):
        raise YamlProblem(
            "file-encoding",
            "file starts with a byte-order mark; save it as UTF-8 without BOM",
            1,
            1,
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise YamlProblem(
            "file-encoding",
            f"invalid UTF-8 byte 0x{raw[exc.start]:02x}; save it as UTF-8",
            line,
            col,
        ) from None
    bad = _CONTROL.search(text)
    if bad:
        at = bad.start()
        line = text.count("\n", 0, at) + 1
        col = at - (text.rfind("\n", 0, at) + 1) + 1
        char = bad.group()
        what = "NUL byte" if char == "\x00" else f"character U+{ord(char):04X}"
        raise YamlProblem("file-encoding", f"{what} in file; entries are plain text", line, col)
    odd = _ODD_BREAKS.search(text)
    if odd:
        at = odd.start()
        line = text.count("\n", 0, at) + 1
        col = at - (text.rfind("\n", 0, at) + 1) + 1
        char = odd.group()
        raise YamlProblem(
            "file-encoding",
            f"character U+{ord(char):04X} ({_BREAK_NAMES[char]}) is a line break to YAML but "
            "not to editors; use a plain newline or a space",
            line,
            col,
        )
    return text


_NUMBER_TAGS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}
# No number an entry holds needs more digits; Python's int() is quadratic in them.
MAX_NUMBER_CHARS = 32


def _check_number(node: ScalarNode) -> None:
    value = str(node.value)
    if ":" in value:
        raise YamlProblem(
            "yaml-number",
            f"{quoted(value)} is a YAML 1.1 base-60 number; quote it if it is text",
            node.start_mark.line + 1,
            node.start_mark.column + 1,
        )
    if len(value) > MAX_NUMBER_CHARS:
        raise YamlProblem(
            "yaml-number",
            f"number {quoted(value)} is longer than {MAX_NUMBER_CHARS} characters; "
            "quote it if it is text",
            node.start_mark.line + 1,
            node.start_mark.column + 1,
        )


def _style(node: Node) -> str | None:
    return node.style if isinstance(node, ScalarNode) and node.style in ("|", ">") else None


def _written(node: Node) -> str | None:
    if isinstance(node, ScalarNode) and node.tag != "tag:yaml.org,2002:str":
        return str(node.value)
    return None


def _build(node: Node, path: Path, loader: _StrictLoader, positions: dict[Path, Position]) -> Any:
    if node.tag not in _ALLOWED_TAGS:
        raise YamlProblem(
            "yaml-tag",
            f"tag {quoted(node.tag, 80)} is not allowed; use plain YAML values",
            node.start_mark.line + 1,
            node.start_mark.column + 1,
        )
    if isinstance(node, MappingNode):
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise YamlProblem(
                    "yaml-key",
                    "merge keys (<<) are not allowed; write the keys out in full",
                    key_node.start_mark.line + 1,
                    key_node.start_mark.column + 1,
                )
            if not isinstance(key_node, ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
                raise YamlProblem(
                    "yaml-key",
                    "mapping keys must be plain strings",
                    key_node.start_mark.line + 1,
                    key_node.start_mark.column + 1,
                )
            key = str(key_node.value)
            if key in result:
                first = positions[(*path, key)]
                raise YamlProblem(
                    "yaml-duplicate-key",
                    f"duplicate key {quoted(key)} (first defined at line {first.key_line})",
                    key_node.start_mark.line + 1,
                    key_node.start_mark.column + 1,
                )
            child = (*path, key)
            positions[child] = Position(
                key_node.start_mark.line + 1,
                key_node.start_mark.column + 1,
                value_node.start_mark.line + 1,
                value_node.start_mark.column + 1,
                _style(value_node),
                _written(value_node),
            )
            result[key] = _build(value_node, child, loader, positions)
        return result
    if isinstance(node, SequenceNode):
        items: list[Any] = []
        for index, item in enumerate(node.value):
            child = (*path, index)
            line, col = item.start_mark.line + 1, item.start_mark.column + 1
            positions[child] = Position(line, col, line, col, _style(item), _written(item))
            items.append(_build(item, child, loader, positions))
        return items
    if node.tag in _NUMBER_TAGS and isinstance(node, ScalarNode):
        _check_number(node)
    try:
        return loader.construct_object(node, deep=True)
    except ValueError as exc:
        # An impossible timestamp such as 2026-13-45 fails in datetime, not in PyYAML.
        raise YamlProblem(
            "yaml-syntax",
            f"invalid value {quoted(str(node.value))}: {exc}",
            node.start_mark.line + 1,
            node.start_mark.column + 1,
        ) from None


def load_yaml(raw: bytes) -> LoadedYaml:
    """Parse one YAML document into plain data and the position of every path in it.

    Raises YamlProblem, with a place, for anything an entry file must not contain.
    """
    if len(raw) > MAX_FILE_BYTES:
        raise YamlProblem(
            "file-too-large",
            f"file is larger than the {MAX_FILE_BYTES:,}-byte limit for an entry",
            1,
            1,
        )
    text = _decode(raw)
    try:
        loader = _StrictLoader(text)
    except yaml.YAMLError as exc:
        raise YamlProblem("yaml-syntax", str(exc).splitlines()[0], 1, 1) from None
    try:
        try:
            root = loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
            message = " ".join(part for part in (exc.context, exc.problem) if part)
            if "expected a single document" in message:
                raise YamlProblem(
                    "yaml-multiple-documents",
                    "file holds more than one YAML document; an entry is one document",
                    line,
                    col,
                ) from None
            lines = text.splitlines()
            if 0 < line <= len(lines) and lines[line - 1][col - 1 : col] == "\t":
                message = "a tab cannot indent YAML; indent with spaces"
            raise YamlProblem("yaml-syntax", message or "invalid YAML", line, col) from None
        except yaml.YAMLError as exc:
            raise YamlProblem("yaml-syntax", str(exc).splitlines()[0], 1, 1) from None
        if root is None:
            raise YamlProblem("yaml-not-mapping", "file is empty; an entry is a mapping", 1, 1)
        if not isinstance(root, MappingNode):
            raise YamlProblem(
                "yaml-not-mapping",
                "the document is not a mapping of field names to values",
                root.start_mark.line + 1,
                root.start_mark.column + 1,
            )
        positions: dict[Path, Position] = {(): Position(1, 1, 1, 1)}
        try:
            data = _build(root, (), loader, positions)
        except yaml.constructor.ConstructorError as exc:
            mark = exc.problem_mark
            line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
            raise YamlProblem("yaml-syntax", exc.problem or "invalid value", line, col) from None
        return LoadedYaml(data, positions, text.splitlines())
    finally:
        loader.dispose()


def yaml_problem(path: str, exc: YamlProblem) -> Problem:
    return Problem(path, exc.line, exc.col, Level.ERROR, exc.check, exc.message)
