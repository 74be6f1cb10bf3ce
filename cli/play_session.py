"""``mancala play``: a person plays any game against any agent, in the terminal or a window.

    mancala play ID [key=value ...] [--opponent SPEC] [--seat 0|1|random] [--seed N]
                 [--hint SPEC] [--save FILE] [--window] [--delay SECONDS]

(the command line is ``mancala_envs.cli.play``; this module is the game session and the
terminal loop, which any front end can drive)

* ``--opponent``: an agent spec (``mancala_envs.agents.specs``; default ``alphabeta:depth=4``).
* ``--seat``: the player you are (default 0, who moves first; ``random`` draws it from the
  seed). In a window a two-row board is turned so that your row is nearest.
* ``--seed``: the game's seed (it decides any deal) and the agents'; without it one is
  drawn and printed, so every game can be replayed from its record.
* ``--hint``: the agent that answers ``hint`` (default ``alphabeta:time=1``: one second of
  alpha-beta search, which suits every game; any spec works, e.g. ``mcts:sims=2000``).
* ``--save FILE``: write the game's JSON record there when it ends (or when you quit);
  ``mancala replay FILE [--gif OUT.gif]`` replays it.

Terminal: the board is printed with the legal moves in the game's notation; type a move,
or ``hint``, ``undo`` (take back your last move and the opponent's replies: back to your
previous turn), ``save FILE``, ``board``, ``moves``, ``help`` or ``quit``.

Window (``--window``, needs the render extra): click a hole, pile or
stack to play it; where one cell has two moves (a direction in the bidirectional Kalah, a
lone Ace in Widdershins) click its left or right half, the way the move goes. Other
choices (setup counts, side choice, no reservation, pass, resign) are buttons under the
board, next to Hint (H), Undo (U), Save (S) and Quit (Q or Esc).
"""

from __future__ import annotations

import sys

from mancala_envs.core.errors import MancalaError
from mancala_envs.core.game import Game, State
from mancala_envs.core.notation import result_line
from mancala_envs.records import GameRecord, save_json
from mancala_envs.render import describe_move

from mancala_envs.agents.base import Agent
from mancala_envs.agents.human import HumanAgent

DEFAULT_OPPONENT = "alphabeta:depth=4"
DEFAULT_HINT = "alphabeta:time=1"


class UndoRequest(Exception):
    """Raised by the ``undo`` command to leave the move prompt."""


class QuitRequest(Exception):
    """Raised by the ``quit`` command to leave the game."""


