"""Learned evaluations: encodings, the evaluation file, the jitted forward pass, eval= agents."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents.learned.learned_eval import (
    EvalFileError,
    LearnedPolicyAgent,
    input_width,
    load_evaluation,
    net_policy,
    net_value,
    load_features,
    save_evaluation,
    own_evaluation,
    scorer_width,
)
from mancala_envs.agents.mcts import mcts_search
from mancala_envs.agents.search import WIN_BONUS, search
from mancala_envs.agents.specs import AgentSpecError, make_agent
from mancala_envs.core.encodings import ENCODINGS, MAX_LEVELS, encode, encoding_spec
from mancala_envs.agents.learned.move_features import (MOVE_FEATURES, MoveFeatureError, features_into_for,
                                                       move_feature_set, move_features, no_features_into)
from mancala_envs.games.widdershins import pass_turn
from mancala_envs.core.game import State
from mancala_envs.registry import make_game

IDS = mancala_envs.list_envs()


def random_network(game, encoding, hidden, seed, policy=True):
    rng = np.random.default_rng(seed)
    spec = encoding_spec(encoding, game.observation_size, game.observation_bounds())
    sizes = [spec.width, *hidden, 1]
    value = [(rng.normal(size=(a, b)) / np.sqrt(a) * 3, rng.normal(size=b) * 0.1) for a, b in zip(sizes, sizes[1:])]
    heads = {"value": value}
    if policy:
        psizes = [spec.width, *hidden, game.num_actions]
        heads["policy"] = [(rng.normal(size=(a, b)) / np.sqrt(a), rng.normal(size=b)) for a, b in zip(psizes, psizes[1:])]
    return heads


def features_match_reference(game, features, positions, reference, loop_function):
    """The numpy features (``move_features``) of ``positions`` equal ``reference(game, position)``
    and, position by position, the jitted loop's (the kernel's ``features_into_for``, which must
    be ``loop_function``), which leaves the state unchanged. Returns the rows."""
    states = np.array([p.array for p in positions])
    observations = np.array([p.observation(p.current_player if p.current_player >= 0 else 0) for p in positions])
    rows = move_features(features, game.params, states, observations)
    loop_features = features_into_for(game.kernel)
    assert loop_features is loop_function
    one = np.zeros(features.width, np.float32)
    for position, state, obs, row in zip(positions, states, observations, rows):
        assert np.allclose(row, reference(game, position), atol=1e-6)
        before = state.copy()
        loop_features(features.layout, state, game.params, obs, one)
        assert np.array_equal(one, row) and np.array_equal(state, before)
    return rows


def agents_play_legal_moves(agents, state, plies):
    """``agents`` take turns on ``state`` for up to ``plies`` plies (or to the game's end), each move legal."""
    for ply in range(plies):
        if state.is_terminal():
            break
        action = agents[ply % len(agents)].act(state)
        assert state.is_legal(action)
        state.apply(action)


def random_positions(game, count, seed):
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = game.new_state(int(rng.integers(1000)))
        while not state.is_terminal() and len(positions) < count:
            positions.append(state.clone())
            state.apply(int(rng.choice(state.legal_actions())))
    return positions


def live_positions(game, count, seed):
    """Up to ``count`` random positions still in play, with their mover's observations and states."""
    positions = [p for p in random_positions(game, count + 5, seed=seed) if not p.is_terminal()][:count]
    return positions, np.array([p.observation(p.current_player) for p in positions]), np.array([p.array for p in positions])


def test_encodings_of_a_known_observation():
    spec = encoding_spec("onehot", 3, (0.0, 48.0))
    assert spec.levels == MAX_LEVELS and spec.per_entry == MAX_LEVELS + 1
    out = encode(spec, np.array([0.0, 4.0, 30.0], np.float32))
    row = out.reshape(3, MAX_LEVELS + 1)
    assert row[0, 0] == 1 and row[1, 4] == 1 and row[2, MAX_LEVELS - 1] == 1  # 30 falls in "15 or more"
    assert row[:, :MAX_LEVELS].sum() == 3
    assert np.allclose(row[:, MAX_LEVELS], [0, 4 / 48, 30 / 48])
    thermo = encode(encoding_spec("thermometer", 1, (0.0, 3.0)), np.array([2.0], np.float32))
    assert thermo.tolist() == [1.0, 1.0, 0.0, pytest.approx(2 / 3)]
    assert encode(encoding_spec("counts", 2, (0.0, 9.0)), np.array([[3.0, 7.0]], np.float32)).tolist() == [[3.0, 7.0]]
    with pytest.raises(ValueError, match="unknown observation encoding 'bits'; encodings are counts"):
        encoding_spec("bits", 3, (0.0, 1.0))


@pytest.mark.parametrize("env_id", IDS)
def test_jitted_forward_pass_equals_numpy(env_id, tmp_path):
    game = make_game(env_id)
    positions = random_positions(game, 25, seed=len(env_id))
    obs = np.array([p.observation(p.current_player) for p in positions])
    for k, encoding in enumerate(ENCODINGS):
        heads = random_network(game, encoding, [12, 7] if k % 2 else [9], seed=k)
        save_evaluation(tmp_path, game, encoding, "relu" if k % 2 else "tanh", heads["value"], heads["policy"])
        evaluation = load_evaluation(tmp_path, game)
        net = evaluation.net()
        jitted = np.array([net_value(net, o) for o in obs])
        assert np.allclose(jitted, evaluation.value(obs), rtol=1e-5, atol=1e-5), encoding
        assert np.std(jitted) > 0, "the positions must not all look alike"
        logits = np.zeros(game.num_actions)
        for o, reference in zip(obs[:5], evaluation.policy_logits(obs[:5])):
            net_policy(net, o, logits)
            assert np.allclose(logits, reference, rtol=1e-5, atol=1e-5), encoding


@pytest.mark.slow
@pytest.mark.parametrize("env_id", IDS)
def test_eval_agents_play_every_id(env_id, tmp_path):
    game = make_game(env_id)
    heads = random_network(game, "onehot", [8], seed=1)
    save_evaluation(tmp_path, game, "onehot", "relu", heads["value"], heads["policy"])
    agents = [make_agent(f"alphabeta:depth=2,eval={tmp_path}", seed=1),
              make_agent(f"mcts:sims=30,eval={tmp_path}", seed=1), make_agent(f"policy:{tmp_path}", seed=1)]
    for agent in agents:
        state = game.new_state(3)
        for _ in range(6):
            if state.is_terminal():
                break
            action = agent.act(state)
            assert state.is_legal(action), (agent.name, action)
            state.apply(action)


def test_the_evaluation_changes_what_alphabeta_and_mcts_see(tmp_path):
    game = make_game("kalah-v0")
    state = game.new_state(0)
    heads = random_network(game, "onehot", [16], seed=4)
    save_evaluation(tmp_path, game, "onehot", "relu", heads["value"], heads["policy"])
    evaluation = load_evaluation(tmp_path)
    plain = search(state, depth=1)
    learned = search(state, depth=1, evaluation=evaluation)
    assert abs(plain.value) >= 1 or plain.value == 0  # a score difference in seeds
    # depth 1: the value is the best child's evaluation, from the mover's side
    best = -2.0
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        v = float(np.clip(evaluation.value(child.observation(child.current_player)[None])[0], -1, 1))
        best = max(best, v if child.current_player == state.current_player else -v)
    assert learned.value == pytest.approx(best, abs=1e-6)
    result = mcts_search(state, sims=200, seed=1, evaluation=evaluation)  # PUCT: the file has a policy
    assert sum(result.visits.values()) == 200 and all(-1 <= v <= 1 for v in result.values.values())
    timed = make_agent(f"alphabeta:time=0.05,eval={tmp_path}", seed=0)
    assert state.is_legal(timed.act(state)) and timed.last.depth >= 1


FAMILY_IDS = ["kalah-v0", "afrika-v0", "progressive-v0", "rondell-v0", "widdershins-v0"]


def played_position(game, seed, plies):
    """A position ``plies`` random moves in (fewer if the game ends), with non-zero scores where the game has them."""
    rng = np.random.default_rng(seed)
    state = game.new_state(seed)
    for _ in range(plies):
        moves = state.legal_actions()
        child = state.clone()
        child.apply(int(rng.choice(moves)))
        if child.is_terminal():
            break
        state = child
    return state


@pytest.mark.parametrize("env_id", FAMILY_IDS)
def test_score_blend_values_leaves_from_the_right_side(env_id, tmp_path):
    # A network that replaced the game's own evaluation had to learn it from coarse inputs
    # (one-hot levels stop at 15; Afrika's scores reach 128, its heuristic adds the rows):
    # searches with it played worse than plain alpha-beta. The blend adds tanh(score_scale * h),
    # h plain alpha-beta's leaf value for the leaf's player to move (Afrika: its heuristic).
    game = make_game(env_id)
    heads = random_network(game, "onehot", [8], seed=2)
    save_evaluation(tmp_path, game, "onehot", "relu", heads["value"], heads["policy"], score_scale=0.3)
    evaluation = load_evaluation(tmp_path, game)
    assert evaluation.score_scale == pytest.approx(0.3)
    # a position where the blend matters (a score difference) and no move ends the game
    state = next(s for s in (played_position(game, seed, plies=30) for seed in range(5, 100))
                 if not s.is_terminal() and own_evaluation(s) != 0 and not any(_ends(s, a) for a in s.legal_actions()))
    best = -2.0
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        mover = child.current_player
        v = float(np.clip(evaluation.value(child.observation(mover)[None], [own_evaluation(child)])[0], -1, 1))
        best = max(best, v if mover == state.current_player else -v)
    assert search(state, depth=1, evaluation=evaluation).value == pytest.approx(best, abs=1e-6)


def _ends(state, action):
    child = state.clone()
    child.apply(action)
    return child.is_terminal()


def _zero_network_blend(game, folder, seed):
    """An evaluation whose network outputs 0 everywhere, blended with the score at scale 0.2:
    every leaf is valued tanh(0.2 * h), h being plain alpha-beta's own leaf value."""
    heads = random_network(game, "onehot", [8], seed=seed)
    zero = [(w * 0, b * 0) for w, b in heads["value"]]
    save_evaluation(folder, game, "onehot", "relu", zero, score_scale=0.2)
    return load_evaluation(folder, game)


@pytest.mark.parametrize("env_id", FAMILY_IDS)
def test_a_blended_untrained_network_searches_like_plain_alphabeta(env_id, tmp_path):
    # With a zero network the blend is tanh(h * s): alpha-beta's values are plain alpha-beta's
    # (its heuristic or score difference) through tanh, which keeps their order.
    game = make_game(env_id)
    evaluation = _zero_network_blend(game, tmp_path, seed=3)
    compared = 0
    for seed in range(6):
        state = played_position(game, seed, plies=4 + 3 * seed)
        if state.is_terminal():
            continue
        plain = search(state, depth=3)
        if abs(plain.value) >= WIN_BONUS / 2:
            continue  # a proven end: its value is the result, not a score difference
        learned = search(state, depth=3, evaluation=evaluation)
        assert learned.value == pytest.approx(np.tanh(0.2 * plain.value), abs=1e-9)
        compared += 1
    assert compared >= 3


@pytest.mark.parametrize("env_id", ["afrika-v0", "kalah-v0"])
def test_mcts_values_new_nodes_with_the_blend(env_id, tmp_path):
    # MCTS reads the same blended value as alpha-beta (Afrika: its heuristic, Kalah: the score difference)
    game = make_game(env_id)
    evaluation = _zero_network_blend(game, tmp_path, seed=6)
    state = next(s for s in (played_position(game, seed, plies=20) for seed in range(40))
                 if not s.is_terminal() and not any(_ends(s, a) for a in s.legal_actions()))
    moves = state.legal_actions()
    result = mcts_search(state, sims=len(moves), seed=1, evaluation=evaluation)  # each move expanded once
    assert sorted(result.visits) == sorted(moves)
    for action in moves:
        child = state.clone()
        child.apply(action)
        v = float(np.tanh(0.2 * own_evaluation(child)))
        assert result.values[action] == pytest.approx(v if child.current_player == state.current_player else -v,
                                                      abs=1e-9), action


def test_bad_and_mismatched_eval_paths_are_clear(tmp_path):
    with pytest.raises(AgentSpecError, match="no evaluation at .*nowhere.*give a run folder holding evaluation.npz"):
        make_agent(f"alphabeta:depth=2,eval={tmp_path / 'nowhere'}")
    with pytest.raises(AgentSpecError, match="is a folder without evaluation.npz"):
        make_agent(f"mcts:sims=10,eval={tmp_path}")
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    with pytest.raises(AgentSpecError, match="is not a readable evaluation file"):
        make_agent(f"alphabeta:depth=2,eval={tmp_path / 'junk.npz'}")
    kalah = make_game("kalah-v0")
    heads = random_network(kalah, "onehot", [4], seed=0, policy=False)
    save_evaluation(tmp_path, kalah, "onehot", "relu", heads["value"])
    agent = make_agent(f"alphabeta:depth=2,eval={tmp_path}")
    for other in (make_game("afrika-v0"), make_game("kalah-v0", seeds=6)):
        with pytest.raises(EvalFileError, match="was trained for kalah-v0 .* it cannot evaluate"):
            agent.act(other.new_state(0))
        with pytest.raises(EvalFileError, match="was trained for kalah-v0"):
            load_evaluation(tmp_path, other)
    with pytest.raises(EvalFileError, match="has no policy head"):
        LearnedPolicyAgent(tmp_path)
    with pytest.raises(EvalFileError, match=r"layer 0 has weight \(3, 1\).*expected weight \(255, n\)"):
        save_evaluation(tmp_path, kalah, "onehot", "relu", [(np.zeros((3, 1)), np.zeros(1))])
    with pytest.raises(EvalFileError, match="unknown encoding 'bits'"):
        save_evaluation(tmp_path, kalah, "bits", "relu", heads["value"])
    assert load_evaluation(tmp_path).game == kalah  # the failed writes left the good file alone


# -- move features (mancala_envs.agents.learned.move_features) ------------------------------------------------

MOVE_FEATURE_IDS = [i for i in IDS if make_game(i).family in ("rondell", "widdershins")]


def _features(game, features, positions):
    """The move features of ``positions`` (State objects) through the numpy entry point."""
    states = np.array([p.array for p in positions])
    obs = np.array([p.observation(p.current_player) for p in positions])
    return move_features(features, game.params, states, obs)


def _widdershins_reference(game, position):
    """Widdershins' move features computed in Python from the State API: every legal move and every
    reply played by ``State.apply`` (the kernel), the captures read from ``cards_in_play``."""
    out = np.zeros(24 * 15 + 6)
    me = position.current_player
    if me < 0:
        return out

    def diff(state, who=me):  # ``who``'s score minus the other's
        scores = state.scores()
        return scores[who] - scores[1 - who]

    def follow_up(state, who):  # ``who``'s best capture on ``state`` were it their turn (a null move)
        array = state.array.copy()
        pass_turn(array, game.params)
        null = State(game, array)
        if null.current_player != who:
            return 0
        gains = []
        for b in null.legal_actions():
            after = null.clone()
            after.apply(int(b))
            gains.append(diff(after, who) - diff(null, who))
        return max(gains)

    def line(state, plies):  # minimax over ``plies`` more plies: (result, score change) for ``me``
        if state.is_terminal():
            return (state.returns()[me], diff(state) - diff(position))
        if plies == 0:
            return (0, diff(state) - diff(position))
        values = []
        for b in state.legal_actions():
            child = state.clone()
            child.apply(int(b))
            values.append(line(child, plies - 1))
        return max(values) if state.current_player == me else min(values)

    before = game.cards_in_play(position)
    gains, nets, lines = [], [], {}
    for a in position.legal_actions():
        if a >= 24:
            continue
        child = position.clone()
        child.apply(int(a))
        after = game.cards_in_play(child)
        captured, lost = before[1 - me] - after[1 - me], before[me] - after[me]
        row = out[a * 15:(a + 1) * 15]
        gained = diff(child) - diff(position)
        row[:4] = [1, captured / 13, lost / 13, gained / 13]
        net = gained
        if child.is_terminal():
            row[4], row[5] = 1, child.returns()[me]
        else:
            replies = []
            for b in child.legal_actions():
                grandchild = child.clone()
                grandchild.apply(int(b))
                replies.append((diff(child) - diff(grandchild), grandchild.is_terminal() and grandchild.returns()[me] < 0))
            best = max(g for g, _ in replies)
            row[6:9] = [best / 13, np.mean([g > 0 for g, _ in replies]), any(lose for _, lose in replies)]
            row[10] = len(replies) / 12
            row[11] = follow_up(child, me) / 13
            net -= best
        row[9] = net / 13
        lines[a] = line(child, 2)
        row[12:14] = [lines[a][1] / 13, lines[a][0]]
        gains.append(gained)
        nets.append(net)
    if gains:
        best = max(lines.values())
        out[-6:-4] = [max(gains) / 13, max(nets) / 13]
        out[-1] = best[1] / 13
        for a, value in lines.items():
            out[a * 15 + 14] = value == best
    out[-4] = len(position.legal_actions()) / 12
    out[-3] = diff(position) / 13
    out[-2] = follow_up(position, 1 - me) / 13
    return out


@pytest.mark.parametrize("env_id", ["widdershins-v0", "widdershins-parlett-v0"])
def test_widdershins_move_features_are_the_kernels_afterstates(env_id):
    """The jitted features equal a Python computation over ``State.apply``: each move's gain (column 3)
    is the change of the mover's score difference the kernel's move makes, sow-on laps included;
    under Gering's ending the captured cards (columns 1, 2) unless the move draws by repetition."""
    game = make_game(env_id)
    features = move_feature_set("moves", game)
    positions = random_positions(game, 80, seed=11)
    rows = _features(game, features, positions)
    moved = 0
    for position, row in zip(positions, rows):
        assert np.allclose(row, _widdershins_reference(game, position), atol=1e-6)
        if env_id != "widdershins-v0":
            continue
        me = position.current_player
        for a in position.legal_actions():
            if a < 24:
                child = position.clone()
                child.apply(int(a))
                score_change = (child.scores()[me] - child.scores()[1 - me]) - (position.scores()[me] - position.scores()[1 - me])
                assert row[a * 15 + 3] * 13 == pytest.approx(score_change)
                if game.info(child).get("end") != "repetition":  # a repetition draw scores 0-0
                    assert row[a * 15 + 3] == pytest.approx(row[a * 15 + 1] - row[a * 15 + 2])
                moved += 1
    assert env_id != "widdershins-v0" or moved > 200
    assert rows[:, 3:360:15].any() and rows[:, 6:360:15].any() and rows[:, 11:360:15].any()  # all occur
    assert rows[:, 12:360:15].any() and rows[:, 14:360:15].any()
    assert env_id != "widdershins-v0" or rows[:, 13:360:15].any()  # a line that ends the game


@pytest.mark.parametrize("env_id", MOVE_FEATURE_IDS)
def test_jitted_forward_pass_with_move_features_equals_numpy(env_id, tmp_path):
    game = make_game(env_id)
    positions, obs, states = live_positions(game, 25, seed=3)
    width = input_width(game, "scaled", "moves")
    rng = np.random.default_rng(5)
    sizes = [width, 10, 1]
    value = [(rng.normal(size=(a, b)), rng.normal(size=b)) for a, b in zip(sizes, sizes[1:])]
    policy = [(rng.normal(size=(width, game.num_actions)), rng.normal(size=game.num_actions))]
    features = move_feature_set("moves", game)
    shared = rng.normal(size=features.per_block)
    save_evaluation(tmp_path, game, "scaled", "relu", value, policy, score_scale=0.2, features="moves",
                    policy_move=shared)
    evaluation = load_evaluation(tmp_path, game)
    assert evaluation.features.name == "moves" and np.allclose(evaluation.policy_move, shared)
    net = evaluation.net()
    jitted, logits = [], np.zeros(game.num_actions)
    references = evaluation.policy_logits(obs, states=states)
    for p, o, reference in zip(positions, obs, references):
        net.obs[:] = o
        load_features(net, p)
        jitted.append(net_value(net, net.obs))
        net_policy(net, net.obs, logits)
        assert np.allclose(logits, reference, rtol=1e-5, atol=1e-5)
    jitted = np.array(jitted)
    assert np.allclose(jitted, evaluation.value(obs, states=states), rtol=1e-5, atol=1e-5)
    rows = evaluation.feature_rows(states, obs)
    assert np.allclose(jitted, evaluation.value(obs, rows=rows), rtol=1e-5, atol=1e-5)
    assert np.std(jitted) > 0
    with pytest.raises(EvalFileError, match="move features are computed from the game's states"):
        evaluation.value(obs)
    state = game.new_state(1)
    agent = make_agent(f"alphabeta:depth=2,eval={tmp_path}", seed=1)
    assert state.is_legal(agent.act(state))
    policy_agent = LearnedPolicyAgent(tmp_path, seed=1)
    assert policy_agent.act(positions[4]) == int(np.argmax(np.where(positions[4].action_mask() != 0, references[4], -np.inf)))


def test_an_evaluation_of_older_widdershins_features_is_refused(tmp_path):
    """A file written with version 1 of Widdershins' move features (first landings read from the
    observation; files without ``features_version``) has weights for other columns: refused clearly."""
    game = make_game("widdershins-v0")
    layer = [(np.zeros((input_width(game, "scaled", "moves"), 1)), np.zeros(1))]
    path = save_evaluation(tmp_path, game, "scaled", "relu", layer, features="moves")
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files if k != "features_version"}
    np.savez(path, **arrays)
    with pytest.raises(EvalFileError, match="version 1 of widdershins's move features; this package computes version 3"):
        load_evaluation(tmp_path, game)


