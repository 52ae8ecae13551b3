"""The browser Tally against the former one, which kept every stream's first line: the same
first line of every finding, the same first failure, the same timeline (triage_reference.js)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("triage_reference.js")


@pytest.mark.parametrize(("rows", "seed"), [(1, 3), (2, 11), (3, 1), (128, 7)])
def test_triage_and_timeline_pick_what_every_stream_kept_gave(rows: int, seed: int) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed; this test runs the browser engine in it")
    done = subprocess.run(
        [node, str(SCRIPT), str(rows), str(seed), "4000"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    answer = json.loads(done.stdout)
    assert (answer["runs"], answer["different"], answer["example"]) == (4000, 0, None)
