"""Rondell's move features (``mancala_envs.agents.learned.move_features``): read from the afterstates the
kernel plays, equal to a Python computation over the State API on every Rondell id; older
evaluation files refused; ``eval=`` agents with them on every Rondell id."""

from __future__ import annotations

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents.learned.learned_eval import EvalFileError, LearnedPolicyAgent, input_width, load_evaluation, save_evaluation
from mancala_envs.agents.specs import make_agent
from mancala_envs.games import afrika, rondell, widdershins
from mancala_envs.agents.learned.move_features import features_into_for, move_feature_set, no_features_into
from mancala_envs.agents.learned.move_features.rondell import (ROND_PER_PILE, ROND_SUMMARY, RONDELL_FEATURES,
                                                               rondell_features_into)
from mancala_envs.agents.learned.move_features.widdershins import widdershins_features_into
from mancala_envs.registry import make_game
from test_learned_eval import agents_play_legal_moves, features_match_reference, random_positions  # random games' positions, reservation steps included

RONDELL_IDS = [i for i in mancala_envs.list_envs() if make_game(i).family == "rondell"]


def _difference(state, who):
    scores = state.scores()
    return scores[who] - scores[1 - who]


def _lift_next(state, piles):
    """``state`` itself, or after "reserve nothing" if it is a reservation step (action ``piles`` legal)."""
    if not state.is_terminal() and piles in state.legal_actions():
        state = state.clone()
        state.apply(piles)
    return state


def rondell_reference(game, position):
    """Rondell's move features computed in Python from the State API (module docstring of
    ``move_features``): every lift and every reply played by ``State.apply`` (the kernel)."""
    P, T = game.options["piles"], game.options["piles"] * game.options["cards_per_pile"]
    out = np.zeros(P * ROND_PER_PILE + ROND_SUMMARY)
    if position.is_terminal():
        return out
    heights = position.observation(position.current_player)[P * T:P * T + P]
    base = _lift_next(position, P)
    if base.is_terminal():
        return out
    lifter = base.current_player
    gains, nets = [], []
    for a in base.legal_actions():
        child = base.clone()
        child.apply(int(a))
        child = _lift_next(child, P)
        gained = _difference(child, lifter) - _difference(base, lifter)
        row = out[a * ROND_PER_PILE:(a + 1) * ROND_PER_PILE]
        row[:4] = [1, heights[a] / T, gained / 2, gained > 0]
        net = gained
        if child.is_terminal():
            row[4], row[5] = 1, child.returns()[lifter]
        elif child.current_player != lifter:
            replies = []
            for b in child.legal_actions():
                grandchild = child.clone()
                grandchild.apply(int(b))
                lost = grandchild.is_terminal() and grandchild.returns()[lifter] < 0
                replies.append((_difference(child, lifter) - _difference(grandchild, lifter), lost))
            best = max(g for g, _ in replies)
            row[6:9] = [best / 2, np.mean([g > 0 for g, _ in replies]), any(lost for _, lost in replies)]
            row[10] = len(replies) / P
            net -= best
        row[9] = net / 2
        gains.append(gained)
        nets.append(net)
    o = P * ROND_PER_PILE
    if gains:
        out[o:o + 2] = [max(gains) / 2, max(nets) / 2]
    out[o + 2] = sum(g > 0 for g in gains) / P
    out[o + 3] = len(base.legal_actions()) / P
    return out


@pytest.mark.parametrize("env_id", RONDELL_IDS)
def test_rondell_move_features_are_the_kernels_afterstates(env_id):
    """The jitted features (the numpy entry point and the function Rondell's search loops compile
    in) equal the Python computation over ``State.apply`` on random positions; the state is left as it was."""
    game = make_game(env_id)
    features = move_feature_set("moves", game)
    assert features.width == game.options["piles"] * ROND_PER_PILE + ROND_SUMMARY
    positions = random_positions(game, 60, seed=7)
    rows = features_match_reference(game, features, positions, rondell_reference, rondell_features_into)
    P = game.options["piles"]
    blocks = rows[:, :P * ROND_PER_PILE].reshape(len(rows), P, ROND_PER_PILE)
    assert blocks[:, :, 3].any() and blocks[:, :, 6].any() and (blocks[:, :, 2] > 1).any()  # captures, replies, sow-on laps
    if game.options["reservation"]:  # reservation steps have the opponent's lifts (after "reserve nothing")
        steps = [i for i, p in enumerate(positions) if not p.is_terminal() and P in p.legal_actions()]
        assert steps and all(rows[i, 0:P * ROND_PER_PILE:ROND_PER_PILE].any() for i in steps)


def test_search_loops_compile_in_only_their_own_games_features():
    assert features_into_for(rondell.KERNEL) is rondell_features_into
    assert features_into_for(widdershins.KERNEL) is widdershins_features_into
    assert features_into_for(afrika.KERNEL) is no_features_into


def _evaluation(game, tmp_path, seed=5):
    """A random evaluation with Rondell's move features, a policy head and shared move weights."""
    width = input_width(game, "scaled", "moves")
    rng = np.random.default_rng(seed)
    value = [(rng.normal(size=(width, 12)) / np.sqrt(width), rng.normal(size=12)), (rng.normal(size=(12, 1)), rng.normal(size=1))]
    policy = [(rng.normal(size=(width, game.num_actions)) * 0.1, rng.normal(size=game.num_actions))]
    save_evaluation(tmp_path, game, "scaled", "relu", value, policy, score_scale=0.125, features="moves",
                    policy_move=rng.normal(size=ROND_PER_PILE))
    return tmp_path


def test_an_evaluation_of_older_rondell_features_is_refused(tmp_path):
    """A file written with version 1 of Rondell's move features (the first landing simulated on the
    observation; files without ``features_version``) has weights for other columns: refused clearly."""
    assert RONDELL_FEATURES.version == 2
    game = make_game("rondell-v0")
    path = _evaluation(game, tmp_path) / "evaluation.npz"
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files if k != "features_version"}
    np.savez(path, **arrays)
    with pytest.raises(EvalFileError, match="version 1 of rondell's move features; this package computes version 2"):
        load_evaluation(tmp_path, game)
    arrays["features_version"] = np.array(3)
    np.savez(path, **arrays)
    with pytest.raises(EvalFileError, match="version 3 of rondell's move features.*train the run again"):
        load_evaluation(tmp_path, game)


@pytest.mark.parametrize("env_id", RONDELL_IDS)
def test_eval_agents_play_every_rondell_id(env_id, tmp_path):
    """alpha-beta and MCTS with the evaluation, and the bare network, play legal moves through a game's
    positions (reservation steps included)."""
    game = make_game(env_id)
    run = _evaluation(game, tmp_path)
    agents = [make_agent(f"alphabeta:depth=2,eval={run}", seed=1), make_agent(f"mcts:sims=60,eval={run}", seed=1),
              LearnedPolicyAgent(run, seed=1)]
    agents_play_legal_moves(agents, game.new_state(4), 24)