class PlaySession:
    """One game of a person (``seat``) against an agent, with undo, hints and records.

    ``actions`` are the moves so far from ``game.new_state(seed)``; ``moves`` the same as
    ``render.LastMove`` (the last one is what a picture highlights).
    """

    def __init__(self, game: Game, seat: int, opponent: Agent, hint_agent: Agent, seed: int | None = None,
                 opponent_name: str | None = None):
        if seat not in (0, 1):
            raise MancalaError(f"the human's seat must be 0 or 1, got {seat!r}")
        self.game = game
        self.seat = seat
        self.seed = seed
        self.opponent = opponent
        self.opponent_name = opponent_name or getattr(opponent, "name", "agent")
        self.hint_agent = hint_agent
        self.state: State = game.new_state(seed)
        self.positions: list[State] = [self.state.clone()]
        self.actions: list[int] = []
        self.names: list[str] = []
        self.movers: list[int] = []
        self.seat_names = game.board_view(self.state)["seats"]

    # -- reading ------------------------------------------------------------------------------
    @property
    def truncated(self) -> bool:
        cap = self.game.max_plies
        return not self.state.is_terminal() and cap is not None and self.state.plies >= cap

    @property
    def over(self) -> bool:
        return self.state.is_terminal() or self.truncated

    @property
    def human_to_move(self) -> bool:
        return not self.over and self.state.current_player == self.seat

    @property
    def last(self):
        """The last move as a ``render.LastMove`` (None before the first)."""
        if not self.actions:
            return None
        return describe_move(self.positions[-2], self.actions[-1])

    def result_text(self) -> str:
        """How the game ended (or stands), and what it means for the human."""
        if self.truncated:
            return f"the game reached the ply cap ({self.game.max_plies}) and is truncated: no result"
        line = result_line(self.game, self.state)
        if self.state.is_terminal():
            mine = self.state.returns()[self.seat]
            line += "; " + ("you win" if mine > 0 else "you lose" if mine < 0 else "a draw")
        return line

    # -- playing ------------------------------------------------------------------------------
    def play(self, action: int) -> str:
        """Play ``action`` for the player to move; returns its name."""
        if self.over:
            raise MancalaError("the game is over; no move can be played")
        action = int(action)
        name = self.game.action_to_string(self.state, action)
        mover = self.state.current_player
        self.state.apply(action)
        self.positions.append(self.state.clone())
        self.actions.append(action)
        self.names.append(name)
        self.movers.append(mover)
        return name

    def opponent_move(self) -> str:
        """Let the agent play its move (the opponent must be to move); returns the move's name."""
        if self.over or self.state.current_player == self.seat:
            raise MancalaError("it is not the opponent's turn")
        action = self.opponent.act(self.state.clone())
        if not self.state.is_legal(action):
            raise MancalaError(
                f"the opponent {self.opponent_name!r} chose action {action!r}, which is not legal; "
                f"legal actions: {self.state.legal_actions()}"
            )
        return self.play(action)

    def undo(self) -> bool:
        """Take back the human's last move and everything after it; False if there is none."""
        for ply in range(len(self.actions) - 1, -1, -1):
            if self.movers[ply] == self.seat:
                del self.actions[ply:], self.names[ply:], self.movers[ply:], self.positions[ply + 1:]
                self.state = self.positions[-1].clone()
                return True
        return False

    def hint(self) -> tuple[int, str]:
        """The hint agent's move for the human here: ``(action, name)``."""
        if not self.human_to_move:
            raise MancalaError("a hint is for your own turn")
        action = int(self.hint_agent.act(self.state.clone()))
        return action, self.game.action_to_string(self.state, action)

    def record(self) -> GameRecord:
        return GameRecord.from_game(self.game, self.actions, seed=self.seed)

    def save(self, path: str) -> str:
        """Write the game so far as a JSON record (atomically); returns a line saying so."""
        if not str(path).strip():
            raise MancalaError("save needs a file name, e.g. save game.json")
        save_json(self.record(), path)
        return f"saved {len(self.actions)} plies to {path} (replay: mancala replay {path})"


def play_in_terminal(session: PlaySession, save_path: str | None = None) -> int:
    """The terminal game: the board, legal moves, and the commands of the module docstring."""
    out = sys.stdout
    game = session.game

    def say(line: str = "") -> None:
        print(line, file=out, flush=True)

    def hint(state: State, _rest: str) -> None:
        say(f"hint ({session.hint_agent.name}): {session.hint()[1]}")

    def undo(state: State, _rest: str) -> None:
        raise UndoRequest

    def save(state: State, rest: str) -> None:
        target = rest or save_path
        if not target:
            say("save needs a file name: save game.json")
            return
        say(session.save(target))

    def board(state: State, _rest: str) -> None:
        say(str(state))

    def leave(state: State, _rest: str) -> None:
        raise QuitRequest

    commands = {
        "hint": (hint, f"a move suggested by {session.hint_agent.name}"),
        "undo": (undo, "take back your last move (and the replies to it)"),
        "save": (save, "save FILE: write the game so far as a JSON record"),
        "board": (board, "print the board again"),
        "moves": (lambda state, rest: say("legal moves: " + ", ".join(game.action_names(state).values())),
                  "list the legal moves"),
        "quit": (leave, "leave the game"),
    }
    human = HumanAgent(stdout=out, commands=commands, show_moves=True)
    me = session.seat_names[session.seat]
    say(f"{game.env_id}: you are {me}, playing against {session.opponent_name} (seed {session.seed}).")
    say("Type a move in the game's notation, or hint, undo, save FILE, board, moves, help, quit.")
    status = 0
    while not session.over:
        if not session.human_to_move:
            mover = session.state.current_player
            name = session.opponent_move()
            say(f"{session.opponent_name} as {session.seat_names[mover]} plays {name}")
            continue
        try:
            action = human.act(session.state.clone())
        except UndoRequest:
            say("undone: back to your previous turn" if session.undo() else "nothing to undo: you have not moved yet")
            continue
        except QuitRequest:
            say(f"you left the game at ply {session.state.plies}")
            break
        except EOFError:
            say(f"\nend of input: the game stops at ply {session.state.plies}")
            status = 1
            break
        session.play(action)
    if session.over:
        say(str(session.state))
        say("result: " + session.result_text())
    if save_path:
        say(session.save(save_path))
    return status
