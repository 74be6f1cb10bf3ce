"""One line on stderr before a long one-off wait: a compile or a database build.

The first use of a search, the solver or the batched engine compiles its loop (numba), and the
solver's first use of a board builds its endgame database; later processes load both from disk.
So that a newcomer is not left at a blank prompt, ``core.compiled`` calls ``compiling`` when a
loop is about to be compiled (its disk cache has no entry: a cache hit says nothing), and the
database builder calls ``announce``. Each prints one line on stderr, on a terminal and in a log
alike, at most once per subject and process::

    mancala_envs: compiling the alpha-beta search for kalah (first use; cached after, about 6 s)

The estimate is the CPU time the same compile took when ``benchmarks/first_use.py`` last measured
it from empty caches (``compile_seconds.json`` beside this module, which that benchmark writes); a
compile it measured under ``QUIET_BELOW_SECONDS`` is not announced, and one it never measured is
announced without an estimate.

``compile_seconds()``: the wall seconds this process has spent compiling so far (every numba
compile, announced or not), for progress lines whose time estimates must leave one-off compiles
out (``evaluation.progress``).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

from numba.core import event

__all__ = ["announce", "compile_seconds", "compiled", "compiling", "estimates", "measured"]

PREFIX = "mancala_envs: "
ESTIMATES_FILE = Path(__file__).with_name("compile_seconds.json")
QUIET_BELOW_SECONDS = 2.0  # shorter waits go unannounced: a line for every small compile would be noise

_said: set[str] = set()
_measured: dict[str, float] = {}
_estimates: dict[str, float] | None = None
_lock = threading.Lock()


def estimates() -> dict[str, float]:
    """Subject -> CPU seconds its compile took from empty caches (``compile_seconds.json``; {} if none)."""
    global _estimates
    if _estimates is None:
        try:
            _estimates = {str(k): float(v) for k, v in json.loads(ESTIMATES_FILE.read_text(encoding="utf-8")).items()}
        except (OSError, ValueError, AttributeError):
            _estimates = {}
    return _estimates


def announce(text: str) -> None:
    """Print ``PREFIX + text`` on stderr, unless this process printed it already."""
    with _lock:
        if text in _said:
            return
        _said.add(text)
    print(PREFIX + text, file=sys.stderr, flush=True)


def compiling(subject: str) -> float:
    """Say that ``subject`` (e.g. "the alpha-beta search for kalah") is about to compile, unless
    its last measured compile was short; returns the process CPU time now, for ``compiled``."""
    expected = estimates().get(subject)
    if expected is None:
        announce(f"compiling {subject} (first use; cached after)")
    elif expected >= QUIET_BELOW_SECONDS:
        announce(f"compiling {subject} (first use; cached after, about {expected:.0f} s)")
    return time.process_time()


def compiled(subject: str, started: float) -> None:
    """Record the CPU seconds the compile of ``subject`` took (``started``: what ``compiling`` returned)."""
    _measured[subject] = _measured.get(subject, 0.0) + time.process_time() - started


def measured() -> dict[str, float]:
    """Subject -> CPU seconds its compiles took in this process (what ``benchmarks/first_use.py`` keeps)."""
    return dict(_measured)


class _CompileClock(event.Listener):
    """Wall seconds inside numba's outermost compiles (a compile nests the ones it triggers)."""

    def __init__(self):
        self.depth = 0
        self.started = 0.0
        self.total = 0.0

    def on_start(self, ev):
        if self.depth == 0:
            self.started = time.perf_counter()
        self.depth += 1

    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0:
            self.total += time.perf_counter() - self.started


_clock = _CompileClock()
event.register("numba:compile", _clock)


def compile_seconds() -> float:
    """Wall seconds this process has spent in numba compiles so far."""
    if _clock.depth:  # inside one now: count it up to now
        return _clock.total + time.perf_counter() - _clock.started
    return _clock.total
