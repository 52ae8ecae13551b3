"""Evaluators of the LogQL and Lucene queries the backends write, for engines that do not
install here (Loki, Elasticsearch): they decide whether a query matches one log line.

They are evaluators, not the engines. Each reads the query's own text with the grammar of its
language and refuses anything outside the part it implements (`Unsupported`), so a backend
that starts writing something new makes the tests fail instead of passing by accident:

- LogQL: a stream selector followed by line filters `|=`, `!=`, `|~`, `!~`, each with one or
  more strings joined by `or`, in Go's quoting (double quotes with escapes, or backquotes).
  `|~` runs in RE2 itself (google-re2), as Loki does.
- Lucene: `field:/regexp/` terms joined by `AND`, `OR`, `NOT` and parentheses, on one field.
  The regexp is translated from Lucene's RegExp syntax (whole-value match, `\\` quotes the next
  character, `"..."` is a literal string, `.` any character, classes, `* + ? {n,m} | ( )`)
  to Python's; the operators `# @ & ~ <n-m>` that Elasticsearch's default flags also enable
  are refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

Predicate = Callable[[str], bool]


class Unsupported(ValueError):
    """The query uses a construct this evaluator does not implement."""


_GO_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _go_string(text: str, i: int) -> tuple[str, int]:
    """A Go string literal starting at text[i]: its value and the index after it."""
    quote = text[i]
    if quote == "`":
        end = text.index("`", i + 1)
        return text[i + 1 : end], end + 1
    if quote != '"':
        raise Unsupported(f"expected a string at {i}: {text[i : i + 20]!r}")
    out: list[str] = []
    j = i + 1
    while True:
        ch = text[j]
        if ch == '"':
            return "".join(out), j + 1
        if ch != "\\":
            out.append(ch)
            j += 1
            continue
        nxt = text[j + 1]
        if nxt in _GO_ESCAPES:
            out.append(_GO_ESCAPES[nxt])
            j += 2
        elif nxt in "\\\"'":
            out.append(nxt)
            j += 2
        elif nxt in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[nxt]
            out.append(chr(int(text[j + 2 : j + 2 + width], 16)))
            j += 2 + width
        elif nxt in "01234567":
            out.append(chr(int(text[j + 1 : j + 4], 8)))
            j += 4
        else:
            raise Unsupported(f"invalid Go escape \\{nxt}")


def logql(query: str) -> Predicate:
    """A line predicate from a LogQL log query: selector, then line filters only."""
    import re2

    text = query.strip()
    if not text.startswith("{"):
        raise Unsupported("a log query starts with a stream selector")
    depth, i = 0, 0
    while True:
        ch = text[i]
        if ch in '"`':
            _, i = _go_string(text, i)
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        i += 1
        if depth == 0:
            break
    filters: list[Predicate] = []
    while True:
        while i < len(text) and text[i] == " ":
            i += 1
        if i == len(text):
            break
        op = text[i : i + 2]
        if op not in ("|=", "!=", "|~", "!~"):
            raise Unsupported(f"only line filters are evaluated, found {text[i : i + 20]!r}")
        i += 2
        values: list[str] = []
        while True:
            while text[i] == " ":
                i += 1
            value, i = _go_string(text, i)
            values.append(value)
            rest = text[i:]
            if rest.startswith(" or "):
                i += 4
                continue
            break
        filters.append(_line_filter(op, values, re2))
    return lambda line: all(f(line) for f in filters)


def _line_filter(op: str, values: list[str], re2: object) -> Predicate:
    if op[1] == "~":
        compiled = [re2.compile(v) for v in values]  # type: ignore[attr-defined]
        hit: Predicate = lambda line: any(c.search(line) for c in compiled)  # noqa: E731
    else:
        hit = lambda line: any(v in line for v in values)  # noqa: E731
    return hit if op[0] == "|" else (lambda line: not hit(line))


# Lucene ---------------------------------------------------------------------------------------


def lucene_regexp(source: str) -> str:
    """A Lucene RegExp (whole-value) as a Python regex for re.fullmatch with DOTALL."""
    out: list[str] = []
    i = 0
    n = len(source)
    while i < n:
        ch = source[i]
        if ch == "\\":
            out.append(re.escape(source[i + 1]))
            i += 2
        elif ch == '"':
            end = source.index('"', i + 1)
            out.append(re.escape(source[i + 1 : end]))
            i = end + 1
        elif ch == "[":
            i = _lucene_class(source, i, out)
        elif ch in ".*+?|()":
            out.append(ch)
            i += 1
        elif ch == "{":
            end = source.index("}", i)
            if not re.fullmatch(r"\d+(,\d*)?", source[i + 1 : end]):
                raise Unsupported(f"repetition {source[i : end + 1]!r}")
            out.append(source[i : end + 1])
            i = end + 1
        elif ch in "#@&~<":
            raise Unsupported(f"Lucene operator {ch!r} at {i}")
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


def _lucene_class(source: str, i: int, out: list[str]) -> int:
    i += 1
    negate = source[i] == "^"
    if negate:
        i += 1
    items: list[str] = []
    first = True
    while source[i] != "]" or first:
        first = False
        lo, i = _class_char(source, i)
        if source[i] == "-" and source[i + 1] != "]":
            hi, i = _class_char(source, i + 1)
            if ord(hi) < ord(lo):
                raise Unsupported(f"empty range {lo}-{hi}")
            items.append(f"{re.escape(lo)}-{re.escape(hi)}")
        else:
            items.append(re.escape(lo))
    out.append("[" + ("^" if negate else "") + "".join(items) + "]")
    return i + 1


def _class_char(source: str, i: int) -> tuple[str, int]:
    if source[i] == "\\":
        return source[i + 1], i + 2
    return source[i], i + 1


@dataclass(frozen=True)
class _Term:
    field: str
    regex: re.Pattern[str]


def lucene(query: str, field: str = "message") -> Predicate:
    """A line predicate from a Lucene query of regexp terms on `field`."""
    tokens: list[str | _Term] = []
    i = 0
    text = query.strip()
    while i < len(text):
        if text[i] == " ":
            i += 1
        elif text[i] in "()":
            tokens.append(text[i])
            i += 1
        elif text.startswith(("AND ", "OR ", "NOT "), i):
            word = text[i : text.index(" ", i)]
            tokens.append(word)
            i += len(word)
        else:
            m = re.match(r"([\w.@-]+):/", text[i:])
            if m is None:
                raise Unsupported(f"expected field:/regexp/ at {i}: {text[i : i + 30]!r}")
            j = i + m.end()
            body: list[str] = []
            while text[j] != "/":
                if text[j] == "\\" and text[j + 1] == "/":
                    body.append("/")
                    j += 2
                elif text[j] == "\\":
                    body.append(text[j : j + 2])
                    j += 2
                else:
                    body.append(text[j])
                    j += 1
            if m.group(1) != field:
                raise Unsupported(f"query is on field {m.group(1)!r}, not {field!r}")
            compiled = re.compile(lucene_regexp("".join(body)), re.DOTALL)
            tokens.append(_Term(m.group(1), compiled))
            i = j + 1
    position = 0

    def expression() -> Predicate:
        nonlocal position
        left = conjunction()
        while position < len(tokens) and tokens[position] == "OR":
            position += 1
            right = conjunction()
            left = (lambda a, b: lambda line: a(line) or b(line))(left, right)
        return left

    def conjunction() -> Predicate:
        nonlocal position
        left = unary()
        while position < len(tokens) and tokens[position] == "AND":
            position += 1
            right = unary()
            left = (lambda a, b: lambda line: a(line) and b(line))(left, right)
        return left

    def unary() -> Predicate:
        nonlocal position
        token = tokens[position]
        position += 1
        if token == "NOT":
            inner = unary()
            return lambda line: not inner(line)
        if token == "(":
            inner = expression()
            if tokens[position] != ")":
                raise Unsupported("unbalanced parentheses")
            position += 1
            return inner
        if isinstance(token, _Term):
            pattern = token.regex
            return lambda line: pattern.fullmatch(line) is not None
        raise Unsupported(f"unexpected {token!r}")

    predicate = expression()
    if position != len(tokens):
        raise Unsupported("trailing tokens")
    return predicate
