"""The pydantic model of a failure entry: every section a reader of a failure page needs.

Models are frozen and forbid unknown keys, so a typo in a field name is an error at its line
rather than a silently missing section. Text is split in two kinds: `Markdown` fields (prose that
may carry emphasis, lists, code spans and links) and plain `Text`; both are escaped on the page.
"""

from __future__ import annotations

import datetime as dt
import re
from enum import StrEnum
from functools import cache
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    model_validator,
)

from generator.diagnose.pattern import PatternError, parse
from generator.model.categories import CATEGORY_IDS

ID_RE = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"

# Control characters other than tab and newline have no place in an entry, and some (STX/ETX)
# would collide with the Markdown engine's own placeholders.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _no_control(value: str) -> str:
    m = _CONTROL.search(value)
    if m:
        raise ValueError(f"control character U+{ord(m.group()):04X} is not allowed")
    return value


def _single_line(value: str) -> str:
    if "\n" in value.strip("\n"):
        raise ValueError("must be a single line")
    return value.strip()


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


def _https_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme != "https" or not parts.netloc or re.search(r"[\s<>\"'`]", value):
        raise ValueError("must be an https:// URL with no spaces or quotes")
    return value


class _Marker:
    """Metadata that tells the renderer and the Markdown lint which fields hold Markdown."""


MARKDOWN = _Marker()
# One-line fields that take code spans and emphasis only (generator/model/inline.py).
INLINE_MARKS = _Marker()

Text = Annotated[str, AfterValidator(_no_control), AfterValidator(_not_blank)]
Line = Annotated[Text, AfterValidator(_single_line), Field(max_length=200)]
Markdown = Annotated[Text, MARKDOWN]
InlineLine = Annotated[Line, INLINE_MARKS]
InlineText = Annotated[Text, INLINE_MARKS]
Url = Annotated[str, AfterValidator(_https_url), Field(max_length=500)]
EntryId = Annotated[str, Field(pattern=ID_RE, max_length=80)]
# A failure-lab log committed in this repository: corpus/lab/<torch release>/<scenario>.log.
# The pattern admits no "..", no absolute path and no other folder.
_LAB_LOG = re.compile(r"corpus/lab/[0-9]+\.[0-9]+\.[0-9]+/[a-z0-9]+(?:-[a-z0-9]+)*\.log")


def _lab_log(value: str) -> str:
    if not _LAB_LOG.fullmatch(value):
        raise ValueError("must be a lab log's path: corpus/lab/<torch release>/<scenario>.log")
    return value


LabLog = Annotated[str, AfterValidator(_lab_log), Field(max_length=200)]
Tag = Annotated[str, Field(pattern=ID_RE, max_length=40)]
CategoryId = Annotated[str, Field(pattern=ID_RE, max_length=40)]


def _pattern_ok(value: str) -> str:
    try:
        parse(value)
    except PatternError as exc:
        raise ValueError(str(exc)) from None
    return value


class Severity(StrEnum):
    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Layer(StrEnum):
    HARDWARE = "hardware"
    SOFTWARE = "software"
    EITHER = "either"


class Role(StrEnum):
    DEFINING = "defining"
    CONTEXT = "context"
    HARMLESS = "harmless"


class Stack(StrEnum):
    PYTORCH = "pytorch"
    DEEPSPEED = "deepspeed"
    MEGATRON = "megatron-lm"
    HUGGINGFACE = "huggingface"
    VLLM = "vllm"
    GENERIC = "generic"


class CodeLanguage(StrEnum):
    PYTHON = "python"
    BASH = "bash"
    YAML = "yaml"
    JSON = "json"
    TEXT = "text"


class NcclResult(StrEnum):
    SUCCESS = "ncclSuccess"
    UNHANDLED_CUDA_ERROR = "ncclUnhandledCudaError"
    SYSTEM_ERROR = "ncclSystemError"
    INTERNAL_ERROR = "ncclInternalError"
    INVALID_ARGUMENT = "ncclInvalidArgument"
    INVALID_USAGE = "ncclInvalidUsage"
    REMOTE_ERROR = "ncclRemoteError"
    IN_PROGRESS = "ncclInProgress"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=False)


