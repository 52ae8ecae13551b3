"""A private catalog's own categories: `categories.yaml` at the top of its entries folder.

    categories:
      - id: in-house-launcher
        title: Our launcher
        blurb: "The in-house job launcher: queueing, placement and its own restarts."

Pure: the caller reads the file. The file goes through the same loader as entries (no
anchors, tags or other YAML surprises), and every problem is placed at its line and column.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from generator.loading.yaml_source import YamlProblem, load_yaml, yaml_problem
from generator.model.categories import CategoryInfo
from generator.model.entry import ID_RE
from generator.problems import Level, Problem

CATEGORIES_FILE = "categories.yaml"
CHECK = "categories-file"
FIELDS = ("id", "title", "blurb")
MAX_TEXT = 200


def parse_categories(
    path: str, raw: bytes, taken: Sequence[CategoryInfo]
) -> tuple[list[CategoryInfo], list[Problem]]:
    """The categories `path` declares, and its problems; `taken` are those declared before it
    (the public ones first), which it may not declare again."""
    try:
        loaded = load_yaml(raw)
    except YamlProblem as exc:
        return [], [yaml_problem(path, exc)]

    def problem(at: tuple[str | int, ...], message: str, *, key: bool = False) -> Problem:
        line, col = loaded.position(at, at_key=key)
        return Problem(path, line, col, Level.ERROR, CHECK, message)

    data = loaded.data
    other = [k for k in data if k != "categories"]
    if other:
        message = f"unknown field {other[0]!r}; the file holds categories"
        return [], [problem((other[0],), message, key=True)]
    if not isinstance(data.get("categories"), list):
        return [], [
            problem(("categories",), "categories: a list, each item with id, title and blurb")
        ]
    known = {c.id for c in taken}
    found: list[CategoryInfo] = []
    problems: list[Problem] = []
    for i, item in enumerate(data["categories"]):
        if not isinstance(item, dict):
            problems.append(
                problem(
                    (
                        "categories",
                        i,
                    ),
                    "a category is a mapping with id, title and blurb",
                )
            )
            continue
        wrong = [k for k in item if k not in FIELDS]
        missing = [k for k in FIELDS if k not in item]
        if wrong:
            problems.append(
                problem(
                    ("categories", i, wrong[0]),
                    f"unknown field {wrong[0]!r}; use {FIELDS}",
                    key=True,
                )
            )
            continue
        if missing:
            problems.append(
                problem(
                    (
                        "categories",
                        i,
                    ),
                    f"missing {', '.join(missing)}",
                )
            )
            continue
        bad = next((k for k in FIELDS if not isinstance(item[k], str) or not item[k].strip()), None)
        if bad is not None:
            problems.append(problem(("categories", i, bad), f"{bad} must be text, not empty"))
            continue
        if any("\n" in item[k] or len(item[k]) > MAX_TEXT for k in FIELDS):
            problems.append(
                problem(
                    (
                        "categories",
                        i,
                    ),
                    f"each field is one line of at most {MAX_TEXT}",
                )
            )
            continue
        if not re.match(ID_RE, item["id"]) or len(item["id"]) > 40:
            problems.append(
                problem(("categories", i, "id"), f"{item['id']!r} is not a kebab-case id")
            )
            continue
        if item["id"] in known:
            problems.append(
                problem(("categories", i, "id"), f"category {item['id']!r} is already declared")
            )
            continue
        known.add(item["id"])
        found.append(CategoryInfo(item["id"], item["title"], item["blurb"]))
    return found, problems