def test_an_evaluation_of_another_feature_set_is_refused(tmp_path):
    """The file names the game's feature set (``features_set``) beside its version: a file naming another
    set is refused; a file without the name (written before the sets were named) reads as the game's own."""
    game = make_game("widdershins-v0")
    layer = [(np.zeros((input_width(game, "scaled", "moves"), 1)), np.zeros(1))]
    path = save_evaluation(tmp_path, game, "scaled", "relu", layer, features="moves")
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    assert str(arrays["features_set"]) == "widdershins" and int(arrays["features_version"]) == 3
    np.savez(path, **{**arrays, "features_set": "rondell"})
    with pytest.raises(EvalFileError, match="trained on the 'rondell' move features; this game's are 'widdershins'"):
        load_evaluation(tmp_path, game)
    np.savez(path, **{k: v for k, v in arrays.items() if k != "features_set"})
    assert load_evaluation(tmp_path, game).features.feature_set is MOVE_FEATURES[type(game)]


def test_each_game_declares_its_move_features():
    """``MOVE_FEATURES`` maps each Game class to the set its module declares: a game's set is found from the
    game (``move_feature_set``) and from its kernel (``features_into_for``), and pickles by name."""
    assert {cls.family for cls in MOVE_FEATURES} == {"rondell", "widdershins", "progressive", "kalah"}
    for env_id in IDS:
        game = make_game(env_id)
        declared = MOVE_FEATURES.get(type(game))
        if declared is not None and game.options.get("chosen_start"):  # Kalah's setup phases are not sowings
            assert features_into_for(game.kernel) is no_features_into
            with pytest.raises(MoveFeatureError, match="chosen_start"):
                move_feature_set("moves", game)
            continue
        if declared is None:
            assert features_into_for(game.kernel) is no_features_into
            with pytest.raises(MoveFeatureError, match=f"the {game.family} family has no move features"):
                move_feature_set("moves", game)
            continue
        features = move_feature_set("moves", game)
        assert declared.game is type(game) and features.feature_set is declared
        assert features_into_for(game.kernel) is declared.features_into
        assert features.width == features.blocks * declared.per_block + declared.summary
        assert pickle.loads(pickle.dumps(features)).feature_set is declared
    rondell = make_game("rondell-v0")  # a scratch of another width (another game's network) is left unwritten
    out = np.ones(7, np.float32)
    rondell_set = move_feature_set("moves", rondell)
    rondell_set.feature_set.features_into(rondell_set.layout, rondell.new_state(1).array, rondell.params,
                                          rondell.new_state(1).observation(0), out)
    assert not out.any()


