"""Progressive's move features (``mancala_envs.agents.learned.move_features``): read from the afterstates the
kernel plays, hand-checked on small boards, equal to a Python computation over the State API on
random positions of both ids; the learned evaluation with them equals its numpy and torch passes."""

from __future__ import annotations

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents.learned.learned_eval import (EvalFileError, LearnedPolicyAgent, input_width, load_evaluation,
                                              load_features, net_policy, net_value, save_evaluation, scorer_width)
from mancala_envs.agents.specs import make_agent
from mancala_envs.games import progressive
from mancala_envs.agents.learned.move_features import features_into_for, move_feature_set, move_features
from mancala_envs.agents.learned.move_features.progressive import (PROG_PER_MOVE, PROG_SUMMARY, PROGRESSIVE_FEATURES,
                                                                   progressive_features_into)
from mancala_envs.registry import make_game
from test_learned_eval import agents_play_legal_moves, features_match_reference, live_positions, random_positions

PROGRESSIVE_IDS = [i for i in mancala_envs.list_envs() if make_game(i).family == "progressive"]
WEST, EAST = 1, 0


def _features(game, positions):
    """The move features of ``positions`` (State objects) through the numpy entry point."""
    features = move_feature_set("moves", game)
    states = np.array([p.array for p in positions])
    observations = np.array([p.observation(max(p.current_player, 0)) for p in positions])
    return move_features(features, game.params, states, observations)


def _difference(state, who):
    scores = state.scores()
    return scores[who] - scores[1 - who]


def progressive_reference(game, position):
    """Progressive's move features computed in Python from the State API (module docstring of
    ``move_features``): every move and every next move played by ``State.apply`` (the kernel)."""
    n, S = game.options["holes"], game.options["stones"]
    T = n * S
    out = np.zeros(n * PROG_PER_MOVE + PROG_SUMMARY)
    me = position.current_player
    if me < 0:
        return out
    obs = position.observation(me)
    gains, nets = [], []
    for a in position.legal_actions():
        child = position.clone()
        child.apply(int(a))
        gained = _difference(child, me) - _difference(position, me)
        row = out[a * PROG_PER_MOVE:(a + 1) * PROG_PER_MOVE]
        row[:4] = [1, obs[a] / S, gained / S, gained > 0]
        row[7] = child.to_json()["goal"] / S
        net = gained
        if child.is_terminal():
            row[5], row[6] = 1, child.returns()[me]
        else:
            next_gains, losing = [], False
            for b in child.legal_actions():
                grandchild = child.clone()
                grandchild.apply(int(b))
                next_gains.append(_difference(grandchild, child.current_player) - _difference(child, child.current_player))
                losing |= grandchild.is_terminal() and grandchild.returns()[me] < 0
            if child.current_player == me:  # the turn goes on: the mover's own next move
                row[4], row[12] = 1, max(next_gains) / S
                net += max(next_gains)
            else:
                row[8:12] = [max(next_gains) / S, np.mean([g > 0 for g in next_gains]), losing, len(next_gains) / n]
                net -= max(next_gains)
        row[13] = net / S
        gains.append(gained)
        nets.append(net)
    payload = position.to_json()
    o = n * PROG_PER_MOVE
    out[o:o + 2] = [max(gains) / S, max(nets) / S]
    out[o + 2:o + 6] = [sum(g > 0 for g in gains) / n, len(gains) / n, payload["moves_left"], payload["bonus"]]
    out[o + 6:o + 9] = [_difference(position, me) / T, (sum(payload["holes"]) + payload["goal"]) / T, payload["goal"] / S]
    return out


# -- hand-checked positions: 3 holes of 2 stones (holes 1-3 from West's left, then the Goal) -----


def _small():
    return make_game("progressive-v0", holes=3, stones=2)


def _position(game, holes, goal, captured, to_move, moves_left=1):
    return game.state_from_json({"holes": holes, "goal": goal, "captured": captured, "to_move": to_move,
                                 "moves_left": moves_left})


def _blocks(game, position):
    row = _features(game, [position])[0]
    n = game.options["holes"]
    return row[:n * PROG_PER_MOVE].reshape(n, PROG_PER_MOVE), row[n * PROG_PER_MOVE:]


