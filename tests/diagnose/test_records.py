"""quick_init keeps a frozen dataclass what it was: the same fields, defaults and refusals."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from generator.diagnose.records import quick_init


@quick_init
@dataclass(frozen=True)
class Point:
    x: int
    y: int = 2
    tags: tuple[str, ...] = ()


def test_fields_defaults_equality_hash_and_repr_are_the_dataclass_s() -> None:
    assert Point(1) == Point(1, 2, ()) == Point(x=1, y=2)
    assert Point(1, tags=("a",)) != Point(1)
    assert hash(Point(1)) == hash(Point(1, 2))
    assert repr(Point(1, 3)) == "Point(x=1, y=3, tags=())"
    assert dataclasses.replace(Point(1), y=5) == Point(1, 5)
    assert dataclasses.asdict(Point(4)) == {"x": 4, "y": 2, "tags": ()}


def test_fields_still_cannot_be_assigned_and_arguments_are_checked() -> None:
    p = Point(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, 2, (), 4)  # type: ignore[call-arg]


def test_classes_it_would_get_wrong_are_refused() -> None:
    @dataclass
    class Loose:
        x: int

    @dataclass(frozen=True)
    class Factory:
        x: list[int] = field(default_factory=list)

    @dataclass(frozen=True, slots=True)
    class Slotted:
        x: int

    @dataclass(frozen=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            pass

    for cls in (Loose, Factory, Slotted, Checked):
        with pytest.raises(TypeError):
            quick_init(cls)
