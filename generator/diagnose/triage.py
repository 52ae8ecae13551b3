"""Triage: group matched lines by entry, tell root causes from collateral, find the first rank.

- An entry is found when at least one line matches one of its *defining* signatures. Lines
  that match only its *context* signatures raise confidence in a finding and never make one.
- A line that matches a *harmless* signature (noise people often blame: the net-plugin notice,
  the destroy_process_group warning) makes a "not-the-cause" finding, listed last. It is never
  a root cause, never collateral and never names the first failed rank; when the same entry
  also has a defining hit, the defining hit wins.
- One line, one root cause: when a line matches defining signatures of an entry and of the
  entry it `refines` (directly or through a chain), the line is the specific entry's only; the
  general entry's defining match on that line is folded into it (lines that only the general
  entry matches still count for it).
- When A is found and B is in A's declared `collateral`, B is collateral. If declarations
  form a cycle among the found entries (A lists B and B lists A), the edge counts only from the
  entry that failed first, so a cycle never leaves a diagnosis without a root cause.
- "Earliest" compares timestamps where every compared line has one in a common clock: full
  wall-clock times, else wall-clock times without the year (glog, syslog), else seconds since
  boot when all lines come from one file; otherwise it compares position (input order, then
  place in the file). This is TorchElastic's smallest-timestamp rule for the first failure.
- The first failed rank is the rank of the earliest root-cause line that names a rank by its
  prefix, path or message; else the rank a launcher reports as its first failure (the Root
  Cause block of torchrun's summary, else the earliest launcher report, global ranks before
  local ones); else the rank of the unrecognised error below.
- Launchers are witnesses (launcher.py): their reports of a rank that exited badly are listed
  with what the exit code or signal means, and name the rank of the launcher lines that
  signatures match.
- A failure the catalog lacks is still a diagnosis. Lines that state an error (evidence.py) and
  match no defining or harmless signature are kept, the first of each kind per stream. A
  Python exception or an Xid that comes before a root cause which
  some entry declares as collateral (a watchdog timeout, torchrun's ChildFailedError) makes
  that finding collateral of the unrecognised error. When no root cause is left and something
  shows that a rank failed (a strong line, or a launcher's report), the failed rank's most
  telling line is reported as `unrecognized`, by evidence.KINDS' order: its Python exception,
  else its C++ exception, failed check, usage error, missing program, fatal signal, Slurm error,
  Xid, NCCL WARN or `error:` line. Weak lines alone (a healthy run's warnings) report nothing.
  When the rank's own lines carry no rank prefix (one process), the lines that name none are its.
- When no signature names a root cause and the launcher's verdict (or the shell's report) names
  a signal, the entry that declares the signal in `codes.signal` is the root cause, on that line.

Memory stays bounded whatever the size of the log: per entry, a count per rank, the streams
(file, rank) seen (only the ranks while one file has them all) and, of the first line of each
stream, just what `earliest` would pick from them all (Earliest): a few lines, however many
ranks. A kept line keeps its first `TEXT_CHARS` characters (a report prints at most that much
of it) and the number it left off, which the report states.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from generator.diagnose.culprit import Culprit
from generator.diagnose.evidence import CAUSES, KINDS, STRONG, Kind
from generator.diagnose.index import KNOWN_ROLES, IndexEntry, SignatureIndex
from generator.diagnose.launcher import LauncherName, exit_meaning, signal_of
from generator.diagnose.lineinfo import Timestamp
from generator.diagnose.records import quick_init
from generator.diagnose.scan import LineMatch, Settled
from generator.diagnose.trends import Trend

Role = Literal["root-cause", "collateral", "not-the-cause"]
# What a finding made collateral by an unrecognised error names as its cause.
UNRECOGNIZED = "unrecognized"
# The characters of a line's text that a kept hit holds: every report prints at most this much
# (the text and Markdown reports 400), so thousands of ranks of 64 KiB lines stay small.
TEXT_CHARS = 2048
ROLE_SETS = 4096  # signature sets whose roles a Tally keeps, at most


@quick_init
@dataclass(frozen=True)
class Hit:
    file: str
    file_index: int
    line: int
    offset: int
    rank: int | None
    time: Timestamp | None
    host: str | None
    text: str  # the first TEXT_CHARS characters of the line
    rank_from_launcher: bool = False
    cut: int = 0  # characters of the line left off `text`

    @classmethod
    def of(cls, m: LineMatch) -> Hit:
        text, cut = m.text, len(m.text) - TEXT_CHARS
        return cls(
            m.file,
            m.file_index,
            m.line,
            m.offset,
            m.rank,
            m.time,
            m.host,
            text[:TEXT_CHARS] if cut > 0 else text,
            m.rank_from_launcher,
            max(cut, 0),
        )


@dataclass(frozen=True)
class Witness:
    """What a launcher reports about one rank: the first line of the report, and its exit."""

    launcher: LauncherName
    rank: int | None  # None only for the shell's report on a line that names no rank
    local: bool  # a local rank (torchrun's agent line, DeepSpeed), not the global one
    code: int | None
    signal: int | None
    root: bool  # the summary's Root Cause block: the launcher's first observed failure
    hit: Hit

    @property
    def meaning(self) -> str:
        return exit_meaning(self.code, self.signal)

    @property
    def signal_number(self) -> int | None:
        """The signal that ended the rank: named, or as the exit code encodes it (-N, 128+N)."""
        return signal_of(self.code, self.signal)


@dataclass(frozen=True)
class Unrecognized:
    """The line that most likely states an error the catalog has no entry for."""

    kind: Kind
    hit: Hit


_CLOCKS = ("absolute", "yearless", "boot")
# The orders `earliest` may compare hits by: by a clock, or by position (None).
_ORDERS: tuple[str | None, ...] = (*_CLOCKS, None)
_Key = tuple[float, int, int]
# Earliest.live once only the position order is left.
_BY_POSITION = (len(_ORDERS) - 1,)


@dataclass
class Earliest:
    """What `earliest` would pick from a set of hits, kept as they are added instead of the
    hits (a storm has a million): for each order it may compare them by, the earliest hit,
    the first added of equal keys as `min` takes it; and what chooses the order, namely the
    clocks every hit has and whether they all come from one file."""

    hits: int = 0
    file_index: int | None = None  # the first hit's file
    one_file: bool = True
    every: list[bool] = field(default_factory=lambda: [True] * len(_CLOCKS))
    keys: list[_Key | None] = field(default_factory=lambda: [None] * len(_ORDERS))
    best: list[Hit | None] = field(default_factory=lambda: [None] * len(_ORDERS))
    # The orders no hit has ruled out, by their place in _ORDERS: once a line without a time is
    # added (every line of a storm of OOM lines), only the position order is left to keep.
    live: tuple[int, ...] = tuple(range(len(_ORDERS)))

    def add(self, match: LineMatch, hit: Hit | None) -> Hit | None:
        """Count `match` in; `hit` is its Hit if one was made. Returns the line's Hit, made
        only when the line is the earliest so far in some order (a storm's lines mostly are
        not)."""
        self.hits += 1
        if self.file_index is None:
            self.file_index = match.file_index
        elif match.file_index != self.file_index:
            self.one_file = False
        time = match.time
        for i in self.live:
            clock = _ORDERS[i]
            if clock is None:
                reading: float | None = 0.0
            else:
                reading = getattr(time, clock) if time is not None else None
                if reading is None:
                    # A hit lacks this clock: it can never be the one compared by.
                    self.every[i] = False
                    self.keys[i] = self.best[i] = None
                    self.live = tuple(j for j in self.live if j != i)
                    continue
            # As _sort_key reads it.
            key = (reading if isinstance(reading, float) else 0.0, match.file_index, match.offset)
            known = self.keys[i]
            if known is None or key < known:
                hit = hit or Hit.of(match)
                self.keys[i], self.best[i] = key, hit
        return hit

    def add_later(self, file_index: int, lines: int = 1) -> None:
        """Count in lines that come after every line added, once only the position order is
        left and a line was added (Settled's placed signatures): they are no order's earliest."""
        if lines:
            self.hits += lines
            if file_index != self.file_index:
                self.one_file = False


def _order_of(sets: Sequence[Earliest]) -> int:
    """The place in _ORDERS of the order `_clock` chooses for the union of `sets`' hits."""
    for i, clock in enumerate(_CLOCKS):
        if all(s.every[i] for s in sets):
            one_file = all(s.one_file for s in sets) and len({s.file_index for s in sets}) <= 1
            if clock == "boot" and not one_file:
                break  # each machine boots at its own time
            return i
    return len(_ORDERS) - 1


def earliest_of(sets: Sequence[Earliest]) -> Hit:
    """`earliest` of the hits of all `sets`, in turn: among equal keys the first set's, as
    `min` over their hits one set after another would take."""
    sets = [s for s in sets if s.hits]
    i = _order_of(sets)
    best_key: _Key | None = None
    best: Hit | None = None
    for s in sets:
        key = s.keys[i]
        if key is not None and (best_key is None or key < best_key):
            best_key, best = key, s.best[i]
    if best is None:
        raise ValueError("earliest_of() of no hits")
    return best


@dataclass
class _Tally:
    count: int = 0
    rank_counts: Counter[int | None] = field(default_factory=Counter)
    # Each (file, rank) stream's first line, the one triage compares (within a stream it is
    # also the earliest by position): of all of them, and of those that name a rank by the
    # line's own prefix, path or message, which choose the first failed rank.
    firsts: Earliest = field(default_factory=Earliest)
    ranked: Earliest = field(default_factory=Earliest)
    # The streams seen. While every line is from one file, rank_counts has its ranks, so a
    # million one-line ranks cost nothing more; lines from a second file make it a set per file.
    file_index: int | None = None
    ranks_by_file: dict[int, set[int | None]] | None = None

    def new_stream(self, file_index: int, rank: int | None) -> bool:
        """Whether the entry has no line of this stream yet; before the line is counted."""
        if self.ranks_by_file is None:
            if self.file_index is None or self.file_index == file_index:
                self.file_index = file_index
                return rank not in self.rank_counts
            self.ranks_by_file = {self.file_index: set(self.rank_counts)}
        ranks = self.ranks_by_file.setdefault(file_index, set())
        if rank in ranks:
            return False
        ranks.add(rank)
        return True

    def new_streams(self, file_index: int, ranks: Iterable[int | None]) -> set[int | None]:
        """The ranks of `ranks` that are new streams (`new_stream`), all at once; before the
        lines are counted."""
        if self.ranks_by_file is None and self.file_index in (None, file_index):
            self.file_index = file_index
            return set(ranks) - self.rank_counts.keys()
        return {rank for rank in ranks if self.new_stream(file_index, rank)}


def _add_counts(counts: Counter[int | None], more: dict[int | None, int]) -> None:
    """`counts.update(more)`, in C but for the ranks both hold: Counter.update adds a
    mapping one key at a time, and a storm of one line per rank has 200,000 of them."""
    both = {rank: counts[rank] + more[rank] for rank in more.keys() & counts.keys()}
    dict.update(counts, more)
    dict.update(counts, both)


class Tally:
    """Matched lines folded into per-entry counts, as the scanner produces them."""

    def __init__(self, index: SignatureIndex) -> None:
        self.index = index
        self.defining: dict[str, _Tally] = {}
        self.harmless: dict[str, _Tally] = {}
        self.context: Counter[str] = Counter()
        # Per stream (file, rank), the first evidence line of each kind.
        self.evidence: dict[tuple[int, int | None], dict[Kind, Hit]] = {}
        # Per (file, rank, local), the launcher's report, merged over its lines.
        self.witnesses: dict[tuple[int, int | None, bool], Witness] = {}
        # The roles of the signature sets lines matched (never changed once made).
        self._roles: dict[tuple[int, ...], dict[str, set[str]]] = {}
        self._knowns: dict[tuple[int, ...], bool] = {}  # and whether they name a known entry

    def add(self, match: LineMatch, settled: Settled | None = None) -> None:
        """Count `match` in; with `settled`, the scan's, mark its signatures placed (Settled)
        once they are."""
        roles = self._roles.get(match.signatures)
        if roles is None:
            roles = self._roles_of(match.signatures)
        hit: Hit | None = None
        if match.evidence is not None or match.launch is not None:
            hit = self._witness(match, roles)
        repeat = match.repeat
        for entry, found in roles.items():
            if "context" in found:
                self.context[entry] += repeat
            tallies = self._tallies_of(found)
            if tallies is None:
                continue
            tally = tallies.get(entry)
            if tally is None:
                tally = tallies[entry] = _Tally()
            new = tally.new_stream(match.file_index, match.rank)
            tally.count += repeat
            tally.rank_counts[match.rank] += repeat
            if new:
                hit = tally.firsts.add(match, hit)
                if match.rank is not None and not match.rank_from_launcher:
                    hit = tally.ranked.add(match, hit)
        if (
            settled is not None
            and match.signatures not in settled.placed
            and len(settled.placed) < ROLE_SETS
            and self._placed(roles)
        ):
            settled.placed.add(match.signatures)

    def _tallies_of(self, found: set[str]) -> dict[str, _Tally] | None:
        """Where an entry's lines with these roles are counted: as its defining lines, else
        as harmless ones; None for an entry the line only supports (context)."""
        if "defining" in found:
            return self.defining
        if "harmless" in found:
            return self.harmless
        return None

    def _placed(self, roles: dict[str, set[str]]) -> bool:
        """Whether a later line with these roles can change only counts and streams: each of
        its entries' earliest first lines, of all and of those ranked, has a line and is
        compared by position only, which a line scanned later never comes first in."""
        for entry, found in roles.items():
            tallies = self._tallies_of(found)
            if tallies is None:
                continue
            tally = tallies.get(entry)
            if tally is None:
                return False
            for earliest in (tally.firsts, tally.ranked):
                # Only a line added rules an order out: so the position order has a line.
                if earliest.live != _BY_POSITION:
                    return False
        return True

    def add_settled(self, settled: Settled) -> None:
        """Count in the lines a scan counted rather than reported, and empty `settled`. Each
        has no evidence or launcher's report, and is of a stream, with signatures, that a line
        given to `add` had, or has placed signatures (Settled): `add` would change only the
        counts and streams this changes."""
        for (file_index, numbers), ranks in settled.counts.items():
            roles = self._roles.get(numbers)
            if roles is None:
                roles = self._roles_of(numbers)
            lines = sum(ranks.values())
            for entry, found in roles.items():
                if "context" in found:
                    self.context[entry] += lines
                tallies = self._tallies_of(found)
                if tallies is None:
                    continue
                tally = tallies[entry]
                new = tally.new_streams(file_index, ranks)
                tally.firsts.add_later(file_index, len(new))
                tally.ranked.add_later(file_index, len(new) - (None in new))
                tally.count += lines
                _add_counts(tally.rank_counts, ranks)
        settled.counts.clear()

    def _known(self, numbers: tuple[int, ...], roles: dict[str, set[str]]) -> bool:
        """Whether the signatures make the line a known entry's (defining or harmless): a
        function of them, kept beside their roles."""
        known = self._knowns.get(numbers)
        if known is None:
            known = any(not found.isdisjoint(KNOWN_ROLES) for found in roles.values())
            if len(self._knowns) >= ROLE_SETS:
                self._knowns.clear()
            self._knowns[numbers] = known
        return known

    def _roles_of(self, numbers: tuple[int, ...]) -> dict[str, set[str]]:
        """Each entry of the signatures a line matched, with the roles they give it there: a
        pure function of the signatures, kept for the next line that matches the same ones."""
        roles: dict[str, set[str]] = {}
        for number in numbers:
            sig = self.index.signatures[number]
            roles.setdefault(sig.entry, set()).add(sig.role)
        if len(roles) > 1:
            self._fold(roles)
        if len(self._roles) >= ROLE_SETS:
            self._roles.clear()
        self._roles[numbers] = roles
        return roles

    def _fold(self, roles: dict[str, set[str]]) -> None:
        """Drop the defining role of every entry that another defining entry on the line
        refines: the specific entry is the line's root cause."""
        entries = self.index.entries
        specific = [e for e, found in roles.items() if "defining" in found]
        for entry_id in specific:
            general = entries[entry_id].refines
            seen = {entry_id}
            while general is not None and general not in seen:
                seen.add(general)
                found = roles.get(general)
                if found is not None and "defining" in found:
                    found.discard("defining")
                general = entries[general].refines if general in entries else None

    def _witness(self, match: LineMatch, roles: dict[str, set[str]]) -> Hit | None:
        """Note the line's evidence and launcher report; its Hit, if it was kept (a storm's
        OOM lines are evidence of a known entry: none of them is kept, nor made, here)."""
        hit: Hit | None = None
        launch = match.launch
        # A launcher's own `error:` line is its report, not the error it reports.
        own = launch is not None and match.evidence == "error-line"
        if match.evidence is not None and not own and not self._known(match.signatures, roles):
            kinds = self.evidence.setdefault((match.file_index, match.rank), {})
            if match.evidence not in kinds:
                hit = kinds[match.evidence] = Hit.of(match)
        # The shell names no rank, nor does DeepSpeed's launcher (the command it quotes is the
        # last it built): the report is about the rank whose line it is, if any.
        shell = launch is not None and launch.launcher in ("shell", "deepspeed")
        rank = match.rank if shell else launch.rank if launch is not None else None
        if launch is not None and launch.failed and (rank is not None or shell):
            hit = hit or Hit.of(match)
            key = (match.file_index, rank, launch.local)
            seen = self.witnesses.get(key)
            if seen is None:
                self.witnesses[key] = Witness(
                    launch.launcher,
                    rank,
                    launch.local,
                    launch.code,
                    launch.signal,
                    launch.root,
                    hit,
                )
            else:
                self.witnesses[key] = Witness(
                    seen.launcher,
                    seen.rank,
                    seen.local,
                    seen.code if seen.code is not None else launch.code,
                    seen.signal if seen.signal is not None else launch.signal,
                    seen.root or launch.root,
                    seen.hit,
                )
        return hit

    def add_all(self, matches: Iterable[LineMatch], settled: Settled | None = None) -> Tally:
        for match in matches:
            self.add(match, settled)
        return self


@dataclass(frozen=True)
class Finding:
    id: str
    entry: IndexEntry
    role: Role
    count: int
    ranks: tuple[int, ...]
    rank_counts: tuple[tuple[int | None, int], ...]  # by rank, lines without a rank last
    first: Hit
    context_lines: int
    caused_by: tuple[str, ...]  # for collateral: the found entries that declare it
    from_trend: bool = False  # found in progress lines' numbers (trend_findings.py)


@dataclass(frozen=True)
class Diagnosis:
    findings: tuple[Finding, ...]
    first_failed_rank: int | None
    first_failure: Hit | None  # the line that names the first failed rank
    unrecognized: tuple[Unrecognized, ...] = ()
    witnesses: tuple[Witness, ...] = ()  # the launcher's first failure first
    first_witness: Witness | None = None  # the launcher's report on the first failed rank
    culprit: Culprit | None = None  # of the line the report puts first (engine.with_culprit)
    trends: tuple[Trend, ...] = ()  # what the progress lines' numbers show (trend_findings.py)

    @property
    def explained(self) -> Hit | None:
        """The line the report puts first: the top root cause's, else the unrecognised one."""
        roots = self.root_causes
        if roots:
            return roots[0].first
        return self.unrecognized[0].hit if self.unrecognized else None

    @property
    def root_causes(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.role == "root-cause")

    @property
    def collateral(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.role == "collateral")

    @property
    def not_the_cause(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.role == "not-the-cause")


def _clock(hits: Sequence[Hit]) -> str | None:
    """The finest clock every hit has a reading of, or None to compare by position."""
    for clock in _CLOCKS:
        if all(h.time is not None and getattr(h.time, clock) is not None for h in hits):
            if clock == "boot" and len({h.file_index for h in hits}) > 1:
                return None  # each machine boots at its own time
            return clock
    return None


def _sort_key(clock: str | None) -> Callable[[Hit], tuple[float, int, int]]:
    def key(hit: Hit) -> tuple[float, int, int]:
        reading = getattr(hit.time, clock) if clock is not None and hit.time else None
        return (reading if isinstance(reading, float) else 0.0, hit.file_index, hit.offset)

    return key


def earliest_first(hits: Sequence[Hit]) -> list[Hit]:
    """Hits ordered by time when they share a clock, else by position; ties by position."""
    return sorted(hits, key=_sort_key(_clock(hits)))


def earliest(hits: Sequence[Hit]) -> Hit:
    """`earliest_first(hits)[0]` without sorting them all: `min` returns the first of equal
    keys, as the stable sort puts it first (a storm of ranks has one first line per rank)."""
    return min(hits, key=_sort_key(_clock(hits)))


def _reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def triage(tally: Tally) -> Diagnosis:
    index = tally.index
    firsts = {entry_id: earliest_of([t.firsts]) for entry_id, t in tally.defining.items()}
    harmless = {
        entry_id: t for entry_id, t in tally.harmless.items() if entry_id not in tally.defining
    }
    harmless_firsts = {entry_id: earliest_of([t.firsts]) for entry_id, t in harmless.items()}
    key = _sort_key(_clock(list(firsts.values())))
    order = sorted(firsts, key=lambda e: (key(firsts[e]), e))
    place = {entry_id: i for i, entry_id in enumerate(order)}
    edges: dict[str, set[str]] = {
        a: {b for b in index.entries[a].collateral if b in firsts and b != a} for a in firsts
    }
    reach = {entry_id: _reachable(edges, entry_id) for entry_id in firsts}
    caused_by: dict[str, list[str]] = {}
    for a in order:
        for b in sorted(edges[a], key=place.__getitem__):
            if a not in reach[b] or place[a] < place[b]:
                caused_by.setdefault(b, []).append(a)

    def finding(entry_id: str, role: Role) -> Finding:
        t = harmless[entry_id] if role == "not-the-cause" else tally.defining[entry_id]
        numbered = sorted((r, c) for r, c in t.rank_counts.items() if r is not None)
        unranked = [(None, t.rank_counts[None])] if None in t.rank_counts else []
        return Finding(
            entry_id,
            index.entries[entry_id],
            role,
            t.count,
            tuple(r for r, _ in numbered),
            (*numbered, *unranked),
            harmless_firsts[entry_id] if role == "not-the-cause" else firsts[entry_id],
            tally.context[entry_id],
            tuple(caused_by.get(entry_id, ())),
        )

    def in_order(ids: list[str], of: dict[str, Hit] = firsts) -> list[str]:
        k = _sort_key(_clock([of[e] for e in ids]))
        return sorted(ids, key=lambda e: (k(of[e]), e))

    roots = in_order([e for e in firsts if e not in caused_by])
    evidence = [
        Unrecognized(kind, hit) for kinds in tally.evidence.values() for kind, hit in kinds.items()
    ]
    strong = earliest_first([u.hit for u in evidence if u.kind in STRONG])
    causes = earliest_first([u.hit for u in evidence if u.kind in CAUSES])
    if causes:
        # An error the catalog lacks, before a failure known to be collateral: the watchdog
        # timeouts and ChildFailedError that follow a rank's death are not its cause.
        known_collateral = {b for e in index.entries.values() for b in e.collateral}
        for e in list(roots):
            if e in known_collateral and earliest_first([firsts[e], causes[0]])[0] is causes[0]:
                roots.remove(e)
                caused_by[e] = [UNRECOGNIZED]
        collateral = in_order([e for e in firsts if e in caused_by])
    else:
        collateral = in_order([e for e in firsts if e in caused_by])
    findings = [finding(e, "root-cause") for e in roots]
    witnesses = _order_witnesses(list(tally.witnesses.values()))
    verdict = witnesses[0] if witnesses else None
    by_signal: Finding | None = None
    if not roots and verdict is not None:
        # No signature names the failure, but the launcher (or the shell) says which signal
        # ended the rank: the entry that declares that signal is the root cause, on its line.
        named = signal_entry(index, verdict.signal_number)
        if named is not None:
            by_signal = _witness_finding(named, index.entries[named], verdict)
            findings.append(by_signal)
    findings += [finding(e, "collateral") for e in collateral]
    findings += [finding(e, "not-the-cause") for e in in_order(list(harmless), harmless_firsts)]
    unrecognized: tuple[Unrecognized, ...] = ()
    first_failure: Hit | None = None
    if roots:
        ranked = [tally.defining[e].ranked for e in roots]
        if any(s.hits for s in ranked):
            first_failure = earliest_of(ranked)
        elif verdict is not None:
            first_failure = verdict.hit
    elif by_signal is not None:
        first_failure = by_signal.first
    elif strong or verdict is not None:
        if verdict is not None:
            rank: int | None = verdict.rank
        else:
            rank = strong[0].rank
        mine = [u for u in evidence if u.hit.rank == rank]
        if not mine and rank is not None:
            # The rank's own lines carry no rank prefix (one process, or a launcher's report
            # in a log of its own): the lines that name no rank are its.
            mine = [u for u in evidence if u.hit.rank is None]
        if mine:
            best = min(KINDS.index(u.kind) for u in mine)
            picked = [u for u in mine if KINDS.index(u.kind) == best]
            first = earliest([u.hit for u in picked])
            unrecognized = tuple(u for u in picked if u.hit is first)
        if verdict is not None:
            first_failure = verdict.hit
        elif unrecognized and rank is not None:
            first_failure = unrecognized[0].hit
    if first_failure is not None and first_failure.rank is None:
        first_failure = None  # a line that names no rank names no first failed rank
    first_witness = next(
        (w for w in witnesses if first_failure is not None and w.rank == first_failure.rank),
        # One process, no rank: the shell's or launcher's report on it, if that is all there is.
        verdict if first_failure is None and verdict is not None and verdict.rank is None else None,
    )
    return Diagnosis(
        tuple(findings),
        first_failure.rank if first_failure is not None else None,
        first_failure,
        unrecognized,
        tuple(witnesses),
        first_witness,
    )


def signal_entry(index: SignatureIndex, signal: int | None) -> str | None:
    """The entry whose `codes.signal` declares this signal (the first by id, if several do)."""
    if signal is None:
        return None
    return next((e for e in sorted(index.entries) if signal in index.entries[e].signals), None)


def _witness_finding(entry_id: str, entry: IndexEntry, w: Witness) -> Finding:
    ranks = (w.rank,) if w.rank is not None else ()
    return Finding(entry_id, entry, "root-cause", 1, ranks, ((w.rank, 1),), w.hit, 0, ())


def _order_witnesses(witnesses: list[Witness]) -> list[Witness]:
    """The launcher's verdict first: its Root Cause block, then global ranks before local ones,
    each earliest first (a torchrun agent's `local_rank` is the global rank only on one node)."""
    order = {id(h): i for i, h in enumerate(earliest_first([w.hit for w in witnesses]))}
    return sorted(
        witnesses,
        key=lambda w: (not w.root, w.local, order[id(w.hit)], w.rank is None, w.rank or 0),
    )