def test_a_move_into_the_goal_and_a_move_into_an_empty_hole():
    # West to move, holes [2, 0, 1], Goal 2, captured East 0 / West 1 (S = 2, T = 6).
    # Hole 1 (action 0): 2 stones to holes 2 and 3; hole 3 held 1, so relay 2: Goal (3), hole 1 (emptied):
    # ends in an empty hole, no gain, a bonus move for East, who then has holes [1, 1, 0] and the Goal's 3.
    # East's replies: hole 2 relays through hole 1 into hole 3 (no gain); hole 1 ends in the Goal and takes 4.
    # Hole 3 (action 2): its stone ends in the Goal, West takes 3; East's one reply (hole 1) gains nothing.
    game = _small()
    blocks, summary = _blocks(game, _position(game, [2, 0, 1], 2, [0, 1], WEST))
    assert blocks[0].tolist() == pytest.approx([1, 1, 0, 0, 0, 0, 0, 3 / 2, 4 / 2, 1 / 2, 0, 2 / 3, 0, -4 / 2])
    assert not blocks[1].any()  # hole 2 is empty
    assert blocks[2].tolist() == pytest.approx([1, 1 / 2, 3 / 2, 1, 0, 0, 0, 0, 0, 0, 0, 1 / 3, 0, 3 / 2])
    # best gain, best net, share gaining, legal, moves left, bonus, lead / T, in play / T, Goal / S
    assert summary.tolist() == pytest.approx([3 / 2, 3 / 2, 1 / 3, 2 / 3, 1, 0, 1 / 6, 5 / 6, 2 / 2])


def test_a_bonus_move_reads_the_movers_own_next_move():
    # The same board with two moves left in West's turn: after hole 1 West moves again, and hole 1's
    # single stone relays through hole 2 into hole 3 and the Goal, taking 4 (the follow-up, column 12).
    game = _small()
    blocks, summary = _blocks(game, _position(game, [2, 0, 1], 2, [0, 1], WEST, moves_left=2))
    assert blocks[0].tolist() == pytest.approx([1, 1, 0, 0, 1, 0, 0, 3 / 2, 0, 0, 0, 0, 4 / 2, 4 / 2])
    assert blocks[2].tolist() == pytest.approx([1, 1 / 2, 3 / 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 3 / 2])
    assert summary[4] == 2 and summary[1] == pytest.approx(4 / 2)


def test_the_last_capture_ends_the_game_with_its_result():
    # West takes the Goal's 3 with the last stone: 4-2, West wins; the same for East from hole 1 (East's
    # action 2: East sows right to left, its action 0 is hole 3), 5-1.
    game = _small()
    blocks, summary = _blocks(game, _position(game, [0, 0, 1], 2, [1, 2], WEST))
    assert blocks[2].tolist() == pytest.approx([1, 1 / 2, 3 / 2, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 3 / 2])
    assert summary[7] == pytest.approx(3 / 6)  # the stones in play
    blocks, _ = _blocks(game, _position(game, [1, 0, 0], 2, [2, 1], EAST))
    assert blocks[2].tolist() == pytest.approx([1, 1 / 2, 3 / 2, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 3 / 2])
    # East from hole 3 instead: its stone ends in hole 2 (empty); West's one reply, hole 2 into hole 3, gains nothing
    blocks, _ = _blocks(game, _position(game, [0, 0, 1], 2, [2, 1], EAST))
    assert blocks[0].tolist() == pytest.approx([1, 1 / 2, 0, 0, 0, 0, 0, 2 / 2, 0, 0, 0, 1 / 3, 0, 0])
    assert not _features(game, [_position(game, [0, 0, 0], 0, [4, 2], EAST)]).any()  # the game is over


# -- random positions -------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", PROGRESSIVE_IDS)
def test_progressive_move_features_are_the_kernels_afterstates(env_id):
    """The jitted features (the numpy entry point and the function Progressive's search loops compile
    in) equal the Python computation over ``State.apply`` on random positions; the state is left as it was."""
    game = make_game(env_id)
    features = move_feature_set("moves", game)
    assert features.width == game.options["holes"] * PROG_PER_MOVE + PROG_SUMMARY
    assert features.version == PROGRESSIVE_FEATURES.version == 1
    rows = features_match_reference(game, features, random_positions(game, 80, seed=13), progressive_reference,
                                    progressive_features_into)
    n = game.options["holes"]
    blocks = rows[:, :n * PROG_PER_MOVE].reshape(len(rows), n, PROG_PER_MOVE)
    for column in (3, 4, 8, 12):  # captures, bonus moves, replies and follow-ups all occur
        assert blocks[:, :, column].any(), column


def test_search_loops_compile_in_progressives_features():
    assert features_into_for(progressive.KERNEL) is progressive_features_into


# -- the learned evaluation with them ------------------------------------------------------------


def _evaluation(game, tmp_path, scorer_hidden=(6,), seed=5):
    """A random evaluation with Progressive's move features, a policy head, shared move weights and a move scorer."""
    features = move_feature_set("moves", game)
    width = input_width(game, "onehot", "moves")
    rng = np.random.default_rng(seed)
    value = [(rng.normal(size=(width, 10)) / np.sqrt(width), rng.normal(size=10)), (rng.normal(size=(10, 1)), rng.normal(size=1))]
    policy = [(rng.normal(size=(width, game.num_actions)) * 0.1, rng.normal(size=game.num_actions))]
    sizes = [scorer_width(features), *scorer_hidden, 1]
    scorer = [(rng.normal(size=(a, b)), rng.normal(size=b)) for a, b in zip(sizes, sizes[1:])]
    save_evaluation(tmp_path, game, "onehot", "relu", value, policy, score_scale=0.25, features="moves",
                    policy_move=rng.normal(size=PROG_PER_MOVE), move_scorer=scorer)
    return tmp_path


