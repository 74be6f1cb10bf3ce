"""Kalah's move features (``mancala_envs.agents.learned.move_features.kalah``): read from the afterstates
the kernel plays, hand-checked on a small board, equal to a Python computation over the State API on
random positions of every id without a chosen start; an evaluation whose policy alone reads them
(``features_heads: "policy"``) equals its numpy pass, and alpha-beta with it never computes them."""

from __future__ import annotations

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents.learned.learned_eval import (EvalFileError, LearnedPolicyAgent, input_width, load_evaluation,
                                                      load_features, net_policy, net_value, save_evaluation,
                                                      scorer_width)
from mancala_envs.agents.learned.move_features import MoveFeatureError, features_into_for, move_feature_set
from mancala_envs.agents.learned.move_features.kalah import (KALAH_FEATURES, KALAH_PER_MOVE, KALAH_SUMMARY,
                                                             kalah_features_into)
from mancala_envs.agents.specs import make_agent
from mancala_envs.games import kalah
from mancala_envs.registry import make_game
from test_learned_eval import agents_play_legal_moves, features_match_reference, live_positions, random_positions
from test_move_features_progressive import _features

KALAH_IDS = [i for i in mancala_envs.list_envs()
             if make_game(i).family == "kalah" and not make_game(i).options["chosen_start"]]
SOUTH, NORTH = 0, 1


def _difference(state, who):
    scores = state.scores()
    return scores[who] - scores[1 - who]


def kalah_reference(game, position):
    """Kalah's move features computed in Python from the State API (module docstring of
    ``move_features.kalah``): every move and every next move played by ``State.apply`` (the kernel)."""
    pits, S = game.options["pits"], game.options["seeds"]
    A, T = pits * game.options["directions"], 2 * pits * S
    out = np.zeros(A * KALAH_PER_MOVE + KALAH_SUMMARY)
    me = position.current_player
    if me < 0:
        return out
    obs = position.observation(me)
    gains, nets = [], []
    for a in position.legal_actions():
        child = position.clone()
        child.apply(int(a))
        gained = _difference(child, me) - _difference(position, me)
        seen = child.observation(me)
        row = out[a * KALAH_PER_MOVE:(a + 1) * KALAH_PER_MOVE]
        row[:4] = [1, obs[a % pits] / S, gained / S, gained > 1]
        row[7:9] = [sum(seen[:pits]) / T, sum(seen[pits + 1:2 * pits + 1]) / T]
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
            if child.current_player == me:  # an extra turn: the mover's own next move
                row[4], row[12] = 1, max(next_gains) / S
                net += max(next_gains)
            else:
                row[9:12] = [max(next_gains) / S, np.mean([g > 0 for g in next_gains]), losing]
                net -= max(next_gains)
        row[13] = net / S
        gains.append(gained)
        nets.append(net)
    o = A * KALAH_PER_MOVE
    again = out[:o].reshape(A, KALAH_PER_MOVE)[:, 4].sum()
    out[o:o + 4] = [max(gains) / S, max(nets) / S, again / A, len(gains) / A]
    out[o + 4:o + 6] = [_difference(position, me) / T, (sum(obs[:pits]) + sum(obs[pits + 1:2 * pits + 1])) / T]
    return out


# -- hand-checked positions: 3 pits of 2 seeds (S = 2, T = 12); actions 0..2 run towards the store ----


def _small():
    return make_game("kalah-v0", pits=3, seeds=2)


def _blocks(game, south, north, to_move=SOUTH, stores=(0, 0)):
    position = game.state_from_json({"pits": [south, north], "stores": list(stores), "to_move": to_move})
    row = _features(game, [position])[0]
    return row[:3 * KALAH_PER_MOVE].reshape(3, KALAH_PER_MOVE), row[3 * KALAH_PER_MOVE:]


