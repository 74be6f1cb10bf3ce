"""Baseline agents that need no search: uniformly random, and greedy on immediate score."""

from __future__ import annotations

from mancala_envs.core.game import State

from .base import Agent


class RandomAgent(Agent):
    """Plays a uniformly random legal action."""

    name = "random"

    def act(self, state: State) -> int:
        legal = state.legal_actions()
        if not legal:
            raise ValueError("RandomAgent.act: the player to move has no legal action (is the game over?)")
        return int(legal[self.rng.integers(len(legal))])


class GreedyAgent(Agent):
    """Maximises the mover's immediate score gain, ties broken at random.

    The gain of a move counts everything the mover collects before the opponent moves:
    while a move grants the same player another move (an extra turn, a bonus move), the best
    continuation is searched too. ``max_chain`` bounds that search (default 64 positions per
    decision); past it, the remaining continuations are valued by the score reached so far.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None, max_chain: int = 64):
        super().__init__(seed)
        self.max_chain = max_chain

    def act(self, state: State) -> int:
        me = state.current_player
        if me < 0:
            raise ValueError("GreedyAgent.act: the game is over")
        budget = [self.max_chain]
        values = {}
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            values[action] = self._value(child, me, budget)
        best = max(values.values())
        ties = [a for a, v in values.items() if v == best]
        return int(ties[self.rng.integers(len(ties))])

    def _value(self, state: State, me: int, budget: list[int]) -> float:
        score = state.scores()[me]
        if state.current_player != me or budget[0] <= 0:
            return score
        best = score
        for action in state.legal_actions():
            if budget[0] <= 0:
                break
            budget[0] -= 1
            child = state.clone()
            child.apply(action)
            best = max(best, self._value(child, me, budget))
        return best

