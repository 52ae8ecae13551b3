"""Privacy: once /diagnose/ has loaded, pasting a log, diagnosing it and copying the report make
no network request at all, and the copied report masks addresses, host names, e-mail addresses
and tokens.

Every request of the browser context is recorded, from the page and from its workers (the
recorder is shown to see the engine worker's own fetch of /signatures.json while the page
loads, so a request from the worker would not go unseen).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.catalog import Catalog
from tests.browser.diagnose_support import open_diagnose

pytestmark = pytest.mark.browser

SECRETS = {
    "host": ["kp-ddp-worker-0", "gpu-node-01.cluster.internal", "trainer-3.corp.example.com"],
    "ip": ["10.216.210.236", "192.168.7.21", "fd00:1148:9000:5000:4:200:3:ff22"],
    "email": ["alice.smith@example.com"],
    "token": [
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "ghp_0123456789abcdefABCDEF0123456789abcd",
    ],
}


def secret_log(catalog: Catalog) -> str:
    """A real example, after a line of the same failure that carries every kind of secret: the
    first matching line is the one the report quotes."""
    example = catalog.by_id["nccl-ib-completion-error"].examples[0].log
    return (
        "2024-06-26 06:00:00,000 INFO MASTER_ADDR=gpu-node-01.cluster.internal MASTER_PORT=29500\n"
        "kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : "
        "Got completion from peer "
        "192.168.7.21<1234> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
        "fd00:1148:9000:5000:4:200:3:ff22 job of alice.smith@example.com on "
        "trainer-3.corp.example.com, MASTER_ADDR=gpu-node-01.cluster.internal "
        "HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 "
        "GH=ghp_0123456789abcdefABCDEF0123456789abcd 10.216.210.236\n" + example
    )


def test_paste_diagnose_and_copy_make_no_request_and_the_report_is_masked(
    browser,  # type: ignore[no-untyped-def]
    site_url: str,
    catalog: Catalog,
    artifacts: Path,
) -> None:
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url)
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    open_diagnose(page, site_url)
    page.wait_for_load_state("networkidle")
    # The recorder sees what the engine's worker fetches.
    assert f"{site_url}/signatures.json" in requests
    assert f"{site_url}/javascripts/engine/worker.js" in requests
    requests.clear()

    log = secret_log(catalog)
    # Paste as a person does: the log on the clipboard, Ctrl+V into the text area.
    page.evaluate("text => navigator.clipboard.writeText(text)", log)
    page.focus("#tw-dx-log")
    page.keyboard.press("Control+V")
    assert page.input_value("#tw-dx-log") == log
    page.click("[data-dx-run]")
    page.wait_for_selector("[data-dx-results]:not([hidden]) .tw-dx-card")
    assert page.get_attribute(".tw-dx-card", "data-entry-id") == "nccl-ib-completion-error"
    page.click("[data-dx-copy]")
    page.wait_for_function(
        "() => document.querySelector('[data-dx-copied]').textContent.startsWith('Copied')"
    )
    report = page.evaluate("navigator.clipboard.readText()")
    page.wait_for_timeout(500)  # anything sent late would still be recorded
    assert requests == []
    assert errors == []
    (artifacts / "diagnose-report.md").write_text(report)

    assert report.startswith("## Trainwreck diagnosis\n")
    assert "Root cause: [NET/IB" in report or "nccl-ib-completion-error" in report
    for kind, values in SECRETS.items():
        for value in values:
            assert value not in report, f"{kind} {value} is in the copied report"
        assert f"<{kind}-1>" in report, f"no {kind} was masked"
    context.close()
