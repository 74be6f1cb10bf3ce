"""Progress of long commands (match, tournament, eval, train): a rich bar, or a line every few seconds.

``Progress(total, unit, title)`` shows how many of ``total`` units are done, the time spent and
an estimate of the time left, and what is being played now:

* on a terminal, a rich progress bar (``rich`` comes with the train extra);
* otherwise (a log file, CI, a pipe), or without rich, one plain line every ``every`` seconds
  (default ``LINE_EVERY``) and one at the end, never carriage returns::

      tournament: 120/400 games (30%), 12.3 s, about 28.7 s left; greedy vs random

The estimate of the time left leaves out the time spent compiling (``core.announce.compile_seconds``):
a first use compiles once, and its seconds would otherwise weigh on every unit still to come.
Output goes to stderr, so ``--json`` on stdout stays clean. ``Progress`` is a context
manager; ``update(done, label)`` sets the count, ``advance(n, label)`` adds to it.
"""

from __future__ import annotations

import sys
import time
from typing import IO

from mancala_envs.core.announce import compile_seconds

LINE_EVERY = 5.0  # seconds between progress lines when the output is not a terminal


class Progress:
    """Progress of ``total`` units of work (module docstring)."""

    def __init__(self, total: int, unit: str = "games", title: str = "", enabled: bool = True,
                 stream: IO[str] | None = None, every: float = LINE_EVERY):
        self.total, self.unit, self.title = max(int(total), 1), unit, title
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.every = every
        self.done, self.label = 0, ""
        self.start = self._last_line = time.perf_counter()
        self._compiling_at_start = compile_seconds()
        self._bar = self._rich_bar() if enabled and _is_terminal(self.stream) else None

    def _rich_bar(self):
        try:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)
        except ImportError:
            return None  # plain lines
        bar = RichProgress(TextColumn(f"{self.title}"), BarColumn(), MofNCompleteColumn(), TextColumn(self.unit),
                           TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.description}"),
                           console=Console(file=self.stream), transient=True)
        self._task = bar.add_task("", total=self.total)
        bar.start()
        return bar

    def update(self, done: int, label: str | None = None) -> None:
        """``done`` units finished so far; ``label`` says what is being worked on."""
        self.done = min(int(done), self.total)
        if label is not None:
            self.label = label
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, description=self.label)
        elif time.perf_counter() - self._last_line >= self.every:
            self._write_line()

    def advance(self, n: int = 1, label: str | None = None) -> None:
        self.update(self.done + n, label)

    def line(self) -> str:
        """The plain progress line."""
        elapsed = time.perf_counter() - self.start
        text = f"{self.title}: {self.done}/{self.total} {self.unit} ({self.done / self.total:.0%}), {elapsed:.1f} s"
        if 0 < self.done < self.total:
            working = elapsed - (compile_seconds() - self._compiling_at_start)  # one-off compiles left out
            text += f", about {max(working, 0.0) * (self.total - self.done) / self.done:.1f} s left"
        return text + (f"; {self.label}" if self.label else "")

    def _write_line(self) -> None:
        self.stream.write(self.line() + "\n")
        self.stream.flush()
        self._last_line = time.perf_counter()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        elif self.enabled:
            self._write_line()
        self.enabled = False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _is_terminal(stream: IO[str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
