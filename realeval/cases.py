"""The real-failure benchmark's cases: `corpus/real/cases.yaml`, read and checked.

The file is read with the entry loader (`load_yaml`), so a wrong case is one line naming its
file, line and column, as a wrong entry is; every problem in the file is reported, not the first.
A case's labels are checked against its own log: the error line must be a substring of one of its
lines, so a label can never point at text the log does not hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.loading.yaml_source import LoadedYaml, YamlProblem, load_yaml, yaml_problem
from generator.problems import Level, Problem

REPO = Path(__file__).resolve().parents[1]
REAL = REPO / "corpus" / "real"
CASES_FILE = REAL / "cases.yaml"

GROUPS = ("unbiased", "multi-rank", "hard", "negative")
FRAMEWORKS = (
    "pytorch", "deepspeed", "hf-trainer", "trl", "peft", "accelerate", "lightning", "jax",
    "torch-xla", "megatron", "nemo", "colossalai", "llama-factory", "axolotl", "unsloth", "verl",
    "openrlhf", "ms-swift", "detectron2", "openmmlab", "ultralytics", "diffusers", "keras-tf",
    "paddle", "mindspore", "nccl-tests", "slurm", "other",
)  # fmt: skip
HEALTHY = "healthy"
FIELDS = (
    "id", "file", "source", "repo", "group", "framework", "true_failure", "error_line",
    "first_rank", "expected", "truncated", "note",
)  # fmt: skip
MAX_ERROR_LINE = 200


@dataclass(frozen=True)
class Case:
    id: str
    file: str  # relative to corpus/real/
    source: str
    repo: str
    group: str
    framework: str
    true_failure: str
    error_line: str | None
    first_rank: int | None
    expected: tuple[str, ...]
    truncated: bool
    note: str

    @property
    def failing(self) -> bool:
        return self.group != "negative"


class CaseProblems(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(p.text() for p in problems))
        self.problems = problems


def _is_str(v: Any) -> bool:
    return isinstance(v, str) and v != ""


def _problems_of(item: dict[str, Any], log: str | None) -> list[tuple[str, str]]:
    """(field, message) for each label that is wrong; `log` is the case's file, None if unread.
    A missing field is one problem; the fields that are there are still checked."""
    found = [("", f"missing field {name!r}") for name in FIELDS if name not in item]
    found += [(k, f"unknown field {k!r}") for k in item if k not in FIELDS]
    v = {name: item.get(name) for name in FIELDS}
    for name in ("id", "file", "source", "repo", "true_failure", "note"):
        if name in item and not _is_str(v[name]):
            found.append((name, f"{name} must be text"))
    if "group" in item and v["group"] not in GROUPS:
        found.append(("group", f"group must be one of {', '.join(GROUPS)}"))
    if "framework" in item and v["framework"] not in FRAMEWORKS:
        found.append(("framework", "framework is not one of corpus/real/README.md's list"))
    expected = v["expected"] if "expected" in item else []
    if not (isinstance(expected, list) and all(_is_str(e) for e in expected)):
        found.append(("expected", "expected must be a list of entry ids"))
    if "truncated" in item and not isinstance(v["truncated"], bool):
        found.append(("truncated", "truncated must be true or false"))
    rank = v["first_rank"]
    if rank is not None and (type(rank) is not int or rank < 0):
        found.append(("first_rank", "first_rank must be a rank number or null"))
    if v["group"] == "multi-rank" and rank is None and "first_rank" in item:
        found.append(("first_rank", "a multi-rank case needs its first failed rank"))
    line = v["error_line"]
    if v["group"] == "negative":
        if line is not None or v["true_failure"] != HEALTHY or expected:
            found.append(
                ("group", "a negative has error_line null, true_failure healthy, expected []")
            )
    elif "error_line" in item:
        if not _is_str(line):
            found.append(("error_line", "a failing case needs its error line"))
        elif len(line) > MAX_ERROR_LINE:
            found.append(("error_line", f"error_line is over {MAX_ERROR_LINE} characters"))
        elif log is not None and not any(line in text for text in log.splitlines()):
            found.append(("error_line", "error_line is not a substring of any line of its log"))
    return found


def read_cases(path: Path = CASES_FILE) -> list[Case]:
    """Every case, in file order; raises CaseProblems listing every problem found."""
    name = path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)
    try:
        loaded: LoadedYaml = load_yaml(path.read_bytes())
    except YamlProblem as exc:
        raise CaseProblems([yaml_problem(name, exc)]) from None
    problems: list[Problem] = []

    def problem(where: tuple[str | int, ...], check: str, message: str) -> None:
        pos = loaded.positions.get(where) or loaded.positions[where[:2]]
        problems.append(Problem(name, pos.value_line, pos.value_col, Level.ERROR, check, message))

    items = loaded.data.get("cases")
    if not isinstance(items, list):
        problem((), "real-case", "the file is a mapping with one key, cases: a list of cases")
        raise CaseProblems(problems)
    cases: list[Case] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            problem(("cases", i), "real-case", "a case is a mapping of its fields")
            continue
        log_path = path.parent / str(item.get("file", ""))
        log = None
        if _is_str(item.get("file")) and log_path.is_file():
            log = log_path.read_bytes().decode("utf-8", "replace")
        elif "file" in item:
            problem(("cases", i, "file"), "real-case", "the log file does not exist")
        for field_name, message in _problems_of(item, log):
            problem(("cases", i, field_name) if field_name else ("cases", i), "real-case", message)
        if item.get("id") in seen:
            problem(("cases", i, "id"), "real-case", f"id {item['id']!r} is used twice")
        seen.add(str(item.get("id")))
        if not problems:
            cases.append(
                Case(**{**item, "expected": tuple(item["expected"] or ())})  # type: ignore[arg-type]
            )
    if problems:
        raise CaseProblems(sorted(problems))
    return cases


def read_log(case: Case, root: Path = REAL) -> bytes:
    return (root / case.file).read_bytes()