def test_a_capture_and_a_plain_sowing_with_the_replies():
    # South [1, 0, 2], North [0, 3, 1]. Action 0: the seed lands in South's empty pit 1 facing North's 3: a
    # capture of 4. North's one reply (pit 2, into its store) empties its row: South takes its 2 leftovers, so
    # the reply loses North a seed (gain -1) and the move nets 5. Action 2: one seed into the store, one into
    # North's row; North's replies gain 0, 1 (into the store in passing), 1 (into the store, an extra turn).
    game = _small()
    blocks, summary = _blocks(game, [1, 0, 2], [0, 3, 1])
    assert blocks[0].tolist() == pytest.approx([1, 1 / 2, 4 / 2, 1, 0, 0, 0, 2 / 12, 1 / 12, -1 / 2, 0, 0, 0, 5 / 2])
    assert not blocks[1].any()  # an empty pit
    assert blocks[2].tolist() == pytest.approx([1, 2 / 2, 1 / 2, 0, 0, 0, 0, 1 / 12, 5 / 12, 1 / 2, 2 / 3, 0, 0, 0])
    # best gain, best net, share moving again, legal moves, lead / T, seeds in the rows / T
    assert summary.tolist() == pytest.approx([4 / 2, 5 / 2, 0, 2 / 3, 0, 7 / 12])


def test_an_extra_turn_reads_the_movers_own_next_move():
    # South [0, 2, 1], North [1, 1, 1]: both moves end in the store, and the next move banks one more.
    game = _small()
    blocks, summary = _blocks(game, [0, 2, 1], [1, 1, 1])
    assert blocks[1].tolist() == pytest.approx([1, 2 / 2, 1 / 2, 0, 1, 0, 0, 2 / 12, 3 / 12, 0, 0, 0, 1 / 2, 2 / 2])
    assert blocks[2].tolist() == pytest.approx([1, 1 / 2, 1 / 2, 0, 1, 0, 0, 2 / 12, 3 / 12, 0, 0, 0, 1 / 2, 2 / 2])
    assert summary.tolist() == pytest.approx([1 / 2, 2 / 2, 2 / 3, 2 / 3, 0, 6 / 12])


def test_the_last_move_ends_the_game_with_its_result():
    # North [0, 0, 1] with stores 5-4 for South: North's seed goes into its store and leaves its row empty, so
    # the game ends and South takes its 2 leftovers: 7-5, North loses.
    game = _small()
    blocks, _ = _blocks(game, [2, 0, 0], [0, 0, 1], to_move=NORTH, stores=(5, 4))
    assert blocks[2].tolist() == pytest.approx([1, 1 / 2, -1 / 2, 0, 0, 1, -1, 0, 0, 0, 0, 0, 0, -1 / 2])


def test_the_chosen_start_has_no_move_features():
    with pytest.raises(MoveFeatureError, match="chosen_start"):
        move_feature_set("moves", make_game("kalah-chosen-start-v0"))
    assert features_into_for(kalah.KERNEL) is kalah_features_into
    assert features_into_for(kalah.KERNEL_CHOSEN_START) is not kalah_features_into


@pytest.mark.parametrize("env_id", KALAH_IDS)
def test_kalah_move_features_are_the_kernels_afterstates(env_id):
    """The jitted features (the numpy entry point and the function Kalah's search loops compile in) equal
    the Python computation over ``State.apply`` on random positions; the state is left as it was."""
    game = make_game(env_id)
    features = move_feature_set("moves", game)
    actions = game.options["pits"] * game.options["directions"]
    assert features.width == actions * KALAH_PER_MOVE + KALAH_SUMMARY
    assert features.version == KALAH_FEATURES.version == 1
    rows = features_match_reference(game, features, random_positions(game, 80, seed=17), kalah_reference,
                                    kalah_features_into)
    blocks = rows[:, :actions * KALAH_PER_MOVE].reshape(len(rows), actions, KALAH_PER_MOVE)
    extra_turns = game.options["extra_turn"]
    for column, occurs in ((3, game.options["capture"]), (4, extra_turns), (9, True), (12, extra_turns)):
        assert blocks[:, :, column].any() or not occurs, column  # captures, extra turns, replies, follow-ups
    assert extra_turns or not blocks[:, :, [4, 12]].any()  # without extra turns: no follow-up


# -- an evaluation whose policy alone reads them ---------------------------------------------------


def _policy_features_evaluation(game, tmp_path, seed=5):
    """A random evaluation whose policy (with shared move weights and a move scorer) reads the move features
    and whose value does not (``features_heads="policy"``)."""
    features = move_feature_set("moves", game)
    plain, width = input_width(game, "onehot"), input_width(game, "onehot", "moves")
    rng = np.random.default_rng(seed)
    value = [(rng.normal(size=(plain, 10)) / np.sqrt(plain), rng.normal(size=10)), (rng.normal(size=(10, 1)), rng.normal(size=1))]
    policy = [(rng.normal(size=(width, game.num_actions)) * 0.1, rng.normal(size=game.num_actions))]
    sizes = [scorer_width(features), 6, 1]
    scorer = [(rng.normal(size=(a, b)), rng.normal(size=b)) for a, b in zip(sizes, sizes[1:])]
    save_evaluation(tmp_path, game, "onehot", "relu", value, policy, score_scale=0.25, features="moves",
                    policy_move=rng.normal(size=KALAH_PER_MOVE), move_scorer=scorer, features_heads="policy")
    return tmp_path


