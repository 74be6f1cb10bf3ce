"""A human at the terminal: the board is printed, moves are typed in the game's notation."""

from __future__ import annotations

import sys
from typing import Callable, TextIO

from mancala_envs.core.errors import MancalaError
from mancala_envs.core.game import State

from .base import Agent

# a command's function gets the position and the rest of the line (e.g. the file of "save FILE")
Command = tuple[Callable[[State, str], None], str]


class HumanAgent(Agent):
    """Reads a move from ``stdin`` (e.g. ``3`` in Kalah), re-asking until it is legal.

    ``?`` (or ``help``) lists the legal moves; end of input raises ``EOFError``.
    ``commands`` adds words the player may type instead of a move: ``{word: (function,
    help text)}``; ``function(state, rest_of_line)`` runs and the agent asks again (a
    function may raise to leave ``act``, as ``mancala play`` does for ``undo`` and ``quit``).
    ``show_moves=True`` lists the legal moves under the board every turn.
    """

    name = "human"

    def __init__(self, seed: int | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None,
                 commands: dict[str, Command] | None = None, show_moves: bool = False):
        super().__init__(seed)
        self.stdin = stdin
        self.stdout = stdout
        self.commands = {word.lower(): command for word, command in (commands or {}).items()}
        self.show_moves = show_moves

    def act(self, state: State) -> int:
        inp = self.stdin or sys.stdin
        out = self.stdout or sys.stdout
        game = state.game
        print(state, file=out)
        names = game.action_names(state)
        if self.show_moves:
            print("legal moves: " + ", ".join(names.values()), file=out)
        while True:
            print(f"player_{state.current_player}, your move (? for the legal moves): ", end="", file=out, flush=True)
            line = inp.readline()
            if not line:
                raise EOFError("HumanAgent: end of input before a move was given")
            text = line.strip()
            if text in ("?", "help"):
                print("legal moves: " + ", ".join(names.values()), file=out)
                for word, (_, doc) in self.commands.items():
                    print(f"  {word:<12} {doc}", file=out)
                continue
            word, _, rest = text.partition(" ")
            if word.lower() in self.commands:
                self.commands[word.lower()][0](state, rest.strip())
                continue
            try:
                return int(game.string_to_action(state, text))
            except MancalaError as err:
                print(f"not a legal move: {err}", file=out)
