"""The /diagnose/ page in Chromium, as a reader uses it.

Paste one entry's real example and get its card (title, severity, the matched line with its
number and the lines around it, the fix, the link to its page); pick three rank logs (one of
them gzip) with the file picker and get the rank that failed first, the collateral folded away
and a timeline by rank; drop files on the drop zone; see a plain message and a way to search
when nothing matches; and axe-core finds nothing serious on the page with results shown.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from generator.catalog import Catalog
from tests.browser.diagnose_support import REPO, open_diagnose, python_result, site_index

pytestmark = pytest.mark.browser

ENTRY = "xid-79-gpu-fallen-off-bus"
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"


def card(page, entry_id: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return page.eval_on_selector(
        f'.tw-dx-card[data-entry-id="{entry_id}"]',
        """c => ({
          title: c.querySelector('[data-dx-link]').textContent,
          href: c.querySelector('[data-dx-link]').href,
          more: c.querySelector('[data-dx-more]').href,
          severity: c.querySelector('[data-dx-severity]').textContent,
          where: c.querySelector('[data-dx-where]').textContent,
          hit: c.querySelector('mark.tw-dx-hit').textContent,
          lines: [...c.querySelectorAll('[data-dx-lines] > *')].map(l => l.textContent),
          fix: c.querySelector('[data-dx-fix]').textContent,
        })""",
    )


def test_pasting_an_entrys_real_example_shows_its_card_and_link(
    site_dir: tuple[Path, str],
    page,  # type: ignore[no-untyped-def]
    catalog: Catalog,
) -> None:
    site, url = site_dir
    entry = catalog.by_id[ENTRY]
    log = entry.examples[0].log
    expected = python_result(site_index(site), [("pasted log", log.encode())])["json"]
    first = expected["findings"][0]
    assert first["id"] == ENTRY

    open_diagnose(page, url)
    page.fill("#tw-dx-log", log)
    page.click("[data-dx-run]")
    page.wait_for_selector(f'.tw-dx-card[data-entry-id="{ENTRY}"]')
    shown = card(page, ENTRY)
    assert shown["title"] == entry.title
    assert shown["href"] == shown["more"] == f"{url}/failures/{ENTRY}/"
    assert shown["severity"] == f"Severity: {entry.severity.value}"
    assert shown["fix"] == entry.quick_fix
    number = first["first"]["line"]
    assert shown["hit"] == f"{number}  {first['first']['text']}"
    assert f"line {number}" in str(shown["where"])
    # A few lines of context around the matched one, numbered.
    lines = shown["lines"]
    assert isinstance(lines, list) and len(lines) >= 2
    numbers = [int(str(line).split()[0]) for line in lines]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    assert number in numbers
    # The root causes on the page are the Python engine's, in its order.
    ids = page.eval_on_selector_all(".tw-dx-card", "cs => cs.map(c => c.dataset.entryId)")
    assert ids == [f["id"] for f in expected["findings"] if f["role"] == "root-cause"]
    # The link leads to the entry's page.
    page.click(f'.tw-dx-card[data-entry-id="{ENTRY}"] [data-dx-link]')
    page.wait_for_url(f"{url}/failures/{ENTRY}/")
    assert page.inner_text("h1") == entry.title
    assert page.errors == []


def rank_logs(catalog: Catalog) -> dict[str, str]:
    """Three ranks: rank 2 runs out of memory first; ranks 0 and 1 then time out in NCCL."""
    oom = next(
        line
        for x in catalog.by_id["cuda-out-of-memory"].examples
        for line in x.log.splitlines()
        if "CUDA out of memory. Tried to allocate" in line
    )
    oom = oom.split("]:", 1)[1].strip() if oom.startswith("[rank") else oom.strip()
    watchdog = next(
        line
        for x in catalog.by_id["nccl-watchdog-timeout"].examples
        for line in x.log.splitlines()
        if "Watchdog caught collective operation timeout" in line
    )
    watchdog = watchdog.split("]:", 1)[1] if watchdog.startswith("[rank") else watchdog
    step = "INFO step 1200 | loss 2.113 | lr 3.0e-4"
    return {
        "rank0.log": f"2024-06-26 06:00:00,000 {step}\n2024-06-26 06:10:05,120 {watchdog}\n",
        "rank1.log.gz": f"2024-06-26 06:00:00,000 {step}\n2024-06-26 06:10:04,870 {watchdog}\n",
        "rank2.log": (
            f"2024-06-26 06:00:00,000 {step}\n2024-06-26 06:00:05,310 ERROR step failed\n"
            f'Traceback (most recent call last):\n  File "train.py", line 88, in <module>\n{oom}\n'
        ),
    }


def test_three_rank_files_from_the_picker_name_the_rank_that_failed_first(
    site_dir: tuple[Path, str],
    page,  # type: ignore[no-untyped-def]
    catalog: Catalog,
    tmp_path: Path,
) -> None:
    site, url = site_dir
    paths = []
    raw = []
    for name, text in rank_logs(catalog).items():
        path = tmp_path / name
        data = text.encode()
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
        paths.append(path)
        raw.append((name, data))
    expected = python_result(site_index(site), raw)["json"]
    assert expected["first_failed_rank"] == 2

    open_diagnose(page, url)
    page.set_input_files("#tw-dx-files", [str(p) for p in paths])
    listed = page.eval_on_selector_all(
        "[data-dx-files] li", "ls => ls.map(l => l.firstChild.textContent)"
    )
    assert [item.split(" (")[0] for item in listed] == ["rank0.log", "rank1.log.gz", "rank2.log"]
    page.click("[data-dx-run]")
    page.wait_for_selector("[data-dx-results]:not([hidden]) [data-dx-first-rank]")
    assert page.get_attribute("[data-dx-first-rank]", "data-dx-first-rank") == "2"
    summary = page.inner_text("[data-dx-summary]")
    assert summary.startswith(
        "First failed rank: 2, at 2024-06-26T06:00:05.310 (rank2.log, line 5)"
    )
    assert page.eval_on_selector_all(".tw-dx-card", "cs => cs.map(c => c.dataset.entryId)") == [
        "cuda-out-of-memory"
    ]
    # The watchdog timeouts are collateral, folded away until opened.
    details = page.locator("[data-dx-collateral]")
    assert details.is_visible() and details.get_attribute("open") is None
    assert not page.locator(
        '[data-dx-collateral-list] [data-entry-id="nccl-watchdog-timeout"]'
    ).is_visible()
    page.click("[data-dx-collateral] summary")
    item = page.locator('[data-dx-collateral-list] [data-entry-id="nccl-watchdog-timeout"]')
    assert item.is_visible()
    assert "ranks 0-1 (1 line each)" in item.inner_text()
    assert [(f["id"], f["role"]) for f in expected["findings"]] == [
        ("cuda-out-of-memory", "root-cause"),
        ("nccl-watchdog-timeout", "collateral"),
    ]
    # The timeline: one row per rank, the first failed one marked.
    rows = page.eval_on_selector_all(
        "[data-dx-ranks] > li",
        """ls => ls.map(l => [
          l.querySelector('.tw-dx-rank-label').textContent,
          l.classList.contains('tw-dx-rank--first'),
        ])""",
    )
    assert rows == [["rank 0", False], ["rank 1", False], ["rank 2 failed first", True]]
    assert page.errors == []


def test_files_dropped_on_the_drop_zone_are_diagnosed(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
    catalog: Catalog,
) -> None:
    open_diagnose(page, site_url)
    logs = rank_logs(catalog)
    page.evaluate(
        """(logs) => {
          const data = new DataTransfer();
          for (const [name, text] of logs) {
            data.items.add(new File([text], name, {type: "text/plain"}));
          }
          const zone = document.querySelector("[data-dx-drop]");
          for (const type of ["dragover", "drop"]) {
            zone.dispatchEvent(
              new DragEvent(type, {dataTransfer: data, bubbles: true, cancelable: true})
            );
          }
        }""",
        [[name, text] for name, text in logs.items() if not name.endswith(".gz")],
    )
    assert page.locator("[data-dx-files] li").count() == 2
    page.click("[data-dx-run]")
    page.wait_for_selector("[data-dx-results]:not([hidden]) [data-dx-first-rank]")
    assert page.get_attribute("[data-dx-first-rank]", "data-dx-first-rank") == "2"
    assert page.errors == []


def test_nothing_matched_says_so_and_offers_full_text_search(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
) -> None:
    open_diagnose(page, site_url)
    log = (REPO / "corpus" / "benign" / "torchrun-startup.log").read_text()
    log += "RuntimeError: something no signature knows about\n"
    page.fill("#tw-dx-log", log)
    page.click("[data-dx-run]")
    page.wait_for_selector("[data-dx-nomatch]:not([hidden])")
    text = page.inner_text("[data-dx-nomatch]")
    assert text.startswith("No known failure matched.")
    assert "CONTRIBUTING.md" in text
    assert page.locator(".tw-dx-card").count() == 0
    assert not page.locator("[data-dx-timeline]").is_visible()
    page.click("[data-dx-search]")
    search = page.locator(".md-search__input")
    assert search.is_visible()
    assert search.input_value() == "RuntimeError: something no signature knows about"
    page.wait_for_function(
        "() => !/Initializing/.test(document.querySelector('.md-search-result__meta').textContent)"
    )
    assert page.errors == []


def test_an_unknown_error_shows_its_line_and_rank_as_the_command_line_does(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
) -> None:
    open_diagnose(page, site_url)
    log = (REPO / "tests" / "fixtures" / "launchers" / "unknown-exception-rank3.log").read_text()
    page.fill("#tw-dx-log", log)
    page.click("[data-dx-run]")
    page.wait_for_selector("[data-dx-unrecognized]:not([hidden])")
    assert page.get_attribute("[data-dx-first-rank]", "data-dx-first-rank") == "3"
    assert page.inner_text("[data-dx-unrecognized-line]") == "[rank3]: KeyError: 'input_ids'"
    assert page.inner_text("[data-dx-unrecognized-kind]") == "a Python exception"
    assert "trainwreck new" in page.inner_text("[data-dx-unrecognized]")
    assert page.errors == []


def test_the_launchers_first_failed_rank_and_its_signal_are_shown(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
) -> None:
    open_diagnose(page, site_url)
    log = (REPO / "tests" / "fixtures" / "launchers" / "torchrun-2-gloo-sigsegv.log").read_text()
    page.fill("#tw-dx-log", log)
    page.click("[data-dx-run]")
    page.wait_for_selector("[data-dx-results]:not([hidden]) [data-dx-first-rank]")
    assert page.get_attribute("[data-dx-first-rank]", "data-dx-first-rank") == "2"
    said = page.inner_text("[data-dx-launcher]")
    assert said.startswith("torchrun reports rank 2 failed: exit code -11: SIGSEGV")
    assert page.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_serious_with_results_shown(
    browser,  # type: ignore[no-untyped-def]
    site_url: str,
    catalog: Catalog,
    artifacts: Path,
    scheme: str,
) -> None:
    if not AXE.exists():
        pytest.fail(f"{AXE.relative_to(REPO)} is missing: run `make axe` (npm install axe-core)")
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    open_diagnose(page, site_url)
    page.fill("#tw-dx-log", "\n".join(rank_logs(catalog).values()))
    page.click("[data-dx-run]")
    page.wait_for_selector("[data-dx-results]:not([hidden])")
    page.click("[data-dx-collateral] summary")
    page.add_script_tag(content=AXE.read_text())
    violations = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
          .map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))}))"""
    )
    context.close()
    (artifacts / "axe").mkdir(exist_ok=True)
    (artifacts / "axe" / f"diagnose-results-{scheme}.json").write_text(
        json.dumps(violations, indent=2) + "\n"
    )
    assert [v for v in violations if v["impact"] in {"serious", "critical"}] == []


OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 5 has a "
    "total capacity of 79.15 GiB of which 12.33 GiB is free."
)


def test_a_log_of_many_ranks_sends_the_page_only_the_timeline_it_shows(
    site_url: str,
    page,  # type: ignore[no-untyped-def]
) -> None:
    """2,000 ranks each fail once: the page shows the first 128 ranks' rows and counts the
    rest, and the worker sends it those rows, not every rank's line (issue 15, defect 6)."""
    open_diagnose(page, site_url)
    log = "".join(
        f"[rank{r}]:[2024-06-26 06:{r // 60 % 60:02d}:{r % 60:02d},000] {OOM}\n"
        for r in reversed(range(2000))
    )
    result = page.evaluate(
        """async ({root, log}) => {
          const w = new Worker(root + '/javascripts/engine/worker.js');
          const ask = (m) => new Promise((ok) => {
            w.onmessage = (e) => { if (e.data.type !== 'progress') ok(e.data); };
            w.postMessage(m);
          });
          await ask({type: 'init', indexUrl: root + '/signatures.json'});
          const r = await ask({type: 'diagnose', id: 1, logs: [{name: 'train.log', text: log}]});
          w.terminate();
          return r.result;
        }""",
        {"root": site_url, "log": log},
    )
    timeline = result["timeline"]
    assert [row["key"] for row in timeline["ranks"]] == list(range(128))
    assert [len(row["events"]) for row in timeline["ranks"]] == [1] * 128
    assert timeline["ranks"][5]["events"][0]["hit"]["line"] == 2000 - 5
    assert (timeline["clock"], timeline["more"]) == ("absolute", 2000 - 128)
    assert timeline["high"] - timeline["low"] == 1999  # rank 1999 at 06:33:19, rank 0 at 06:00:00
    assert [f["id"] for f in result["findings"] if "streams" not in f] == ["cuda-out-of-memory"]
    page.evaluate("(log) => { document.querySelector('#tw-dx-log').value = log; }", log)
    page.click("[data-dx-run]")
    page.wait_for_selector("[data-dx-results]:not([hidden]) [data-dx-first-rank]")
    rows = page.eval_on_selector_all("[data-dx-ranks] > li", "ls => ls.map(l => l.textContent)")
    assert len(rows) == 129 and rows[-1] == "1872 more ranks not shown."
    assert rows[0].startswith("rank 0") and rows[127].startswith("rank 127")
    assert page.locator("[data-dx-ranks] .tw-dx-dot").count() == 128
    assert page.errors == []