def _scorer_file(game, tmp_path, scorer_hidden, seed=6):
    """An evaluation with move features, a policy, the shared move weights and a move scorer with
    ``scorer_hidden`` hidden layers, all random; returns the scorer's layers."""
    rng = np.random.default_rng(seed)
    width = input_width(game, "scaled", "moves")
    features = move_feature_set("moves", game)
    value = [(rng.normal(size=(width, 1)), rng.normal(size=1))]
    policy = [(rng.normal(size=(width, 7)) / 9, rng.normal(size=7)), (rng.normal(size=(7, game.num_actions)),
                                                                       rng.normal(size=game.num_actions))]
    sizes = [scorer_width(features), *scorer_hidden, 1]
    scorer = [(rng.normal(size=(a, b)), rng.normal(size=b)) for a, b in zip(sizes, sizes[1:])]
    save_evaluation(tmp_path, game, "scaled", "relu", value, policy, features="moves",
                    policy_move=rng.normal(size=features.per_block), move_scorer=scorer)
    return scorer


@pytest.mark.parametrize("env_id", MOVE_FEATURE_IDS)
def test_the_move_scorer_is_played_as_the_numpy_pass_computes_it(env_id, tmp_path):
    # value.policy.move_hidden: each move's logit adds an MLP of its block and the summary; policy:RUN and
    # MCTS's priors run the jitted pass (net_policy), which must equal the numpy one.
    game = make_game(env_id)
    positions, obs, states = live_positions(game, 20, seed=4)
    for hidden in ([5], [6, 3]):
        scorer = _scorer_file(game, tmp_path, hidden)
        evaluation = load_evaluation(tmp_path, game)
        assert len(evaluation.move_scorer) == len(hidden) + 1
        references = evaluation.policy_logits(obs, states=states)
        without = load_evaluation(tmp_path, game)
        without.move_scorer = None
        rows = evaluation.feature_rows(states, obs)
        added = references - without.policy_logits(obs, rows=rows)
        blocks = evaluation.features.blocks
        assert np.allclose(added[:, blocks:], 0) and np.std(added[:, :blocks]) > 0
        if len(hidden) == 1:  # action 2's share: the scorer on block 2, then the summary (move_features' layout)
            per = evaluation.features.per_block
            x = np.concatenate([rows[0, 2 * per:3 * per], rows[0, blocks * per:]])
            h = np.maximum(x @ scorer[0][0] + scorer[0][1], 0)
            assert added[0, 2] == pytest.approx((h @ scorer[1][0] + scorer[1][1])[0], rel=1e-5)
        net, logits = evaluation.net(), np.zeros(game.num_actions)
        for p, o, reference in zip(positions, obs, references):
            net.obs[:] = o
            load_features(net, p)
            net_policy(net, net.obs, logits)
            assert np.allclose(logits, reference, rtol=1e-5, atol=1e-5), hidden
        agent = LearnedPolicyAgent(tmp_path, seed=1)
        assert agent.act(positions[3]) == int(np.argmax(np.where(positions[3].action_mask() != 0, references[3], -np.inf)))
    state = game.new_state(2)
    assert state.is_legal(make_agent(f"mcts:sims=20,eval={tmp_path}", seed=1).act(state))


