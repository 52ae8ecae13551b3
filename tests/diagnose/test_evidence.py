"""The lines that state an error, by kind, as people paste them (generator/diagnose/evidence.py).

Every line here is a real line from a public thread, most of them cases of the real-failure
benchmark (corpus/real/, the case number after each), with its wrappers and prose as pasted.
classify() reads a line's own text after its rank prefix, so each is given as the scanner gives
it; the scanner's own part (the whole line, not only its head) is tested at the end.
"""

from __future__ import annotations

import pytest
from catalog import index

from generator.diagnose.engine import LogBytes, diagnose_logs
from generator.diagnose.evidence import classify
from generator.diagnose.report import to_json

KINDS = [
    # An exception where people paste one: a list marker (037), backticks (039), a sentence
    # in the reporter's language and a full-width colon (032), bold (002), a sentence (122).
    (
        "- ImportError: /usr/local/lib/python3.10/dist-packages/mmcv/_ext.cpython-310-x86_64-"
        "linux-gnu.so: undefined symbol: _ZNK3c106SymIntltEl",
        "python-exception",
    ),
    (
        "`ImportError: /home/sajad/anaconda3/lib/python3.6/site-packages/fused_layer_norm_cuda."
        "cpython-36m-x86_64-linux-gnu.so: undefined symbol: _ZN6caffe26detail37_typeMetaData`",
        "python-exception",
    ),
    ("会报错\uff1aRuntimeError: mat1 and mat2 must have the same dtype", "python-exception"),
    (
        "**RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:276] "
        "ss1.ss_family == ss2.ss_family. 2 vs 10**",
        "python-exception",
    ),
    ("DPOTrainer.__init__() got an unexpected keyword argument 'gamma'", None),
    # TensorFlow 1.x names the exception before its message (022).
    (
        "ResourceExhaustedError (see above for traceback): OOM when allocating tensor with "
        "shape[32,64,128,128]",
        "python-exception",
    ),
    # A warning that quotes an exception is a warning (negative 646).
    (
        "/opt/conda/lib/python3.10/site-packages/torch/autograd/graph.py:744: UserWarning: Plan "
        "failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize "
        "Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED",
        None,
    ),
    # C++: the `what():` line states it; the line before only names the type (367).
    ("terminate called after throwing an instance of 'c10::Error'", None),
    (
        "  what():  owning_ptr == NullType::singleton() || owning_ptr->refcount_.load() > 0 "
        "INTERNAL ASSERT FAILED at /opt/conda/conda-bld/pytorch_1565272279342/work/c10/util/"
        "intrusive_ptr.h:348",
        "cpp-exception",
    ),
    # glog's and XLA's failed checks (295, 301).
    (
        "2021-03-04 05:57:44.427213: F tensorflow/core/framework/tensor_shape.cc:353] Check "
        "failed: dims == sizes.size() (5 vs. 4)",
        "fatal",
    ),
    (
        "RET_CHECK failure (external/org_tensorflow/tensorflow/compiler/xla/service/spmd/"
        "spmd_partitioner.cc:3779) hlo->has_sharding()",
        "fatal",
    ),
    # argparse (123, 178) and jsonargparse (241).
    (
        "train.py: error: unrecognized arguments: --lr_scale=1.0 --experiment=minima_lightglue",
        "usage",
    ),
    ("finetune.py: error: the following arguments are required: --output_dir", "usage"),
    (
        "main.py: error: 'Configuration check failed :: No action for destination key "
        '"trainer.process_position" to check its value.\'',
        "usage",
    ),
    # A program the shell cannot find: bash (030), dash inside a sentence (347), cmd (343).
    ("bash: srun: command not found", "shell"),
    ('When i sh train.sh, there are "train.sh: 1: srun: not found', "shell"),
    ("'launch' is not recognized as an internal or external command,", "shell"),
    # Slurm's own errors (028, 346).
    ("srun: error: Task launch for 36.0 failed on node cn131: Job credential expired", "scheduler"),
    (
        "slurmstepd: error: execve(): /tmp/slurmd/job2997814/slurm_script: No such file or "
        "directory",
        "scheduler",
    ),
    ("Segmentation fault (core dumped)", "signal"),
    # What a healthy run prints.
    ("WARNING: this is a warning about an Error: in the past", None),
    ("Error: something", None),
    ("  0%|          | 0/20000 [00:00<?, ?it/s]", None),
]


@pytest.mark.parametrize(("line", "kind"), KINDS, ids=[k[0][:40] for k in KINDS])
def test_each_line_is_its_kind_of_evidence(line: str, kind: str | None) -> None:
    assert classify(line) == kind


def test_a_flattened_traceback_states_its_error_past_the_head() -> None:
    """Case 168: a whole traceback pasted as one line of 1,039 characters, its exception at
    character 700; only the first 512 characters are the line's head."""
    line = (
        "> Traceback (most recent call last): "
        + 'File "/home/u/coati/train_sft.py", line 185, in train(args) ' * 11
        + "assert param_shape == flat_fp32_avg_grads.shape, AssertionError: fp32 param and "
        "grad have different shape torch.Size([5069312]) vs torch.Size([72192])\n"
    )
    assert line.index("AssertionError") > 512
    got = to_json(diagnose_logs(index(), [LogBytes("job.log", line.encode())]).diagnosis)
    assert got == {
        "findings": [],
        "first_failed_rank": None,
        "unrecognized": [
            {
                "file": "job.log",
                "line": 1,
                "rank": None,
                "time": None,
                "text": line[2:].rstrip("\n"),
                "kind": "python-exception",
            }
        ],
        "culprit": {
            "file": "job.log",
            "line": 1,
            "package": None,
            "raised_in": None,
            "called_from": {"path": "/home/u/coati/train_sft.py", "line": 185, "function": "train"},
            "names": [],
            "versions": [],
        },
        "launcher": [],
    }


def test_a_raise_line_is_the_messages_template_and_no_signatures_match() -> None:
    """patrickloeber/pytorch-chatbot#3 (case 025 of corpus/real/): the traceback's source line,
    its indent lost in the paste, holds the message's template; the line after it is the
    message. The finding's line is the message."""
    from catalog import SPECS, Spec

    worker = Spec(
        "dataloader-worker-killed",
        "memory",
        "DataLoader worker exited unexpectedly",
        "Give the container more shared memory.",
        (("DataLoader worker (pid(s) {*}) exited unexpectedly", "defining"),),
        (
            (
                "https://github.com/pytorch/pytorch/issues/1",
                "RuntimeError: DataLoader worker (pid(s) 4242) exited unexpectedly",
            ),
        ),
    )
    log = (
        b"raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'"
        b".format(pids_str))\n"
        b"\n"
        b"RuntimeError: DataLoader worker (pid(s) 21184, 8440) exited unexpectedly\n"
    )
    got = to_json(diagnose_logs(index((*SPECS, worker)), [LogBytes("job.log", log)]).diagnosis)
    assert [(f["id"], f["count"], f["first"]["line"]) for f in got["findings"]] == [
        ("dataloader-worker-killed", 1, 3)
    ]