class Mechanism(_Model):
    mistaken_for: Markdown = Field(description="What people usually blame for this failure.")
    actually: Markdown = Field(description="What is really happening, step by step.")


class SymptomRow(_Model):
    symptom: InlineLine = Field(description="A symptom, in one line.")
    why: Markdown = Field(description="Why it happens.")


class ConfirmStep(_Model):
    command: Text = Field(description="A real command to run.")
    look_for: InlineText = Field(description="What in its output confirms the failure.")
    needs_root: bool = Field(description="true when the command needs root or sudo.")


class Signature(_Model):
    pattern: Annotated[Text, AfterValidator(_pattern_ok)] = Field(
        description="The line as the software prints it, variable parts as placeholders: "
        "{int} {num} {hex} {pci} {word} {token} {*}; {{ and }} for literal braces."
    )
    role: Role = Field(
        description="defining: the line alone names this failure; context: supporting only; "
        "harmless: noise people blame, shown as not the cause and never as a root cause."
    )
    seen_in: Url = Field(
        description="Where this exact text appears: upstream source or a real log."
    )


class CodeSample(_Model):
    stack: Stack = Field(description="pytorch, deepspeed, megatron-lm, huggingface, vllm, generic.")
    language: CodeLanguage = Field(description="python, bash, yaml, json or text.")
    code: Text = Field(description="The code, as it should be pasted.")


class FixStep(_Model):
    step: Markdown = Field(description="What to do, and when the answer is hardware service.")
    commands: tuple[Text, ...] = ()
    code: tuple[CodeSample, ...] = ()


class XidAction(StrEnum):
    """The action buckets of NVIDIA's Xid catalog (its "immediate action" column)."""

    IGNORE = "ignore"  # informational, or sympathetic to another Xid: nothing to do for it
    RESTART_APP = "restart-app"  # restart the application; the GPU is fine
    RESET_GPU = "reset-gpu"  # reset the GPU (nvidia-smi -r) before it is used again
    REBOOT = "reboot"  # reboot the node (the catalog's RESTART_BM / RESTART_VM)
    CHECK_HARDWARE = "check-hardware"  # inspect power, cabling or seating (CHECK_MECHANICALS)
    CONTACT_SUPPORT = "contact-support"  # drain the node and open a hardware case
    FOLLOW_OTHER_XID = "follow-other-xid"  # it reports on another Xid: act on that one


class XidCode(_Model):
    code: Annotated[int, Field(ge=1, le=1000)] = Field(description="The Xid number.")
    meaning: Line = Field(description="What the code means, in NVIDIA's catalog's terms.")
    action: XidAction = Field(
        description="The catalog's immediate action: ignore, restart-app, reset-gpu, reboot, "
        "check-hardware, contact-support or follow-other-xid. Where the catalog names a "
        "workflow, the workflow's first remedial step."
    )
    catalog_resolution: Line | None = Field(
        default=None,
        description="The catalog's own resolution words, immediate / investigatory, as it "
        "prints them (RESTART_APP / CONTACT_SUPPORT).",
    )
    by_generation: InlineLine | None = Field(
        default=None,
        description="How the recommended action differs by GPU generation, where it does.",
    )


SignalName = Literal["SIGILL", "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL", "SIGSEGV"]
# What the numbers of training progress lines can show (diagnose/trends.py says how each is told).
ProgressKind = Literal[
    "non-finite", "loss-scale-collapse", "stall", "divergence", "spike", "slowdown"
]


class Codes(_Model):
    xid: tuple[Annotated[int, Field(ge=1, le=1000)], ...] = ()
    xid_actions: tuple[XidCode, ...] = Field(
        default=(),
        description="One row per code in `xid`: its meaning and the catalog's action bucket.",
    )
    nccl: tuple[NcclResult, ...] = ()
    signal: tuple[SignalName, ...] = Field(
        default=(),
        description="The signals that kill a process with this failure (SIGKILL, SIGSEGV ...): "
        "a launcher's or shell's report of that signal names this entry when no signature does.",
    )
    cuda: tuple[
        Annotated[str, Field(pattern=r"^(cudaError|CUDA_ERROR_|CUBLAS_STATUS_|CUDNN_STATUS_)\w+$")],
        ...,
    ] = ()
    progress: tuple[ProgressKind, ...] = Field(
        default=(),
        description="What the numbers in training progress lines show for this failure (a loss "
        "spike, a stall ...): a diagnosis that finds it there names this entry. An entry with "
        "these may have no signatures, when the software prints no line of its own for it.",
    )


