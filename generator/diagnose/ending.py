"""The line a log ends with, reported when nothing else states an error and it reads as one.

People paste the end of a failing run: when no signature, no traceback, no signal and no
launcher says what broke, the excerpt's last line usually does (`Error: must forward with
targets before backward`, `dist_train.sh: line 10: python: 未找到命令`). It is reported as an
`unrecognized` line of kind `final-line` only when it reads as an error in words and as none of
what healthy logs end with: a warning or info line, an error that was handled or is retried, a
metric named error, a status field saying none occurred, a question. The scan does not read it:
each log's end is kept as it streams (context.Tail) and looked at once the triage is done.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from generator.diagnose.evidence import body_of
from generator.diagnose.lineinfo import HEAD_CHARS, rank_from_path, read_line_body
from generator.diagnose.paste import unwrap
from generator.diagnose.triage import TEXT_CHARS, Diagnosis, Hit, Unrecognized

# A line that says something went wrong, in words: what a log's last line must hold to be
# reported when nothing else is. ASCII word boundaries, as JavaScript's (evidence.js endsInError).
_ERROR_WORDS = re.compile(
    r"\b(?:error|errors|failed|failure|fatal|cannot|can't|unable to|not found|no such|invalid"
    r"|denied|refused|aborted|killed|assertion|exception|crash|crashed|segmentation fault)\b"
    r"|(?:Error|Exception)\b|\u672a\u627e\u5230|\u9519\u8bef|\u5931\u8d25",
    re.ASCII | re.IGNORECASE,
)
# ... unless it is a warning or an info line, an error that was handled or will be retried, a
# metric named error (`Net error = 0.14`), a status field that says none happened (nvidia-smi's
# `Remapping Failure Occurred : No`), or a question someone asked about it.
_NOT_AN_ERROR = re.compile(
    r"warn|deprecat|\bINFO\b|^[IWD]\d{4} |\bcaught\b|\bignor|\bretry|\bretrying\b"
    r"|\bno errors?\b|\berror\s*[=:]\s*-?\d|:\s*(?:no|none|0|n/a|false|ok|pass|passed)\s*$"
    r"|\?\s*$",
    re.ASCII | re.IGNORECASE,
)


def ends_in_error(body: str) -> bool:
    """Whether a log's last line reads as the error it stopped on."""
    return _ERROR_WORDS.search(body) is not None and _NOT_AN_ERROR.search(body) is None


def with_ending(
    diagnosis: Diagnosis, endings: Sequence[tuple[int, str, tuple[int, int, str] | None]]
) -> Diagnosis:
    """When nothing states an error, the line a log ends with, if it reads as one: an excerpt
    someone pasted ends where the run stopped. `endings` are each log's (index, name, and
    Tail.last_line()), in input order."""
    if diagnosis.root_causes or diagnosis.unrecognized:
        return diagnosis
    for file_index, name, last in endings:
        if last is None:
            continue
        number, offset, text = last
        info, rest = read_line_body(text[:HEAD_CHARS])
        if not ends_in_error(body_of(rest) + text[HEAD_CHARS:]):
            continue
        rank = info.prefix_rank
        if rank is None:
            rank = rank_from_path(name)
        if rank is None:
            rank = info.text_rank
        shown = unwrap(text).text
        hit = Hit(name, file_index, number, offset, rank, info.time, info.host,
                  shown[:TEXT_CHARS], cut=max(len(shown) - TEXT_CHARS, 0))  # fmt: skip
        return replace(
            diagnosis,
            unrecognized=(Unrecognized("final-line", hit),),
            first_failed_rank=rank if rank is not None else diagnosis.first_failed_rank,
            first_failure=hit if rank is not None else diagnosis.first_failure,
        )
    return diagnosis