def test_a_policy_alone_with_move_features_equals_its_numpy_pass(tmp_path):
    game = make_game("kalah-v0")
    evaluation = load_evaluation(_policy_features_evaluation(game, tmp_path), game)
    assert evaluation.features_heads == "policy" and evaluation.features.name == "moves"
    positions, obs, states = live_positions(game, 25, seed=3)
    values, references = evaluation.value(obs), evaluation.policy_logits(obs, states=states)
    net, logits = evaluation.net(), np.zeros(game.num_actions)
    for position, o, value, reference in zip(positions, obs, values, references):
        net.obs[:] = o
        load_features(net, position)
        net_policy(net, net.obs, logits)
        assert np.allclose(logits, reference, rtol=1e-5, atol=1e-5)
        assert net_value(net, net.obs) == pytest.approx(value, rel=1e-5, abs=1e-5)
    assert np.std(values) > 0
    agent = LearnedPolicyAgent(tmp_path, seed=1)
    assert agent.act(positions[4]) == int(np.argmax(np.where(positions[4].action_mask() != 0, references[4], -np.inf)))


def test_alpha_beta_never_computes_features_only_the_policy_reads(tmp_path):
    game = make_game("kalah-v0")
    run = _policy_features_evaluation(game, tmp_path)
    evaluation = load_evaluation(run, game)
    assert evaluation.net().has_features and not evaluation.net(policy=False).has_features
    searcher = make_agent(f"alphabeta:depth=3,eval={run}", seed=1)
    agents = [searcher, make_agent(f"mcts:sims=40,eval={run}", seed=1), LearnedPolicyAgent(run, seed=1)]
    agents_play_legal_moves(agents, game.new_state(4), 30)
    assert not searcher._net.feats.any()  # its loops were never asked for them


def test_features_heads_are_checked(tmp_path):
    game = make_game("kalah-v0")
    width = input_width(game, "onehot")
    value = [(np.zeros((width, 1)), np.zeros(1))]
    with pytest.raises(EvalFileError, match="features_heads must be one of both, policy"):
        save_evaluation(tmp_path, game, "onehot", "relu", value, features="moves", features_heads="value")
    with pytest.raises(EvalFileError, match="needs move features"):
        save_evaluation(tmp_path, game, "onehot", "relu", value, features_heads="policy")


# -- the trainer: value.policy.features ------------------------------------------------------------


def test_policy_features_change_the_policy_only_and_the_file_says_so(tmp_path):
    # value.policy.features=moves (the main job's): the policy reads Kalah's move features, the value does not, so
    # the games and the value head are those of a run without them; the file records features_heads "policy".
    from pathlib import Path

    from mancala_envs.training.checkpoint import RunState
    from mancala_envs.training.config import ConfigError, load_config
    from mancala_envs.training.search_bootstrap import SearchBootstrapTrainer

    quick = Path(__file__).resolve().parents[1] / "configs" / "kalah-v0-quick.yaml"

    def trained(name: str, *overrides: str):
        config = load_config(quick, ["value.iterations=2", "value.games=2", "value.depth=1", "value.workers=1",
                                     "value.eval_every=100", "eval.final_openings=1", "eval.ladder=[random]",
                                     "eval.ladder_openings=0", f"runs_dir={tmp_path}", *overrides])
        SearchBootstrapTrainer(config, tmp_path / name, RunState(), echo=lambda text: None).run()
        return load_evaluation(tmp_path / name)

    base = trained("base", "value.policy.features=none", "value.policy.move_hidden=[]")
    featured = trained("featured", "value.policy.move_hidden=[6]")
    assert featured.features_heads == "policy" and featured.move_scorer is not None
    for (w, b), (w2, b2) in zip(base.value_layers, featured.value_layers, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    assert featured.policy_layers[0][0].shape[0] == base.policy_layers[0][0].shape[0] + featured.features.width
    with pytest.raises(ConfigError, match="value.features: moves already gives the move features to both heads"):
        load_config(quick, ["value.features=moves"])
