"""The Tally keeps, per entry, only what `earliest` would pick from each stream's first line;
triage must pick exactly the lines it picked when the Tally kept every stream's first line.

The reference below is that former Tally and its selection: per entry, a dict of each (file,
rank) stream's first Hit; an entry's first line is `earliest` of them all, and the first
failure `earliest` of the root causes' ranked ones (rank named by the line, not a launcher),
root causes in the order the diagnosis lists them.
"""

from __future__ import annotations

from catalog import PLUGIN, SPECS, index
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.diagnose.lineinfo import Timestamp
from generator.diagnose.scan import LineMatch
from generator.diagnose.triage import Diagnosis, Earliest, Hit, Tally, earliest, earliest_of, triage

INDEX = index((*SPECS, PLUGIN))
Streams = dict[str, dict[tuple[int, int | None], Hit]]

# Few readings, so that times tie; a clock present on some lines and not on others.
TIMES = st.one_of(
    st.none(),
    st.builds(
        Timestamp,
        st.just("t"),
        st.sampled_from([None, 1.0, 2.0, 3.0]),
        st.sampled_from([None, 1.0, 2.0]),
        st.sampled_from([None, 5.0, 6.0]),
    ),
)
# Signatures of one or two entries (a line both counts for), defining, context and harmless.
SIGNATURES = st.lists(
    st.integers(0, len(INDEX.signatures) - 1), min_size=1, max_size=2, unique=True
).map(lambda ns: tuple(sorted(ns)))


@st.composite
def matches(draw: st.DrawFn) -> list[LineMatch]:
    out = []
    for number in range(draw(st.integers(1, 30))):
        file_index = draw(st.integers(0, 2))
        rank = draw(st.sampled_from([None, 0, 1, 2, 3]))
        out.append(
            LineMatch(
                f"log{file_index}",
                file_index,
                number + 1,  # lines that tie on every key still differ as Hits
                draw(st.integers(0, 4)),  # few places, so that places tie too
                f"line {number}",
                draw(SIGNATURES),
                rank,
                rank,
                draw(TIMES),
                None,
                rank_from_launcher=draw(st.booleans()),
                repeat=draw(st.integers(1, 3)),
            )
        )
    return out


def reference_streams(found: list[LineMatch]) -> tuple[Streams, Streams]:
    """Each entry's first Hit of each stream, defining and harmless, as the former Tally kept
    them (this catalog refines nothing, so a line counts for every entry it matches)."""
    assert all(e.refines is None for e in INDEX.entries.values())
    defining: Streams = {}
    harmless: Streams = {}
    for m in found:
        roles: dict[str, set[str]] = {}
        for number in m.signatures:
            sig = INDEX.signatures[number]
            roles.setdefault(sig.entry, set()).add(sig.role)
        for entry, role in roles.items():
            if "defining" in role:
                streams = defining.setdefault(entry, {})
            elif "harmless" in role:
                streams = harmless.setdefault(entry, {})
            else:
                continue
            streams.setdefault((m.file_index, m.rank), Hit.of(m))
    return defining, harmless


def reference_picks(
    found: list[LineMatch], d: Diagnosis
) -> tuple[list[tuple[str, Hit]], Hit | None]:
    defining, harmless = reference_streams(found)
    firsts = [
        (f.id, earliest(list((harmless if f.role == "not-the-cause" else defining)[f.id].values())))
        for f in d.findings
    ]
    roots = [f.id for f in d.findings if f.role == "root-cause"]
    ranked = [
        h
        for e in roots
        for h in defining[e].values()
        if h.rank is not None and not h.rank_from_launcher
    ]
    return firsts, earliest(ranked) if ranked else None


@settings(max_examples=500, deadline=None)
@given(matches())
def test_triage_picks_the_lines_the_kept_streams_gave(found: list[LineMatch]) -> None:
    d = triage(Tally(INDEX).add_all(found))
    defining, harmless = reference_streams(found)
    # Every entry found, and each one's first line and the first failure as before.
    assert {f.id for f in d.findings} == set(defining) | set(harmless)
    assert ([(f.id, f.first) for f in d.findings], d.first_failure) == reference_picks(found, d)
    assert d.first_failed_rank == (d.first_failure.rank if d.first_failure else None)


@settings(max_examples=500, deadline=None)
@given(matches(), st.lists(st.integers(0, 3), min_size=30, max_size=30))
def test_earliest_of_sets_is_earliest_of_their_hits_one_set_after_another(
    found: list[LineMatch], groups: list[int]
) -> None:
    # Hits shared out among four sets, some empty; the sets in turn, as triage reads the root
    # causes' ranked lines.
    sets = [Earliest() for _ in range(4)]
    kept: list[list[Hit]] = [[] for _ in range(4)]
    for m, group in zip(found, groups, strict=False):
        sets[group].add(m, None)
        kept[group].append(Hit.of(m))
    for order in ([0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]):
        hits = [h for g in order for h in kept[g]]
        assert earliest_of([sets[g] for g in order]) == earliest(hits)
    for g in range(4):
        if kept[g]:
            assert earliest_of([sets[g]]) == earliest(kept[g])