def test_a_move_scorer_comes_with_its_own_file_format(tmp_path):
    # A package that cannot play a move scorer must refuse the file rather than play the policy without it:
    # files with one are format mancala-eval-2; files without stay mancala-eval-1, as before.
    game = make_game("widdershins-v0")
    _scorer_file(game, tmp_path, [4])
    path = tmp_path / "evaluation.npz"
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    assert str(arrays["format"]) == "mancala-eval-2" and int(arrays["move_scorer_layers"]) == 2
    np.savez(path, **{**arrays, "format": "mancala-eval-1"})
    with pytest.raises(EvalFileError, match="format 'mancala-eval-1' with a move scorer .* with format 'mancala-eval-2' only"):
        load_evaluation(tmp_path, game)
    plain = {k: v for k, v in arrays.items() if not k.startswith("move_scorer")}
    np.savez(path, **plain)
    with pytest.raises(EvalFileError, match="format 'mancala-eval-2' without a move scorer"):
        load_evaluation(tmp_path, game)
    np.savez(path, **{**plain, "format": "mancala-eval-1"})
    assert load_evaluation(tmp_path, game).move_scorer is None  # the file as saved without a scorer
    np.savez(path, **{**arrays, "format": "mancala-eval-3"})
    with pytest.raises(EvalFileError, match="format 'mancala-eval-3' is not supported; this package reads "
                                            "'mancala-eval-1' and 'mancala-eval-2'"):
        load_evaluation(tmp_path, game)
    width = input_width(game, "scaled", "moves")
    value = [(np.zeros((width, 1)), np.zeros(1))]
    policy = [(np.zeros((width, game.num_actions)), np.zeros(game.num_actions))]
    with pytest.raises(EvalFileError, match=r"\(move scorer\): layer 0 has weight \(3, 1\) and bias \(1,\); "
                                            r"expected weight \(21, n\)"):
        save_evaluation(tmp_path, game, "scaled", "relu", value, policy, features="moves",
                        move_scorer=[(np.zeros((3, 1)), np.zeros(1))])
    with pytest.raises(EvalFileError, match="a move scorer needs a policy head and move features"):
        save_evaluation(tmp_path, game, "scaled", "relu", value, features="moves",
                        move_scorer=[(np.zeros((21, 1)), np.zeros(1))])
    kalah = make_game("kalah-v0")
    with pytest.raises(EvalFileError, match="a move scorer needs a policy head and move features"):
        save_evaluation(tmp_path, kalah, "onehot", "relu", [(np.zeros((input_width(kalah, "onehot"), 1)), np.zeros(1))],
                        [(np.zeros((input_width(kalah, "onehot"), 6)), np.zeros(6))],
                        move_scorer=[(np.zeros((1, 1)), np.zeros(1))])