def test_a_run_that_printed_no_error_shows_what_its_numbers_show_as_a_chart_per_rank(
    site_dir: tuple[Path, str],
    page,  # type: ignore[no-untyped-def]
) -> None:
    # The lab's rank 1 gets a NaN at iteration 40; rank 0's loss follows a step later.
    site, url = site_dir
    log = (REPO / "corpus" / "lab" / "2.13.0" / "nan-at-step-one-rank.log").read_bytes()
    expected = python_result(site_index(site), [("pasted log", log)])["json"]
    [trend] = expected["trends"]
    open_diagnose(page, url)
    page.fill("#tw-dx-log", log.decode())
    page.click("[data-dx-run]")
    page.wait_for_selector("[data-dx-trends]:not([hidden]) .tw-dx-chart")
    shown = page.eval_on_selector(
        "[data-dx-trends]",
        """s => ({
          says: [...s.querySelectorAll('[data-dx-says]')].map(n => n.textContent),
          ranks: [...s.querySelectorAll('polyline')].map(p => p.getAttribute('data-rank')),
          marks: [...s.querySelectorAll('[data-dx-mark]')].map(m => m.getAttribute('data-dx-mark')),
          label: s.querySelector('svg').getAttribute('aria-label'),
          entry: s.querySelector('a').textContent,
        })""",
    )
    assert shown == {
        "says": [trend["says"]],
        "ranks": ["0", "1"],
        "marks": ["40"],
        "label": f"non-finite values: loss by 2 ranks, {trend['says']}",
        "entry": "Read the entry: "
        "Loss becomes NaN or Inf during training (found NaN in local forward loss calculation)",
    }
    assert trend["says"] == "the loss became nan at step 40 (it was 0.0113 before)"
    assert page.text_content("[data-dx-first-rank]") == "First failed rank: 1"