class AppliesTo(_Model):
    component: InlineLine = Field(description="A product, library or piece of hardware.")
    versions: InlineLine | None = Field(default=None, description="Versions affected, where known.")


class Reference(_Model):
    title: InlineLine = Field(description="The page's title.")
    url: Url = Field(description="An https URL you have read.")


class Example(_Model):
    url: Url | None = Field(
        default=None, description="The public thread or post this log excerpt comes from."
    )
    lab: LabLog | None = Field(
        default=None,
        description="Instead of url: the failure-lab log it comes from, "
        "corpus/lab/<torch release>/<scenario>.log (docs/lab.md).",
    )
    log: Text = Field(
        description="Verbatim log lines; one must match a defining (or harmless) signature."
    )

    @model_validator(mode="after")
    def _one_source(self) -> Example:
        # A log comes from one place: a public thread, or a run of the lab in this repository.
        if (self.url is None) == (self.lab is None):
            raise ValueError("give exactly one of url (a public thread) or lab (a lab log)")
        return self


class FaqItem(_Model):
    q: InlineLine = Field(description="A question people ask in real threads.")
    a: Markdown = Field(description="The answer, written for this failure.")


class Entry(_Model):
    id: EntryId = Field(
        description="Kebab-case, equal to the file name; the page is /failures/<id>/."
    )
    aliases: tuple[EntryId, ...] = Field(
        default=(), description="Former ids; each old URL redirects to this entry."
    )
    kind: Literal["failure", "class"] = Field(
        default="failure",
        description="failure: one failure; class: a whole family of failures (a library version "
        "that does not fit, a missing module), whose page says how to find the culprit. An "
        "entry for one failure of a family `refines` the class, and wins over it.",
    )
    title: Line = Field(description="What a reader searches for, usually the error as printed.")
    category: CategoryId = Field(
        description="The category; it must match the entry's folder (categories.yaml may add "
        "a private catalog's own).",
        json_schema_extra={"examples": list(CATEGORY_IDS)},
    )
    tags: Annotated[tuple[Tag, ...], Field(min_length=1, max_length=8)] = Field(
        description="One to eight kebab-case tags, the ways in besides the category."
    )
    severity: Severity = Field(description="How badly it hurts a run: critical, high, medium, low.")
    layer: Layer = Field(description="Where the fault usually lies: hardware, software or either.")
    summary: Markdown = Field(description="The quick answer, one to three sentences.")
    quick_fix: InlineLine = Field(
        description="The first action to take, in one line (code spans and emphasis only)."
    )
    symptom: Markdown = Field(description="What the engineer sees when it happens.")
    root_cause: Markdown = Field(description="What actually broke.")
    mechanism: Mechanism = Field(
        description="What people mistake it for, and what is really happening."
    )
    observed: Text = Field(description="Raw log lines that a user typically sees.")
    symptoms: Annotated[tuple[SymptomRow, ...], Field(min_length=1)] = Field(
        description="Rows of the symptom table: a symptom and why it happens."
    )
    affected_systems: Annotated[tuple[InlineLine, ...], Field(min_length=1)] = Field(
        description="Hardware, software and setups where it happens."
    )
    confirm: Annotated[tuple[ConfirmStep, ...], Field(min_length=1)] = Field(
        description="A checklist of real commands, what to look for, and whether root is needed."
    )
    signatures: tuple[Signature, ...] = Field(
        default=(),
        description="Lines the software prints that identify this failure in a log.",
    )
    fix: Annotated[tuple[FixStep, ...], Field(min_length=1)] = Field(
        description="Ordered steps to fix it, with commands and code per stack where they differ."
    )
    prevention: Annotated[tuple[Markdown, ...], Field(min_length=1)] = Field(
        description="What stops it from happening again."
    )
    codes: Codes = Field(
        default=Codes(), description="Xid numbers, NCCL result names and CUDA error enums."
    )
    applies_to: tuple[AppliesTo, ...] = Field(
        default=(), description="Components and versions where known."
    )
    references: Annotated[tuple[Reference, ...], Field(min_length=1)] = Field(
        description="Upstream docs and issue threads you have read (https URLs)."
    )
    related: tuple[EntryId, ...] = Field(default=(), description="Ids of neighbouring entries.")
    collateral: tuple[EntryId, ...] = Field(
        default=(), description="Ids of failures this one commonly triggers on other ranks."
    )
    refines: EntryId | None = Field(
        default=None,
        description="The id of the more general entry this one is a special case of. A log line "
        "that both match is this entry's: the general entry is folded into it there.",
    )
    examples: Annotated[tuple[Example, ...], Field(min_length=1)] = Field(
        description="Real log excerpts, each with the thread (url) or lab log (lab) it comes from."
    )
    faq: Annotated[tuple[FaqItem, ...], Field(min_length=3, max_length=6)] = Field(
        description="Three to six questions people ask, answered for this failure."
    )
    last_reviewed: dt.date = Field(description="The date the entry was last checked (YYYY-MM-DD).")

    @model_validator(mode="wrap")
    @classmethod
    def _signatures_or_progress(cls, data: Any, handler: ModelWrapValidatorHandler[Entry]) -> Entry:
        # At least one signature, unless `codes.progress` says what shows the failure instead.
        # Raised as the field's own error, beside every other one, so a new entry's file lists
        # all it still needs at once, at the signatures key.
        if not isinstance(data, dict) or data.get("signatures") or _progress_of(data):
            return handler(data)
        missing: Any = {"type": "missing", "loc": ("signatures",), "input": data}
        if "signatures" in data:
            ctx = {"field_type": "Tuple", "min_length": 1, "actual_length": 0}
            missing = {"type": "too_short", "loc": ("signatures",), "input": data["signatures"],
                       "ctx": ctx}  # fmt: skip
        errors: list[Any] = []
        try:
            handler(data)
        except ValidationError as exc:
            errors = [
                {k: e[k] for k in ("type", "loc", "input", "ctx") if k in e} for e in exc.errors()
            ]
        raise ValidationError.from_exception_data(cls.__name__, [*errors, missing])