def test_move_features_bad_input_is_clear(tmp_path):
    afrika = make_game("afrika-v0")
    with pytest.raises(MoveFeatureError, match="the afrika family has no move features \\(feature set 'moves' exists "
                                               "for kalah, progressive, rondell and widdershins\\)"):
        move_feature_set("moves", afrika)
    assert move_feature_set("none", afrika).width == 0
    with pytest.raises(MoveFeatureError, match="unknown feature set 'cards'; feature sets are none, moves"):
        move_feature_set("cards", make_game("rondell-v0"))
    with pytest.raises(EvalFileError, match="no move features"):
        save_evaluation(tmp_path, afrika, "onehot", "relu", [(np.zeros((1, 1)), np.zeros(1))], features="moves")
    rondell = make_game("rondell-v0")
    layer = [(np.zeros((input_width(rondell, "scaled", "moves"), 1)), np.zeros(1))]
    with pytest.raises(EvalFileError, match="policy_move_weights need a policy head"):
        save_evaluation(tmp_path, rondell, "scaled", "relu", layer, features="moves", policy_move=np.zeros(11))
    policy = [(np.zeros((input_width(rondell, "scaled", "moves"), rondell.num_actions)), np.zeros(rondell.num_actions))]
    with pytest.raises(EvalFileError, match="policy_move_weights must be 11 finite numbers"):
        save_evaluation(tmp_path, rondell, "scaled", "relu", layer, policy, features="moves", policy_move=np.zeros(3))
    with pytest.raises(EvalFileError, match="layer 0 has weight"):  # the width must count the features
        width = encoding_spec("scaled", rondell.observation_size, rondell.observation_bounds()).width
        save_evaluation(tmp_path, rondell, "scaled", "relu", [(np.zeros((width, 1)), np.zeros(1))], features="moves")
