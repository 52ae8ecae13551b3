"""Load-time checks. The loader raises these; the classes document them under their ids."""

from __future__ import annotations

from generator.checks.base import Check, register


@register
class FileEncoding(Check):
    """An entry is UTF-8 text without a byte-order mark or NUL bytes.

    Fails: a file saved as UTF-16, or with bytes that are not UTF-8.
    """

    id = "file-encoding"
    phase = "load"


@register
class FileTooLarge(Check):
    """An entry file is at most 512 KiB (a real entry is a few kilobytes)."""

    id = "file-too-large"
    phase = "load"


@register
class YamlSyntax(Check):
    """The file parses as YAML. Tabs used for indentation fail here."""

    id = "yaml-syntax"
    phase = "load"


@register
class YamlMultipleDocuments(Check):
    """One file holds one document: a second `---` is an error."""

    id = "yaml-multiple-documents"
    phase = "load"


@register
class YamlNotMapping(Check):
    """The document is a mapping of field names to values, not a list or a scalar."""

    id = "yaml-not-mapping"
    phase = "load"


@register
class YamlDuplicateKey(Check):
    """No key appears twice in a mapping (PyYAML would silently keep the last one).

    Passes: `title: A` once. Fails: `title: A` then `title: B` in the same mapping.
    """

    id = "yaml-duplicate-key"
    phase = "load"


@register
class YamlAnchor(Check):
    """Anchors (`&a`) and aliases (`*a`) are refused, which also defuses alias bombs."""

    id = "yaml-anchor"
    phase = "load"


@register
class YamlTag(Check):
    """Only plain YAML values: explicit tags such as `!!python/object` are refused."""

    id = "yaml-tag"
    phase = "load"


@register
class YamlKey(Check):
    """Mapping keys are plain strings."""

    id = "yaml-key"
    phase = "load"


@register
class FileUnreadable(Check):
    """The file can be opened and read (permissions, a broken link)."""

    id = "file-unreadable"
    phase = "load"


@register
class YamlTooDeep(Check):
    """Lists and mappings nest at most 32 levels (an entry needs four or five).

    Fails: `a: [[[[...]]]]` 400 levels deep, which would exhaust every tool's stack.
    """

    id = "yaml-too-deep"
    phase = "load"


@register
class FileNotRegular(Check):
    """Entries and benign logs are regular files inside the repository.

    Fails: a FIFO named `x.yaml`, or a link to `/dev/stdin` or `/dev/zero`; neither is opened.
    """

    id = "file-not-regular"
    phase = "load"


@register
class FileName(Check):
    """Entry files end in `.yaml` (or `.yml`), in lower case; `x.YAML` is reported, not skipped."""

    id = "file-name"
    phase = "load"


@register
class YamlNumber(Check):
    """Numbers are plain: no YAML 1.1 base-60 values (`1:30` is 90) and at most 32 characters.

    Fails: `timeout: 1:30`, or a 512 KiB `1:1:1:...` that would take seconds to convert.
    """

    id = "yaml-number"
    phase = "load"
