"""The failure lab's committed logs (corpus/lab/<torch>/) diagnose as lab/scenarios.toml says.

These read only the committed logs: CI installs no PyTorch. `make lab` (docs/lab.md) makes them.
Every failing scenario's log names its expected entry as the top root cause and the expected
first failed rank; a scenario with a `gap` (a missing entry, or a signature that misses the real
line) is an expected failure until the catalog catches up. Every healthy log is benign corpus:
no defining or context signature may fire on it, checked as `trainwreck validate`'s
benign-match check does.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "lab"))

import verdict as lab  # noqa: E402

from generator.checks.signatures import BenignCorpus  # noqa: E402
from generator.diagnose.engine import LogBytes  # noqa: E402
from generator.loading.discovery import find_entry_files, read_sources  # noqa: E402
from generator.validation import load_doc  # noqa: E402

SCENARIOS = {s["name"]: s for s in lab.scenarios()}
RELEASES = sorted(p.name for p in lab.CORPUS.iterdir() if p.is_dir()) if lab.CORPUS.is_dir() else []
LOGS = [(r, n) for r in RELEASES for n in SCENARIOS if (lab.CORPUS / r / f"{n}.log").exists()]


def test_the_lab_has_enough_scenarios_and_logs() -> None:
    failing = [s for s in SCENARIOS.values() if s["expect"] != "healthy"]
    healthy = [s for s in SCENARIOS.values() if s["expect"] == "healthy"]
    assert len(failing) >= 30 and len(healthy) >= 5
    assert "2.13.0" in RELEASES
    for release in RELEASES:
        missing = [n for n in SCENARIOS if not (lab.CORPUS / release / f"{n}.log").exists()]
        assert not missing, f"{release} has no log for {missing}"


def test_every_expected_id_is_a_catalog_entry() -> None:
    ids = lab.entry_ids()
    for s in SCENARIOS.values():
        for want in [s, *s.get("expect_by", {}).values()]:
            if want.get("expect") not in (None, "healthy", "unrecognized"):
                assert want["expect"] in ids, f"{s['name']}: no entry {want['expect']}"


def test_names_do_not_name_a_rank() -> None:
    from generator.diagnose.lineinfo import rank_from_path

    for name in SCENARIOS:
        assert rank_from_path(f"corpus/lab/2.13.0/{name}.log") is None, name


@pytest.mark.parametrize(("release", "name"), LOGS, ids=[f"{r}/{n}" for r, n in LOGS])
def test_a_lab_log_diagnoses_to_its_expected_entry_and_rank(release: str, name: str) -> None:
    scenario = SCENARIOS[name]
    log = lab.CORPUS / release / f"{name}.log"
    build = lab.build_of(log)
    wrong = lab.check(scenario, lab.diagnose(log), build)
    gap = lab.expectation(scenario, build).get("gap")
    if gap and wrong:
        pytest.xfail(f"finding: {gap}; {'; '.join(wrong)}")
    assert not wrong, "; ".join(wrong)


def test_healthy_lab_logs_pass_the_benign_corpus_check() -> None:
    healthy = sorted(lab.CORPUS.glob("*/healthy-*.log"))
    assert len(healthy) >= 5
    docs = []
    sources, _ = read_sources(find_entry_files(REPO / "entries"), REPO)
    for source in sources:
        doc, _ = load_doc(source)
        if doc is not None:
            docs.append(doc)
    benign = [LogBytes(p.relative_to(REPO).as_posix(), p.read_bytes()) for p in healthy]
    problems = list(BenignCorpus().check_index(docs, benign))
    assert [p.message for p in problems] == []


def test_excerpt_problem_takes_whole_lines_in_order_and_nothing_else() -> None:
    log = "# header\nfirst line\nsecond line\nthird line\n"
    assert lab.excerpt_problem("first line\n\nthird line\n", log) is None
    assert lab.excerpt_problem("third line\nfirst line\n", log) == (
        "not a line of the log (after line 4): 'first line'"
    )
    assert lab.excerpt_problem("second line, edited\n", log) == (
        "not a line of the log (after line 0): 'second line, edited'"
    )
    assert lab.excerpt_problem("second\n", log) == "not a line of the log (after line 0): 'second'"


def test_lab_examples_are_verbatim_excerpts_of_committed_logs_and_name_their_scenario() -> None:
    sources, _ = read_sources(find_entry_files(REPO / "entries"), REPO)
    seen, wrong = 0, []
    for source in sources:
        doc, _ = load_doc(source)
        if doc is None:
            continue
        for number, example in enumerate(doc.entry.examples):
            if example.lab is None:
                continue
            seen += 1
            where = f"{doc.entry.id} examples[{number}]"
            log = REPO / example.lab
            if not log.is_file():
                wrong.append(f"{where}: no such lab log {example.lab}")
                continue
            if (problem := lab.excerpt_problem(example.log, log.read_text())) is not None:
                wrong.append(f"{where}: {problem}")
            scenario = SCENARIOS.get(log.stem)
            if scenario is None:
                wrong.append(f"{where}: no scenario {log.stem} in lab/scenarios.toml")
                continue
            want = lab.expectation(scenario, lab.build_of(log))
            if doc.entry.id not in (want["expect"], want.get("harmless")):
                wrong.append(f"{where}: scenario {log.stem} expects {want['expect']}")
    assert seen >= 1
    assert wrong == []
