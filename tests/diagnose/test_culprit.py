"""The culprit of an error line, from the lines before it (generator/diagnose/culprit.py).

Each log is a real one, as pasted in its thread (the cases of corpus/real/ named after each), so
every rule is held on text that software printed: the deepest frame under site-packages names
the package that raised it, the last frame outside it the line of the user's own code, and the
message the names it quotes.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from catalog import index

from generator.cli import main
from generator.diagnose.culprit import Culprit, Frame, culprit_of, versions_of
from generator.diagnose.engine import LogBytes, diagnose_logs
from generator.diagnose.report import to_json

# urchade/GLiNER#208 (case 012): a Trainer subclass written for another transformers release.
GLINER = """\
  File "Gliner_FineTuning.py", line 84, in <module>
    trainer.train()
  File "lib/python3.12/site-packages/transformers/trainer.py", line 2122, in train
    return inner_training_loop(
           ^^^^^^^^^^^^^^^^^^^^
  File "lib/python3.12/site-packages/transformers/trainer.py", line 2474, in _inner_training_loop
    tr_loss_step = self.training_step(model, inputs, num_items_in_batch)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
TypeError: Trainer.training_step() takes 3 positional arguments but 4 were given
"""


def culprit(log: str) -> Culprit | None:
    lines = log.rstrip("\n").split("\n")
    return culprit_of(lines[-1], lines[:-1])


def test_the_package_that_raised_it_and_the_users_line_that_called_it() -> None:
    assert culprit("Traceback (most recent call last):\n" + GLINER) == Culprit(
        "transformers",
        Frame("lib/python3.12/site-packages/transformers/trainer.py", 2474, "_inner_training_loop"),
        Frame("Gliner_FineTuning.py", 84, "<module>"),
        (("callable", "Trainer.training_step"),),
        (),
    )


def test_the_frames_are_the_last_traceback_of_the_errors_own_stream() -> None:
    """Frames of another rank, and of an earlier traceback of the same rank, are not its."""
    log = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/srv/other.py", line 3, in <module>\n'
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/srv/train.py", line 9, in step\n'
        '[rank0]:   File "/usr/lib/python3/dist-packages/deepspeed/engine.py", line 7, in f\n'
        "[rank1]: ValueError: first\n"
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/srv/train.py", line 12, in main\n'
        "[rank1]: KeyError: 'input_ids'\n"
    )
    assert culprit(log) == Culprit(
        None, None, Frame("/srv/train.py", 12, "main"), (("key", "input_ids"),), ()
    )


def test_no_traceback_the_package_is_the_one_the_message_names() -> None:
    # kohya-ss/sd-scripts#289 (case 342), a Windows path; facechain#445 (case 037).
    assert culprit(
        "Traceback (most recent call last):\n"
        '  File "F:\\kohya\\sd-scripts\\library\\config_util.py", line 19, in <module>\n'
        "    import toml\n"
        "ModuleNotFoundError: No module named 'toml'\n"
    ) == Culprit(
        "toml",
        None,
        Frame("F:\\kohya\\sd-scripts\\library\\config_util.py", 19, "<module>"),
        (("module", "toml"),),
        (),
    )
    so = "/usr/local/lib/python3.10/dist-packages/mmcv/_ext.cpython-310-x86_64-linux-gnu.so"
    assert culprit(f"- ImportError: {so}: undefined symbol: _ZNK3c106SymIntltEl\n") == Culprit(
        "mmcv", None, None, (("library", so), ("symbol", "_ZNK3c106SymIntltEl")), ()
    )


def test_python_s_own_library_is_neither_the_package_nor_the_users_code() -> None:
    assert culprit(
        "Traceback (most recent call last):\n"
        '  File "/home/u/run.py", line 5, in <module>\n'
        '  File "/opt/conda/lib/python3.11/subprocess.py", line 571, in run\n'
        "subprocess.CalledProcessError: Command 'x' returned non-zero exit status 1.\n"
    ) == Culprit(None, None, Frame("/home/u/run.py", 5, "<module>"), (), ())


def test_versions_the_log_prints() -> None:
    # hiyouga/LlamaFactory#10757 (case 129), and the banners of NCCL and DeepSpeed.
    assert versions_of(
        [
            "ImportError: trl>=0.8.6,<=0.9.6 is required for a normal functioning of this "
            "module, but found trl==0.24.0.",
            "node-01:4242:4242 [0] NCCL INFO NCCL version 2.20.5+cuda12.4",
            "[2024-06-26 06:00:00,000] [INFO] DeepSpeed version 0.14.2, git-hash=abc",
            "{'loss': 2.31, 'learning_rate': 1e-05, 'epoch': 1.0}",
        ]
    ) == (("trl", "0.24.0"), ("nccl", "2.20.5"), ("deepspeed", "0.14.2"))


def test_nothing_known_is_no_culprit() -> None:
    assert culprit("Segmentation fault (core dumped)\n") is None


def test_the_report_names_the_culprit_of_the_line_it_puts_first() -> None:
    log = "Traceback (most recent call last):\n" + GLINER
    got = to_json(diagnose_logs(index(), [LogBytes("job.log", log.encode())]).diagnosis)
    assert got["culprit"] == {
        "file": "job.log",
        "line": 10,
        "package": "transformers",
        "raised_in": {
            "path": "lib/python3.12/site-packages/transformers/trainer.py",
            "line": 2474,
            "function": "_inner_training_loop",
        },
        "called_from": {"path": "Gliner_FineTuning.py", "line": 84, "function": "<module>"},
        "names": [{"kind": "callable", "value": "Trainer.training_step"}],
        "versions": [],
    }


@pytest.mark.parametrize("where", ["file", "stdin"])
def test_the_command_reads_the_frames_again_from_a_file_and_keeps_them_from_stdin(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file is read again after the scan; standard input keeps its last MiB for it, so a
    culprit far back in a long piped log is still found when the error is near the end."""
    log = "step 1 loss 2.0\n" * 100_000 + "Traceback (most recent call last):\n" + GLINER
    path = tmp_path / "job.log"
    path.write_text(log)
    if where == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(log.encode())))
    args = [str(path)] if where == "file" else ["-"]
    assert main(["diagnose", "--index", str(INDEX), "--json", *args]) == 0
    culprit = json.loads(capsys.readouterr().out)["culprit"]
    assert (culprit["package"], culprit["called_from"], culprit["line"]) == (
        "transformers",
        {"path": "Gliner_FineTuning.py", "line": 84, "function": "<module>"},
        100_010,
    )


INDEX = Path(__file__).resolve().parents[2] / "generator" / "bundled" / "signatures.json"
