"""Opening suites: distinct, seeded start positions for evaluations a reviewer can trust.

A deterministic agent (a trained policy played greedily, alpha-beta) plays the same game
every time it starts from the same position. A hundred games from the initial position
between two such agents are one game replayed a hundred times, and an interval computed as
if they were independent says nothing. An evaluation therefore starts its games from an
*opening suite*: ``n`` distinct positions, each played twice with the seats swapped (the
pair is the unit of independence: ``mancala_envs.evaluation.arena``).

``opening_suite(env_id, n, plies=None, seed=0, balanced=None, **options)``

* Each opening is reached from the start position by a number of uniformly random legal
  plies drawn from ``plies`` (inclusive). An opening is kept only if the game is still on
  and the position (the player to move and what each player observes) differs from every
  opening kept so far.
* **Dealt games** (Rondell, Widdershins: the start position depends on the seed given to
  ``new_state``) draw a seeded deal per opening. The deal alone already makes the openings
  distinct, so their default is the pure deal (``plies=(0, 0)``); random plies after it can
  be asked for. Other games default to ``plies=(2, 4)``. A game is treated as dealt when
  two seeds give two different start positions.
* ``balanced=d`` searches every candidate ``d`` plies deep with alpha-beta
  (``mancala_envs.agents.search``) and rejects it when the search proves the result or finds
  one side ahead by more than ``max_margin`` (default: a quarter of the stones or cards in
  play, ``Game.conserved_total``; for a game without one, only proven results are
  rejected): such an opening is already decided and measures nothing.
* Too few distinct openings (a tiny board, a narrow ply range) raise ``OpeningError``
  naming what to change.

Rulings for two games:

* **Kalah with a chosen start** (``kalah-chosen-start-v0``): the opening plies are the
  first steps of the setup (player_0 filling the holes). The agents play the rest of the
  setup, the side choice and the game: a suite varies the setup, and the pairing lets each
  agent be the setter and the chooser once per opening.
* **Afrika's komi** is left as it is. It compensates player_0's first move; each opening is
  played from both seats, so it favours each agent once per pair.

A suite is plain data: ``OpeningSuite.to_json()`` holds its spec (id, options, n, plies,
seed, balanced, max_margin) and every opening (the deal seed, the actions, the position
reached as ``State.to_json()``), so any evaluation can be replayed exactly
(``OpeningSuite.from_json``). ``initial_suite(env_id, pairs)`` is the degenerate suite of
the initial position only (``--openings 0``), labelled as such.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mancala_envs.core.errors import MancalaError
from mancala_envs.core.game import Game, State
from mancala_envs.registry import game_of, make_game

from mancala_envs.agents.search import WIN_BONUS, search

# Candidates drawn per requested opening before giving up (duplicates, games that end).
ATTEMPTS_PER_OPENING = 50
DEFAULT_PLIES = (2, 4)  # games without a deal
DEFAULT_DEALT_PLIES = (0, 0)  # dealt games: the deal is the opening
DEFAULT_OPENINGS = 100


class OpeningError(MancalaError):
    """An opening suite that cannot be built, or a saved one that does not fit its game."""


@dataclass(frozen=True)
class Opening:
    """One start position: the deal (``new_state(deal_seed)``) and the plies played from it."""

    deal_seed: int
    actions: tuple[int, ...]

    def state(self, game: Game) -> State:
        state = game.new_state(self.deal_seed)
        for action in self.actions:
            state.apply(action)
        return state


@dataclass(frozen=True)
class OpeningSuite:
    """A seeded set of distinct openings of one game (see the module docstring)."""

    env_id: str
    options: dict[str, Any]
    seed: int
    plies: tuple[int, int]
    balanced: int | None
    max_margin: float | None
    openings: tuple[Opening, ...]
    initial_only: bool = False  # the initial position alone (--openings 0), not a random suite
    game: Game = field(compare=False, repr=False, default=None)  # type: ignore[assignment]

    def __len__(self) -> int:
        return len(self.openings)

    def spec(self) -> dict[str, Any]:
        """How the suite was made: enough to make it again."""
        return {"env_id": self.env_id, "options": dict(self.options), "n": len(self.openings), "seed": self.seed,
                "plies": list(self.plies), "balanced": self.balanced, "max_margin": self.max_margin,
                "initial_only": self.initial_only}

    def label(self) -> str:
        if self.initial_only:
            deals = " (a new deal per pair)" if is_dealt(self.game) else ""
            return f"the initial position only{deals}, {len(self)} pairs: not independent openings"
        lo, hi = self.plies
        plies = f"{lo} random plies" if lo == hi else f"{lo}-{hi} random plies"
        if is_dealt(self.game):
            plies = "deals" + ("" if hi == 0 else f" and {plies}")
        balanced = f", balanced at depth {self.balanced}" if self.balanced else ""
        return f"{len(self)} openings of {plies} (seed {self.seed}{balanced})"

    def to_json(self) -> dict[str, Any]:
        game = self.game or make_game(self.env_id, **self.options)
        return {**self.spec(), "openings": [
            {"deal_seed": o.deal_seed, "actions": list(o.actions), "position": o.state(game).to_json()}
            for o in self.openings]}

    @classmethod
    def from_json(cls, payload: dict[str, Any]) -> "OpeningSuite":
        """A saved suite; every opening is replayed and checked against its saved position."""
        try:
            game = make_game(payload["env_id"], **payload["options"])
            openings = tuple(Opening(int(o["deal_seed"]), tuple(int(a) for a in o["actions"]))
                             for o in payload["openings"])
            suite = cls(payload["env_id"], dict(payload["options"]), int(payload["seed"]), tuple(payload["plies"]),
                        payload["balanced"], payload["max_margin"], openings, bool(payload["initial_only"]), game)
        except (KeyError, TypeError, ValueError) as err:
            raise OpeningError(f"not an opening suite saved by OpeningSuite.to_json: {err!r}") from None
        for i, (opening, saved) in enumerate(zip(openings, payload["openings"])):
            if "position" in saved and opening.state(game).to_json() != saved["position"]:
                raise OpeningError(f"opening {i} of the saved suite does not lead to its saved position")
        return suite

    def head(self, n: int) -> "OpeningSuite":
        """The first ``n`` openings (all of them if there are fewer), as a suite of its own."""
        return OpeningSuite(self.env_id, self.options, self.seed, self.plies, self.balanced, self.max_margin,
                            self.openings[:n], self.initial_only, self.game)

    def start(self, index: int) -> State:
        """The start position of opening ``index``."""
        return self.openings[index].state(self.game)


def is_dealt(game: Game) -> bool:
    """True when the start position depends on the seed (a deal)."""
    return game.new_state(0) != game.new_state(1)


def position_key(state: State) -> tuple:
    """What makes two openings the same for the agents: who moves and what each player sees."""
    return (state.current_player, state.observation(0).tobytes(), state.observation(1).tobytes())


def default_max_margin(game: Game, state: State) -> float | None:
    total = game.conserved_total(state)
    return None if total is None else total / 4


def opening_suite(
    env_id: str | Game,
    n: int = DEFAULT_OPENINGS,
    plies: tuple[int, int] | None = None,
    seed: int = 0,
    balanced: int | None = None,
    max_margin: float | None = None,
    **options: Any,
) -> OpeningSuite:
    """``n`` distinct openings of ``env_id`` (an id with ``options``, or a ``Game``); see the module docstring."""
    game = game_of(env_id, **options)
    dealt = is_dealt(game)
    if plies is None:
        plies = DEFAULT_DEALT_PLIES if dealt else DEFAULT_PLIES
    lo, hi = _check_arguments(n, plies, seed, balanced)
    if not dealt and hi == 0:
        raise OpeningError(f"{game.env_id}: the start position is not dealt, so openings need plies > 0; "
                           f"got plies=({lo}, {hi})")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x0BE1]))
    kept: list[Opening] = []
    seen: set[tuple] = set()
    for _ in range(n * ATTEMPTS_PER_OPENING):
        if len(kept) == n:
            break
        candidate = _random_opening(game, rng, dealt, lo, hi)
        if candidate is None:
            continue
        opening, state = candidate
        key = position_key(state)
        if key in seen or not _is_balanced(state, balanced, max_margin):
            continue
        seen.add(key)
        kept.append(opening)
    if len(kept) < n:
        raise OpeningError(
            f"{game.env_id}: found only {len(kept)} distinct openings of {lo}-{hi} plies"
            f"{' balanced at depth ' + str(balanced) if balanced else ''} in {n * ATTEMPTS_PER_OPENING} tries; "
            f"ask for fewer openings or widen the ply range")
    return OpeningSuite(game.env_id, _options_of(game), seed, (lo, hi), balanced, max_margin, tuple(kept),
                        game=game)


def initial_suite(env_id: str | Game, pairs: int = 1, seed: int = 0, **options: Any) -> OpeningSuite:
    """The initial position as every opening (``--openings 0``): ``pairs`` pairs of games from it.

    A dealt game draws a new deal for each pair (from ``seed``). Deterministic agents replay
    the same game from such a suite: its report says so (``distinct_games``, the label).
    """
    game = game_of(env_id, **options)
    if isinstance(pairs, bool) or not isinstance(pairs, (int, np.integer)) or pairs < 1:
        raise OpeningError(f"the number of game pairs must be an integer >= 1, got {pairs!r}")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x0BE1]))
    deals = rng.integers(2**31, size=pairs) if is_dealt(game) else np.zeros(pairs, np.int64)
    return OpeningSuite(game.env_id, _options_of(game), seed, (0, 0), None, None,
                        tuple(Opening(int(d), ()) for d in deals), initial_only=True, game=game)


def _options_of(game: Game) -> dict[str, Any]:
    """Every option of the game, resolved: make_game(env_id, **options) builds the same game."""
    return dict(game.options)


def _check_arguments(n: Any, plies: Any, seed: Any, balanced: Any) -> tuple[int, int]:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise OpeningError(f"the number of openings must be an integer >= 1, got {n!r}")
    try:
        lo, hi = (int(p) for p in plies)
    except (TypeError, ValueError):
        raise OpeningError(f"plies must be a pair (lo, hi) of integers, got {plies!r}") from None
    if not 0 <= lo <= hi:
        raise OpeningError(f"plies must be (lo, hi) with 0 <= lo <= hi, got {plies!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise OpeningError(f"seed must be an integer >= 0, got {seed!r}")
    if balanced is not None and (isinstance(balanced, bool) or not isinstance(balanced, (int, np.integer))
                                 or balanced < 1):
        raise OpeningError(f"balanced must be a search depth >= 1 or None, got {balanced!r}")
    return lo, hi


def _random_opening(game: Game, rng: np.random.Generator, dealt: bool, lo: int, hi: int):
    """A candidate opening and its position, or None when the game ended on the way."""
    deal_seed = int(rng.integers(2**31)) if dealt else 0
    state = game.new_state(deal_seed)
    actions = []
    for _ in range(int(rng.integers(lo, hi + 1))):
        if state.is_terminal() or state.is_truncated():
            return None
        legal = state.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        state.apply(action)
        actions.append(action)
    if state.is_terminal() or state.is_truncated():
        return None
    return Opening(deal_seed, tuple(actions)), state


def _is_balanced(state: State, depth: int | None, max_margin: float | None) -> bool:
    if depth is None:
        return True
    value = abs(search(state, depth=depth).value)
    if value >= WIN_BONUS / 2:  # the search proved the result
        return False
    margin = default_max_margin(state.game, state) if max_margin is None else max_margin
    return margin is None or value <= margin
