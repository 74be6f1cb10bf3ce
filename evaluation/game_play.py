"""One game between two agents: the loop every match, tournament and deal match plays through.

``play_game(game, seated, seed=None, start=None)`` plays from ``start`` (a copy of it), else from
``game.new_state(seed)``, ``seated[p]`` choosing player ``p``'s moves with ``act(state)`` on a
clone of the position. An illegal choice raises ``MancalaError`` naming the agent and the
legal actions; reaching the id's ``max_plies`` stops the game as a truncation, which is neither
a win, a draw nor a loss (its ``returns`` are zeros, its ``scores`` the points taken so far).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mancala_envs.core.errors import MancalaError
from mancala_envs.core.game import Game, State

__all__ = ["PlayedGame", "play_game"]


@dataclass
class PlayedGame:
    """How a game went: its moves, its last position and whether the ply cap stopped it."""

    actions: list[int]
    state: State  # the last position
    truncated: bool
    returns: list[float] = field(init=False)  # +1/-1/0 per seat; zeros when truncated
    scores: list = field(init=False)  # points per seat (player_0 first) in the last position

    def __post_init__(self) -> None:
        self.returns = [0.0, 0.0] if self.truncated else self.state.returns()
        self.scores = self.state.scores()


def play_game(game: Game, seated, seed: int | None = None, start: State | None = None) -> PlayedGame:
    """One game, ``seated[p]`` playing player ``p``, from ``start`` or ``game.new_state(seed)`` (module docstring)."""
    state = game.new_state(seed) if start is None else start.clone()
    actions: list[int] = []
    while not state.is_terminal():
        if state.is_truncated():
            return PlayedGame(actions, state, True)
        agent = seated[state.current_player]
        action = agent.act(state.clone())
        if not state.is_legal(action):
            raise MancalaError(
                f"{game.env_id}: agent {getattr(agent, 'name', agent)!r} chose action {action!r}, which is not "
                f"legal for player {state.current_player}; legal actions: {state.legal_actions()}"
            )
        state.apply(int(action))
        actions.append(int(action))
    return PlayedGame(actions, state, False)