def _jitted_passes(evaluation, positions, observations):
    """The jitted value and policy logits (what alpha-beta, MCTS and ``policy:RUN`` run) of ``positions``,
    their features computed from each state by ``load_features``."""
    game = evaluation.game
    net, values, logits = evaluation.net(), [], np.zeros((len(positions), game.num_actions))
    for p, o, row in zip(positions, observations, logits):
        net.obs[:] = o
        load_features(net, p)
        values.append(net_value(net, net.obs))
        net_policy(net, net.obs, row)
    return np.array(values), logits


@pytest.mark.parametrize("env_id", PROGRESSIVE_IDS)
def test_jitted_forward_pass_with_progressive_features_equals_numpy(env_id, tmp_path):
    game = make_game(env_id)
    evaluation = load_evaluation(_evaluation(game, tmp_path), game)
    assert evaluation.features.name == "moves" and evaluation.move_scorer is not None
    positions, obs, states = live_positions(game, 25, seed=3)
    values, references = evaluation.value(obs, states=states), evaluation.policy_logits(obs, states=states)
    jitted, logits = _jitted_passes(evaluation, positions, obs)
    assert np.allclose(logits, references, rtol=1e-5, atol=1e-5)
    assert np.allclose(jitted, values, rtol=1e-5, atol=1e-5) and np.std(jitted) > 0
    with pytest.raises(EvalFileError, match="move features are computed from the game's states"):
        evaluation.value(obs)
    agent = LearnedPolicyAgent(tmp_path, seed=1)
    assert agent.act(positions[4]) == int(np.argmax(np.where(positions[4].action_mask() != 0, references[4], -np.inf)))


def test_eval_agents_play_progressive_with_its_features(tmp_path):
    """alpha-beta and MCTS with the evaluation, and the bare network, play legal moves through a game."""
    game = make_game("progressive-v0")
    run = _evaluation(game, tmp_path)
    agents = [make_agent(f"alphabeta:depth=2,eval={run}", seed=1), make_agent(f"mcts:sims=40,eval={run}", seed=1),
              LearnedPolicyAgent(run, seed=1)]
    agents_play_legal_moves(agents, game.new_state(4), 30)


@pytest.mark.slow
def test_a_trained_progressive_evaluation_plays_as_its_torch_networks(tmp_path):
    # value.features=moves with the move scorer: the file's value and policy (numpy and jitted passes) are the
    # trainer's torch networks on the same inputs, the value scaled by the held-out gain.
    torch = pytest.importorskip("torch")
    from pathlib import Path

    from mancala_envs.agents.learned.learned_eval import network_input
    from mancala_envs.training.config import load_config
    from mancala_envs.training.checkpoint import RunState
    from mancala_envs.training.search_bootstrap import SearchBootstrapTrainer

    config = load_config(Path(__file__).resolve().parents[1] / "configs" / "progressive-v0-value.yaml",
                         ["value.features=moves", "value.policy.move_hidden=[5]", "value.iterations=1", "value.games=2",
                          "value.depth=1", "value.workers=1", "value.hidden=[8]", "value.eval_every=100",
                          "eval.final_openings=1", "eval.ladder=[random]", f"runs_dir={tmp_path}"])
    trainer = SearchBootstrapTrainer(config, tmp_path, RunState(), echo=lambda text: None)
    trainer.run()
    evaluation = load_evaluation(tmp_path)
    assert evaluation.features.name == "moves" and evaluation.move_scorer is not None
    game = evaluation.game
    positions, obs, states = live_positions(game, 20, seed=8)
    x = torch.from_numpy(network_input(trainer.spec, trainer.features, obs, evaluation.feature_rows(states, obs)))
    with torch.no_grad():
        values = trainer.value_net(x)[:, 0].double().numpy() * trainer.value_gain
        logits = trainer._policy(x).double().numpy()
    assert np.allclose(evaluation.value(obs, states=states), values, rtol=1e-4, atol=1e-5)
    assert np.allclose(evaluation.policy_logits(obs, states=states), logits, rtol=1e-4, atol=1e-5)
    jitted_values, jitted_logits = _jitted_passes(evaluation, positions, obs)
    assert np.allclose(jitted_values, values, rtol=1e-4, atol=1e-5)
    assert np.allclose(jitted_logits, logits, rtol=1e-4, atol=1e-5)
