"""Checked numeric flags shared by the subcommands, and the parser whose errors take one line.

Every bad value on the command line ends the same way as any other bad input: one line
``mancala: error: ...`` on stderr and exit status 2, never a traceback. Numeric flags are
parsed by the ``type=`` functions below, so argparse itself names the flag
(``argument --workers: must be an integer >= 0, got -2``); checks that need several flags
together (``--games`` and ``--openings``) raise ``MancalaError`` in the subcommand.
"""

from __future__ import annotations

import argparse
import math
from typing import Callable, NoReturn


class CommandParser(argparse.ArgumentParser):
    """argparse's parser, with an error as one ``mancala: error:`` line (exit status 2).

    The subcommands' parsers are of this class too (``add_subparsers`` makes its parsers of
    the parent's class); ``--help`` still prints the usage.
    """

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("mancala").strip()
        where = f"{command}: " if command else ""
        self.exit(2, f"mancala: error: {where}{message} (see `{self.prog} --help`)\n")


def integer_at_least(low: int) -> Callable[[str], int]:
    """A ``type=`` for an integer flag of at least ``low`` (``--workers``, ``--seed``, ``--threads``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {value}")
        return value

    return parse


def number_above(low: float, inclusive: bool = False) -> Callable[[str], float]:
    """A ``type=`` for a finite number above ``low`` (or at least ``low``): seconds, frames per second."""
    relation = ">=" if inclusive else ">"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < low or (value == low and not inclusive):
            raise argparse.ArgumentTypeError(f"must be a number {relation} {low:g}, got {text!r}")
        return value

    return parse


SEED = integer_at_least(0)
