"""Frozen records that are quick to make: the scanner makes several for every matched line."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Give a frozen dataclass an `__init__` that sets all its fields in one step.

    A frozen dataclass's own `__init__` calls `object.__setattr__` once per field: 2 us for a
    LineMatch's 14 fields, on each of a storm's million lines. This one sets the instance's
    `__dict__` at once, with the same parameters and defaults. Equality, hashing, `repr`,
    `dataclasses.replace` and the refusal to assign a field stay the dataclass's own."""
    if not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__} is not a frozen dataclass")
    params = dataclasses.fields(cls)
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__}: __post_init__ and __slots__ need its own __init__")
    defaults: dict[str, Any] = {}
    signature = []
    for f in params:
        if f.default_factory is not dataclasses.MISSING or not f.init:
            raise TypeError(f"{cls.__name__}.{f.name}: only plain fields and plain defaults")
        if f.default is dataclasses.MISSING:
            signature.append(f.name)
        else:
            defaults[f"_default_{f.name}"] = f.default
            signature.append(f"{f.name}=_default_{f.name}")
    state = ", ".join(f"{f.name!r}: {f.name}" for f in params)
    source = (
        f"def __init__(self, {', '.join(signature)}):\n    _set(self, '__dict__', {{{state}}})\n"
    )
    namespace: dict[str, Any] = {}
    exec(source, {"_set": object.__setattr__, **defaults}, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