def _progress_of(data: dict[str, Any]) -> Any:
    codes = data.get("codes")
    return codes.get("progress") if isinstance(codes, dict) else None


def markdown_fields(
    model: BaseModel, path: tuple[str | int, ...] = (), marker: _Marker = MARKDOWN
) -> list[tuple[tuple[str | int, ...], str]]:
    """Every field of a model that carries `marker` (Markdown prose by default; INLINE_MARKS
    for the one-line fields) as (path, text), found from the field annotations."""
    found: list[tuple[tuple[str | int, ...], str]] = []
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        here = (*path, name)
        if marker in info.metadata and isinstance(value, str):
            found.append((here, value))
        elif isinstance(value, BaseModel):
            found.extend(markdown_fields(value, here, marker))
        elif isinstance(value, tuple):
            item_is_marked = _tuple_field_is_marked(type(model), name, marker)
            for i, item in enumerate(value):
                if isinstance(item, BaseModel):
                    found.extend(markdown_fields(item, (*here, i), marker))
                elif item_is_marked and isinstance(item, str):
                    found.append(((*here, i), item))
    return found


@cache  # one answer per field of the models: markdown_fields asks for each value it walks
def _tuple_field_is_marked(model: type[BaseModel], name: str, marker: _Marker) -> bool:
    return _tuple_item_is_marked(model.model_fields[name].annotation, marker)


def _tuple_item_is_marked(annotation: Any, marker: _Marker) -> bool:
    # Annotated[tuple[Markdown, ...], ...] or tuple[Markdown, ...]
    for arg in getattr(annotation, "__args__", ()) or ():
        if marker in getattr(arg, "__metadata__", ()):
            return True
        if _tuple_item_is_marked(arg, marker):
            return True
    return False


def model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model inside a field annotation (tuple[Model, ...], Model | None, ...)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = model_in(arg)
        if found is not None:
            return found
    return None
