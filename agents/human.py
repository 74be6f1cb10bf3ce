"""A human at the terminal: the board is printed, moves are typed in the game's notation."""

from __future__ import annotations

import sys
from typing import TextIO

from mancala_envs.core.errors import MancalaError
from mancala_envs.core.game import State

from .base import Agent


class HumanAgent(Agent):
    """Reads a move from ``stdin`` (e.g. ``3`` in Kalah), re-asking until it is legal.

    ``?`` lists the legal moves; end of input raises ``EOFError``.
    """

    name = "human"

    def __init__(self, seed: int | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None):
        super().__init__(seed)
        self.stdin = stdin
        self.stdout = stdout

    def act(self, state: State) -> int:
        inp = self.stdin or sys.stdin
        out = self.stdout or sys.stdout
        game = state.game
        print(state, file=out)
        names = game.action_names(state)
        while True:
            print(f"player_{state.current_player}, your move (? for the legal moves): ", end="", file=out, flush=True)
            line = inp.readline()
            if not line:
                raise EOFError("HumanAgent: end of input before a move was given")
            text = line.strip()
            if text in ("?", "help"):
                print("legal moves: " + ", ".join(names.values()), file=out)
                continue
            try:
                return int(game.string_to_action(state, text))
            except MancalaError as err:
                print(f"not a legal move: {err}", file=out)
