"""Learned evaluations: the ``evaluation.npz`` file of a run, and its network compiled by numba.

A run folder that can serve as ``eval=RUN_DIR`` (``alphabeta:depth=6,eval=RUN_DIR``,
``mcts:sims=800,eval=RUN_DIR``) holds ``RUN_DIR/evaluation.npz`` (``numpy.savez``, written
to a temporary name and renamed). Its keys:

========================================  ==========================================================
key                                       value
========================================  ==========================================================
``format``                                ``"mancala-eval-1"``; ``"mancala-eval-2"`` for a file with a
                                          move scorer (``move_scorer_*``), so a package that cannot
                                          play the scorer refuses the file instead of dropping it
``env_id``, ``options``                   the trained game: its id and its options as a JSON
                                          string; loading it for another game or board is refused
``encoding``                              a name of ``mancala_envs.core.encodings.ENCODINGS``: how
                                          the mover's observation ``state.observation(mover)`` is
                                          turned into the network's input
``activation``                            ``"relu"`` or ``"tanh"`` (hidden layers; the last is linear)
``value_layers``, ``value_weight_{i}``,   an MLP, layer ``i`` = (in, out) float32 weights and (out,)
``value_bias_{i}``                        biases; the last has out = 1: the expected result for the
                                          player to move, on the scale [-1, 1] (search clips it)
``policy_layers``, ``policy_weight_{i}``,  optional: action logits (out = ``num_actions``), used as
``policy_bias_{i}``                       PUCT priors by MCTS and played by ``policy:RUN_DIR``
``policy_move_weights``                   optional, with move features: float32 (per_block,), one weight
                                          per column of a move's block, shared by every move: action
                                          ``a``'s logit adds ``block(a) @ w`` (``MoveFeatures.blocks``,
                                          ``per_block``), so what is learned of one move carries to all
``move_scorer_layers``,                   optional, with move features and a policy: the *move scorer*,
``move_scorer_weight_{i}``,               an MLP with one output shared by every move: action ``a``'s
``move_scorer_bias_{i}``                  logit adds ``MLP(block(a), summary)``, its input the move's
                                          block then the features' summary columns (``per_block`` +
                                          summary); a non-linear reading of what each move does
``source``                                who wrote it (``"ppo"``, ``"search-bootstrap"``, ...)
``features``                              optional, default ``"none"``: ``"moves"`` appends the game's
                                          move features (``mancala_envs.agents.learned.move_features``:
                                          what each move captures and what the opponent can capture
                                          in reply) to the encoded observation; the layers' input
                                          width counts them
``features_set``                          with ``"moves"``: the name of the game's feature set
                                          (``MoveFeatureSet.name``); a file without it (written before
                                          the sets were named) has the game's own set; a file of
                                          another set is refused
``features_heads``                        optional, default ``"both"``: with ``"moves"``, the heads whose
                                          input has the move features: ``"both"``, or ``"policy"`` (the
                                          value's input is the encoded observation alone, so a search
                                          that reads only the value, alpha-beta, never computes them)
``features_version``                      with ``"moves"``: the version of the set's columns
                                          (``MoveFeatureSet.version``; a file without it has version
                                          1); a file of another version is refused
``score_scale``                           optional float, default 0: with ``s > 0`` the value of a
                                          position is ``tanh(s * h)`` plus the network's output,
                                          ``h`` the game's own evaluation for the player to move
                                          (``own_evaluation``: ``Game.search_heuristic`` where the
                                          game has one, else the score difference): the network
                                          learns a correction of plain alpha-beta's evaluation
========================================  ==========================================================

``save_evaluation`` writes one, ``load_evaluation`` reads and checks it (clear errors for a
missing file, a corrupt one, wrong shapes, another game's weights). ``LearnedEval.net()``
packs the weights into an ``EvalNet``: flat arrays plus offsets, the same numba types for
every weight set and depth of network, so the search loops compiled once take any
evaluation as an argument (no recompilation, no Python call per node). ``net_value`` and
``net_policy`` are the jitted forward passes; ``LearnedEval.value`` and ``.policy_logits``
are the numpy ones on batches (the reference the tests compare the jitted pass with).
Move features are computed from the position's state by the game's kernel (it plays every
move on a copy), so a caller of the jitted passes first loads them, the observation already in
``net.obs``: a search loop with ``features_loader(kernel)`` (it compiles in only that game's
set), a Python caller with ``load_features(net, state)``. The numpy passes take the positions'
states (``states=``) or their feature rows (``rows=``). A loop computes them only where a head it
runs reads them: ``LearnedEval.net(policy=False)`` (alpha-beta, which never runs the policy) packs a
network whose loader skips them when only the policy reads them (``features_heads: "policy"``).

With ``score_scale`` (the *score blend*) a search with an untrained network plays exactly
as plain alpha-beta (``tanh`` keeps the order of the values), so what the network learns
adds to the game's own evaluation; without it (0, files written by PPO) the network alone
values a position. On Afrika, alpha-beta on the captured difference alone loses clearly to
plain alpha-beta on Afrika's heuristic (which adds the row difference), and a network alone
sees scores up to 128 only through one-hot levels that stop at 15. ``blended_value(net, obs,
h)`` is the jitted blended value, ``LearnedEval.value`` with ``own=`` the numpy one.

``LearnedPolicyAgent`` plays the file's policy head greedily, with no search: the bare
network of a run trained by ``mancala_envs.training.search_bootstrap``.
"""

from __future__ import annotations

import functools
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import numpy as np
from numba import njit

from mancala_envs.core.compiled import cached_njit
from mancala_envs.core.encodings import ENCODINGS, EncodingSpec, encode, encoding_spec, first_layer_into
from mancala_envs.core.errors import MancalaError
from mancala_envs.core.files import atomic_output
from mancala_envs.core.game import Game, State
from mancala_envs.agents.learned.move_features import (NO_MOVE_FEATURES, MoveFeatureError, MoveFeatures,
                                                       features_into_for, move_feature_set, move_features)
from mancala_envs.registry import make_game

from mancala_envs.agents.base import Agent

__all__ = ["EVAL_FILE", "EVAL_FORMAT", "EVAL_FORMATS", "EvalFileError", "EvalNet", "LearnedEval", "LearnedPolicyAgent",
           "blended_value", "input_width", "features_loader", "load_evaluation", "load_features", "net_policy", "net_value", "network_input",
           "own_evaluation", "save_evaluation", "scorer_inputs", "scorer_width"]

EVAL_FORMAT = "mancala-eval-1"
EVAL_FORMAT_SCORER = "mancala-eval-2"  # a file with a move scorer (an older package refuses it)
EVAL_FORMATS = (EVAL_FORMAT, EVAL_FORMAT_SCORER)
#: The heads whose input has the move features (file key ``features_heads``): both, or the policy alone.
FEATURES_HEADS = ("both", "policy")
EVAL_FILE = "evaluation.npz"
ACTIVATIONS = {"relu": 0, "tanh": 1}

Layers = Sequence[tuple[np.ndarray, np.ndarray]]


class EvalFileError(MancalaError):
    """An ``eval=`` path or ``evaluation.npz`` that cannot be used (missing, corrupt, another game)."""


def options_json(game: Game) -> str:
    """The game's options as the JSON string the file stores (keys sorted)."""
    return json.dumps(game.options, sort_keys=True, default=str)


def _same_board(stored: str, game: Game) -> bool:
    """Whether stored options describe ``game``'s board and rules (the ply cap may differ)."""
    a, b = json.loads(stored), json.loads(options_json(game))
    a.pop("max_plies", None)
    b.pop("max_plies", None)
    return a == b


def resolve_eval_path(path: str | Path) -> Path:
    """The evaluation file behind ``path``: a run folder (its ``evaluation.npz``) or the file itself."""
    p = Path(path)
    if p.is_dir():
        if not (p / EVAL_FILE).is_file():
            raise EvalFileError(
                f"{str(p)!r} is a folder without {EVAL_FILE}: give a run folder written by 'mancala train' "
                f"(a value trainer's run, or a PPO run that exported its value head) or an {EVAL_FILE} file"
            )
        return p / EVAL_FILE
    if not p.is_file():
        raise EvalFileError(f"no evaluation at {str(p)!r}: give a run folder holding {EVAL_FILE} or the file itself")
    return p


# -- writing ------------------------------------------------------------------------------


def _check_layers(what: str, layers: Layers, inputs: int, outputs: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The layers as float32 arrays; EvalFileError unless they chain from ``inputs`` to ``outputs``."""
    if len(layers) < 1:
        raise EvalFileError(f"{what}: a network needs at least one layer")
    out = []
    width = inputs
    for i, (w, b) in enumerate(layers):
        w = np.asarray(w, dtype=np.float32)
        b = np.asarray(b, dtype=np.float32)
        if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
            raise EvalFileError(
                f"{what}: layer {i} has weight {w.shape} and bias {b.shape}; expected weight ({width}, n) "
                f"and bias (n,)"
            )
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise EvalFileError(f"{what}: layer {i} holds NaN or infinite numbers")
        out.append((w, b))
        width = w.shape[1]
    if width != outputs:
        raise EvalFileError(f"{what}: the last layer has {width} outputs; expected {outputs}")
    return out


def save_evaluation(path: str | Path, game: Game, encoding: str, activation: str, value: Layers,
                    policy: Layers | None = None, source: str = "", score_scale: float = 0.0,
                    features: str = "none", policy_move: np.ndarray | None = None,
                    move_scorer: Layers | None = None, features_heads: str = "both") -> Path:
    """Write an evaluation file for ``game`` (``path``: a run folder or a .npz file); returns its path.

    ``value`` and ``policy`` are lists of (weight (in, out), bias (out,)) pairs, first layer
    first; the input width is the encoding's (``encoding_spec``), the value's last layer has
    one output, the policy's ``game.num_actions``. ``score_scale`` > 0 blends the score
    difference into the value (module docstring); ``features`` ``"moves"`` adds the game's move
    features to the input (``input_width``), and ``policy_move`` (with them and a policy) the
    policy's weights shared by every move's block, ``move_scorer`` (the same) the layers of the
    MLP scoring every move from its block and the summary (module docstring); ``features_heads``
    ``"policy"``: the value's input is the encoded observation alone.
    """
    p = Path(path)
    target = p / EVAL_FILE if p.is_dir() or p.suffix != ".npz" else p
    spec = _spec_for(game, encoding, str(target))
    feats = _features_for(game, features, str(target))
    if activation not in ACTIVATIONS:
        raise EvalFileError(f"{target}: activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    _check_score_scale(score_scale, str(target))
    _check_features_heads(features_heads, feats, str(target))
    arrays: dict[str, Any] = {
        "format": EVAL_FORMAT if move_scorer is None else EVAL_FORMAT_SCORER, "env_id": game.env_id, "options": options_json(game), "encoding": encoding,
        "activation": activation, "source": str(source), "score_scale": float(score_scale), "features": features,
        "features_version": feats.version, "features_heads": features_heads,
    }
    if feats.feature_set is not None:
        arrays["features_set"] = feats.feature_set.name
    for head, layers, outputs in (("value", value, 1), ("policy", policy, game.num_actions)):
        if layers is None:
            continue
        checked = _check_layers(f"{target} ({head})", layers, _head_width(spec, feats, features_heads, head), outputs)
        arrays[f"{head}_layers"] = len(checked)
        for i, (w, b) in enumerate(checked):
            arrays[f"{head}_weight_{i}"] = w
            arrays[f"{head}_bias_{i}"] = b
    if policy_move is not None:
        arrays["policy_move_weights"] = _check_move_weights(policy_move, feats, policy is not None, str(target))
    if move_scorer is not None:
        checked = _check_move_scorer(move_scorer, feats, policy is not None, str(target))
        arrays["move_scorer_layers"] = len(checked)
        for i, (w, b) in enumerate(checked):
            arrays[f"move_scorer_weight_{i}"] = w
            arrays[f"move_scorer_bias_{i}"] = b
    with atomic_output(target, suffix=".npz") as tmp:
        np.savez(tmp, **arrays)
    return target


def _check_move_weights(weights: np.ndarray, features: MoveFeatures, has_policy: bool, where: str) -> np.ndarray:
    w = np.asarray(weights, np.float32)
    if not has_policy or features.per_block == 0:
        raise EvalFileError(f"{where}: policy_move_weights need a policy head and move features (features 'moves')")
    if w.shape != (features.per_block,) or not np.isfinite(w).all():
        raise EvalFileError(f"{where}: policy_move_weights must be {features.per_block} finite numbers (one per "
                            f"column of a move's block), got shape {w.shape}")
    return w


def _check_move_scorer(layers: Layers, features: MoveFeatures, has_policy: bool, where: str):
    """The move scorer's layers, checked: from a move's block and the summary to one output."""
    if not has_policy or features.per_block == 0:
        raise EvalFileError(f"{where}: a move scorer needs a policy head and move features (features 'moves')")
    return _check_layers(f"{where} (move scorer)", layers, scorer_width(features), 1)


def scorer_width(features: MoveFeatures) -> int:
    """The move scorer's input width: one move's block, then the features' summary columns."""
    return features.per_block + features.width - features.blocks * features.per_block


def _check_features_heads(heads: str, features: MoveFeatures, where: str) -> None:
    if heads not in FEATURES_HEADS:
        raise EvalFileError(f"{where}: features_heads must be one of {', '.join(FEATURES_HEADS)}, got {heads!r}")
    if heads != "both" and not features.width:
        raise EvalFileError(f"{where}: features_heads {heads!r} needs move features (features 'moves')")


def _head_width(spec: EncodingSpec, features: MoveFeatures, heads: str, head: str) -> int:
    """The input width of ``head`` ("value" or "policy"): the encoded observation's, plus the move
    features' if the head reads them (``features_heads``)."""
    reads = heads == "both" or heads == head
    return spec.width + (features.width if reads else 0)


def _check_score_scale(score_scale: float, where: str) -> None:
    if not (np.isfinite(score_scale) and score_scale >= 0):
        raise EvalFileError(f"{where}: score_scale must be a finite number >= 0 (0: no score blend), got {score_scale!r}")


def _features_for(game: Game, features: str, where: str) -> MoveFeatures:
    try:
        return move_feature_set(features, game)
    except MoveFeatureError as err:
        raise EvalFileError(f"{where}: {err}") from None


def input_width(game: Game, encoding: str, features: str = "none") -> int:
    """The networks' input width: the encoded observation's columns, then the move features'."""
    return _spec_for(game, encoding, "input_width").width + _features_for(game, features, "input_width").width


def network_input(spec: EncodingSpec, features: MoveFeatures, observations: np.ndarray,
                  rows: np.ndarray | None = None) -> np.ndarray:
    """The networks' input for a batch of mover's observations (n, O) and, with move features,
    their feature rows (n, F) (``move_features``): float32 (n, input width)."""
    x = encode(spec, np.atleast_2d(observations))
    if not features.width:
        return x
    if rows is None or np.shape(rows) != (len(x), features.width):
        raise EvalFileError(f"the {features.name!r} move features are computed from the game's states: give "
                            f"{len(x)} feature rows of {features.width} (move_features), got "
                            f"{None if rows is None else np.shape(rows)}")
    return np.concatenate([x, np.asarray(rows, np.float32)], axis=1)


def _spec_for(game: Game, encoding: str, where: str) -> EncodingSpec:
    if encoding not in ENCODINGS:
        raise EvalFileError(f"{where}: unknown encoding {encoding!r}; encodings are {', '.join(ENCODINGS)}")
    return encoding_spec(encoding, game.observation_size, game.observation_bounds())


# -- reading ------------------------------------------------------------------------------


def _text(data: Any, key: str, where: str) -> str:
    if key not in data:
        raise EvalFileError(f"{where}: not an evaluation file of this package (no {key!r} entry)")
    return str(data[key][()])


def _read_layers(data: Any, head: str, where: str) -> list[tuple[np.ndarray, np.ndarray]] | None:
    if f"{head}_layers" not in data:
        return None
    count = int(data[f"{head}_layers"][()])
    layers = []
    for i in range(count):
        if f"{head}_weight_{i}" not in data or f"{head}_bias_{i}" not in data:
            raise EvalFileError(f"{where}: {head}_layers is {count} but {head}_weight_{i}/{head}_bias_{i} is missing")
        layers.append((data[f"{head}_weight_{i}"], data[f"{head}_bias_{i}"]))
    return layers


def load_evaluation(path: str | Path, game: Game | None = None) -> "LearnedEval":
    """Read and check the evaluation at ``path`` (a run folder or the .npz file).

    With ``game``, the file must have been trained for that game (same id and options);
    without, the game is rebuilt from the file.
    """
    file = resolve_eval_path(path)
    where = str(file)
    try:
        with np.load(file, allow_pickle=False) as data:
            fmt = _text(data, "format", where)
            if fmt not in EVAL_FORMATS:
                raise EvalFileError(f"{where}: format {fmt!r} is not supported; this package reads "
                                    f"{' and '.join(map(repr, EVAL_FORMATS))}")
            env_id, options = _text(data, "env_id", where), _text(data, "options", where)
            encoding, activation = _text(data, "encoding", where), _text(data, "activation", where)
            source = str(data["source"][()]) if "source" in data else ""
            score_scale = float(data["score_scale"][()]) if "score_scale" in data else 0.0
            features = str(data["features"][()]) if "features" in data else "none"
            version = int(data["features_version"][()]) if "features_version" in data else 1
            feature_set = str(data["features_set"][()]) if "features_set" in data else None
            heads = str(data["features_heads"][()]) if "features_heads" in data else "both"
            value = _read_layers(data, "value", where)
            policy_move = np.array(data["policy_move_weights"]) if "policy_move_weights" in data else None
            policy = _read_layers(data, "policy", where)
            move_scorer = _read_layers(data, "move_scorer", where)
    except EvalFileError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, KeyError) as err:
        raise EvalFileError(f"{where} is not a readable evaluation file (.npz): {err}") from None
    if value is None:
        raise EvalFileError(f"{where}: no value network (value_layers) in the file")
    if game is None:
        try:
            game = make_game(env_id, **json.loads(options))
        except (MancalaError, ValueError, TypeError) as err:
            raise EvalFileError(f"{where}: cannot rebuild its game {env_id} {options}: {err}") from None
    else:
        _check_same_game(where, env_id, options, game)
    if activation not in ACTIVATIONS:
        raise EvalFileError(f"{where}: activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    _check_score_scale(score_scale, where)
    spec = _spec_for(game, encoding, where)
    feats = _features_for(game, features, where)
    _check_feature_set(feats, feature_set, version, where)
    _check_features_heads(heads, feats, where)
    value = _check_layers(f"{where} (value)", value, _head_width(spec, feats, heads, "value"), 1)
    if policy is not None:
        policy = _check_layers(f"{where} (policy)", policy, _head_width(spec, feats, heads, "policy"), game.num_actions)
    if policy_move is not None:
        policy_move = _check_move_weights(policy_move, feats, policy is not None, where)
    if (move_scorer is not None) != (fmt == EVAL_FORMAT_SCORER):
        raise EvalFileError(f"{where}: format {fmt!r} with{'' if move_scorer is not None else 'out'} a move scorer "
                            f"(move_scorer_layers): a move scorer comes with format {EVAL_FORMAT_SCORER!r} only")
    if move_scorer is not None:
        move_scorer = _check_move_scorer(move_scorer, feats, policy is not None, where)
    return LearnedEval(game, spec, activation, value, policy, source, file, score_scale, feats, policy_move,
                       move_scorer, heads)


def _check_feature_set(feats: MoveFeatures, stored_set: str | None, version: int, where: str) -> None:
    """EvalFileError unless the file's feature set (``stored_set``; None: written before sets were
    named, the game's own) and ``version`` are the ones this package computes for the game."""
    declared = feats.feature_set
    if declared is None:
        return
    if stored_set is not None and stored_set != declared.name:
        raise EvalFileError(f"{where} was trained on the {stored_set!r} move features; this game's are "
                            f"{declared.name!r} (mancala_envs.agents.learned.move_features): train the run again")
    if version != declared.version:
        raise EvalFileError(
            f"{where} was trained on version {version} of {declared.name}'s move features; this package computes "
            f"version {declared.version} (mancala_envs.agents.learned.move_features), whose columns its weights "
            f"cannot read: train the run again"
        )


def _check_same_game(where: str, env_id: str, options: str, game: Game) -> None:
    if env_id != game.env_id or not _same_board(options, game):
        raise EvalFileError(
            f"{where} was trained for {env_id} with options {options}; it cannot evaluate {game.env_id} with "
            f"options {options_json(game)}: an evaluation plays only the game and board it was trained on"
        )


# -- the network for numba ----------------------------------------------------------------


class EvalNet(NamedTuple):
    """A learned evaluation as numba sees it: flat weights plus offsets (L layers; H widest layer).

    The same types for every network, so a loop compiled once takes any of them.
    """

    code: int  # encoding code (core.encodings.ENCODINGS)
    low: float  # encoding bounds and levels (core.encodings.EncodingSpec)
    scale: float
    levels: int
    relu: bool  # hidden activation: True relu, False tanh
    score_scale: float  # > 0: the value is tanh(score_scale * the game's own evaluation) + the network's output
    value_shapes: np.ndarray  # int64[L, 4]   per layer: inputs, outputs, weight offset, bias offset
    value_weights: np.ndarray  # float32[*]   every value layer's (in, out) weights, row-major, one after another
    value_biases: np.ndarray  # float32[*]
    policy_shapes: np.ndarray  # int64[L', 4]  the same for the policy head (no rows: no policy)
    policy_weights: np.ndarray  # float32[*]
    policy_biases: np.ndarray  # float32[*]
    hidden_a: np.ndarray  # float64[H]     scratch: one layer's outputs
    hidden_b: np.ndarray  # float64[H]     scratch: the next layer's
    obs: np.ndarray  # float32[O]     scratch: the mover's observation
    has_features: bool  # the loaders compute move features (a head this net runs reads them; agents.learned.move_features)
    value_features: bool  # the value head's first layer reads them
    policy_features: bool  # the policy head's first layer reads them
    feature_layout: np.ndarray  # int64[3]  their layout numbers (MoveFeatures.layout)
    encoded_width: int  # the encoded observation's columns: the move features' rows follow in the first layer
    feats: np.ndarray  # float32[F]     scratch: the move features
    move_blocks: int  # actions with a block of move features (policy_move_weights; 0: none)
    move_weights: np.ndarray  # float32[K]  the policy's weights shared by every block (K = per_block)
    scorer_blocks: int  # actions the move scorer adds to (0: no move scorer)
    scorer_per: int  # the columns of a move's block (the scorer's input: block, then the summary)
    scorer_shapes: np.ndarray  # int64[L'', 4]  the move scorer's layers, as value_shapes
    scorer_weights: np.ndarray  # float32[*]
    scorer_biases: np.ndarray  # float32[*]
    scorer_input: np.ndarray  # float64[K + summary]  scratch: one move's input

    @classmethod
    def empty(cls, observation_size: int) -> "EvalNet":
        """No evaluation (a placeholder of the right types; ``use_eval`` off)."""
        return cls._pack(0, 0.0, 1.0, 2, True, 0.0, [], [], 1, observation_size, NO_MOVE_FEATURES, 0,
                         None, None, "both", True)

    @classmethod
    def _pack(cls, code, low, scale, levels, relu, score_scale, value: Layers, policy: Layers, widest: int,
              observation_size: int, features: MoveFeatures, encoded_width: int,
              move_weights: np.ndarray | None, move_scorer: Layers | None, heads: str,
              policy_runs: bool) -> "EvalNet":
        def flat(layers):
            shapes = np.zeros((len(layers), 4), np.int64)
            w_off = b_off = 0
            for i, (w, b) in enumerate(layers):
                shapes[i] = (w.shape[0], w.shape[1], w_off, b_off)
                w_off += w.size
                b_off += b.size
            weights = np.concatenate([w.ravel() for w, _ in layers]) if layers else np.zeros(0, np.float32)
            biases = np.concatenate([b for _, b in layers]) if layers else np.zeros(0, np.float32)
            return shapes, weights.astype(np.float32), biases.astype(np.float32)

        vs, vw, vb = flat(value)
        ps, pw, pb = flat(policy)
        ss, sw, sb = flat(move_scorer or [])
        value_reads = features.width > 0 and heads == "both"
        policy_reads = features.width > 0  # with features the policy reads them (both, or the policy alone)
        return cls(int(code), float(low), float(scale), int(levels), bool(relu), float(score_scale),
                   vs, vw, vb, ps, pw, pb,
                   np.zeros(widest, np.float64), np.zeros(widest, np.float64),
                   np.zeros(observation_size, np.float32), value_reads or (policy_runs and policy_reads),
                   value_reads, policy_reads, features.layout.astype(np.int64),
                   int(encoded_width), np.zeros(max(features.width, 1), np.float32),
                   int(features.blocks if move_weights is not None else 0),
                   np.zeros(0, np.float32) if move_weights is None else np.asarray(move_weights, np.float32),
                   int(features.blocks if move_scorer else 0), int(features.per_block), ss, sw, sb,
                   np.zeros(scorer_width(features) if move_scorer else 1, np.float64))


@dataclass
class LearnedEval:
    """A checked evaluation file: the game, the encoding and the layers (numpy)."""

    game: Game
    spec: EncodingSpec
    activation: str
    value_layers: list[tuple[np.ndarray, np.ndarray]]
    policy_layers: list[tuple[np.ndarray, np.ndarray]] | None
    source: str
    path: Path | None = None
    score_scale: float = 0.0  # the score blend (module docstring); 0: the network alone
    features: MoveFeatures | None = None  # move features after the encoded observation (None: none)
    policy_move: np.ndarray | None = None  # the policy's weights shared by every move's block (None: none)
    move_scorer: list[tuple[np.ndarray, np.ndarray]] | None = None  # the MLP scoring every move (None: none)
    features_heads: str = "both"  # the heads whose input has the move features (FEATURES_HEADS)

    def __post_init__(self) -> None:
        if self.features is None:
            self.features = NO_MOVE_FEATURES

    @property
    def has_policy(self) -> bool:
        return self.policy_layers is not None

    def check_game(self, game: Game) -> None:
        """EvalFileError unless ``game`` is the game and board this evaluation was trained for."""
        if game is not self.game:
            _check_same_game(str(self.path or "the evaluation"), self.game.env_id, options_json(self.game), game)

    def net(self, policy: bool = True) -> EvalNet:
        """The weights packed for the jitted forward passes (a fresh copy with its own scratch).
        ``policy=False``: for a caller that never runs the policy head (alpha-beta), whose loops then
        compute the move features only if the value reads them."""
        layers = self.value_layers + (self.policy_layers or []) + (self.move_scorer or [])
        widest = max([w.shape[1] for w, _ in layers] + [self.game.num_actions])
        return EvalNet._pack(self.spec.code, self.spec.low, self.spec.scale, self.spec.levels,
                             self.activation == "relu", self.score_scale, self.value_layers,
                             self.policy_layers or [], widest,
                             self.game.observation_size, self.features, self.spec.width, self.policy_move,
                             self.move_scorer, self.features_heads, policy)

    def feature_rows(self, states: np.ndarray, observations: np.ndarray) -> np.ndarray:
        """The move features (n, F) of positions given by their states (n, S) and mover's observations."""
        return move_features(self.features, self.game.params, states, observations)

    def _rows(self, observations: np.ndarray, states: np.ndarray | None, rows: np.ndarray | None):
        if self.features.width and rows is None and states is not None:
            return self.feature_rows(states, observations)
        return rows

    def _forward(self, layers, observations: np.ndarray, rows: np.ndarray | None, reads: bool = True) -> np.ndarray:
        """``layers`` on the encoded observations, followed by their feature rows if the head ``reads`` them."""
        features = self.features if reads else NO_MOVE_FEATURES
        return self._mlp(layers, network_input(self.spec, features, observations, rows).astype(np.float64))

    def _mlp(self, layers, x: np.ndarray) -> np.ndarray:
        for i, (w, b) in enumerate(layers):
            x = x @ w.astype(np.float64) + b.astype(np.float64)
            if i < len(layers) - 1:
                x = np.maximum(x, 0.0) if self.activation == "relu" else np.tanh(x)
        return x

    def value(self, observations: np.ndarray, own: np.ndarray | None = None, states: np.ndarray | None = None,
              rows: np.ndarray | None = None) -> np.ndarray:
        """The value head (unclipped) of a batch of mover's observations (n, O): shape (n,).

        With ``own`` (the game's own evaluations of the positions, ``own_evaluation``, (n,)),
        the blended value the search uses (``tanh(score_scale * h)`` added; still unclipped).
        With move features, the positions' states (n, S) or their feature rows (n, F).
        """
        reads = self.features_heads == "both"
        out = self._forward(self.value_layers, observations, self._rows(observations, states, rows) if reads else None,
                            reads)[:, 0]
        if own is not None and self.score_scale > 0:
            out = out + np.tanh(self.score_scale * np.asarray(own, np.float64))
        return out

    def policy_logits(self, observations: np.ndarray, states: np.ndarray | None = None,
                      rows: np.ndarray | None = None) -> np.ndarray:
        """The policy head's logits of a batch of observations (n, O): shape (n, num_actions)
        (with move features, the positions' states or feature rows, as ``value``)."""
        if self.policy_layers is None:
            raise EvalFileError(f"{self.path}: the evaluation has no policy head")
        rows = self._rows(observations, states, rows)
        logits = self._forward(self.policy_layers, observations, rows)
        if self.policy_move is not None:
            f = np.asarray(rows, np.float32)
            blocks, per = self.features.blocks, self.features.per_block
            moves = f[:, :blocks * per].reshape(len(f), blocks, per).astype(np.float64)
            logits[:, :blocks] += moves @ self.policy_move.astype(np.float64)
        if self.move_scorer is not None:
            logits[:, :self.features.blocks] += self._mlp(self.move_scorer, scorer_inputs(self.features, rows))[..., 0]
        return logits


def scorer_inputs(features: MoveFeatures, rows: np.ndarray) -> np.ndarray:
    """The move scorer's inputs of a batch of feature rows (n, F): float64 (n, blocks, per_block +
    summary), every move's block followed by its position's summary columns."""
    f = np.asarray(rows, np.float64)
    blocks, per = features.blocks, features.per_block
    summary = f[:, None, blocks * per:].repeat(blocks, axis=1)
    return np.concatenate([f[:, :blocks * per].reshape(len(f), blocks, per), summary], axis=2)


# -- the jitted forward passes ----------------------------------------------------------------


@njit(cache=True, inline="always")
def _dense(weights, biases, shape, source, target, activate, relu):
    """``target[:out] = source[:in] @ W + b`` for one layer (shape: in, out, offsets), then the activation."""
    inputs, outputs, w_off, b_off = shape[0], shape[1], shape[2], shape[3]
    for j in range(outputs):
        target[j] = biases[b_off + j]
    for i in range(inputs):
        x = source[i]
        if x != 0.0:
            row = w_off + i * outputs
            for j in range(outputs):
                target[j] += x * weights[row + j]
    if activate:
        _activate(target, outputs, relu)


@njit(cache=True, inline="always")
def _activate(values, count, relu):
    for j in range(count):
        values[j] = max(values[j], 0.0) if relu else np.tanh(values[j])


def _loader(fill):
    def load_features(net, state, params):
        """Compute the move features of the position ``state`` (the kernel's state and ``params``) into
        ``net.feats``, its mover's observation already in ``net.obs``: what the next forward passes
        (``net_value``, ``net_policy``, ``blended_value``) read. Nothing to do without move features."""
        if net.has_features:
            fill(net.feature_layout, state, params, net.obs, net.feats)
    return load_features


def features_loader(kernel):
    """The jitted ``load_features(net, state, params)`` the loops built for ``kernel`` (alpha-beta,
    MCTS) compile in: it compiles in only that kernel's game's feature set
    (``move_features.features_into_for``)."""
    return njit(inline="always")(_loader(features_into_for(kernel)))


@functools.cache
def _compiled_loader(fill):
    """``_loader(fill)`` compiled on its own (cached on disk), once per feature set."""
    return cached_njit(_loader(fill))


def load_features(net: "EvalNet", state: State) -> None:
    """Compute the move features of ``state`` (a ``State``) into ``net.feats``, its mover's observation
    already in ``net.obs``, for a Python caller of the jitted passes (``policy:RUN``): the game's own
    set, found from its kernel. Nothing to do without move features."""
    game = state.game
    _compiled_loader(features_into_for(game.kernel))(net, state.array, game.params)


@cached_njit
def _add_move_features(net, weights, shape):
    """Add the move features' share (``net.feats``, ``load_features``) of the first layer (rows after
    the encoded observation's)."""
    outputs = shape[1]
    for i in range(net.feats.shape[0]):
        x = np.float64(net.feats[i])
        if x != 0.0:
            row = shape[2] + (net.encoded_width + i) * outputs
            for j in range(outputs):
                net.hidden_a[j] += x * weights[row + j]


@cached_njit
def _forward(net, shapes, weights, biases, obs, reads_features):
    """Run one head on ``obs`` (with ``net.feats`` if it ``reads_features``); returns the scratch array
    holding its outputs (first shapes[-1, 1])."""
    layers = shapes.shape[0]
    first_layer_into(net.code, obs, net.low, net.scale, net.levels, weights, shapes[0, 2], biases, shapes[0, 3],
                     net.hidden_a[: shapes[0, 1]])
    if reads_features:
        _add_move_features(net, weights, shapes[0])
    if layers > 1:
        _activate(net.hidden_a, shapes[0, 1], net.relu)
    source, target = net.hidden_a, net.hidden_b
    for i in range(1, layers):
        _dense(weights, biases, shapes[i], source, target, i < layers - 1, net.relu)
        source, target = target, source
    return source


@cached_njit
def net_value(net, obs):
    """The value head on one mover's observation ``obs`` (float32[O]), unclipped (with move
    features: those ``load_features`` put in ``net.feats``)."""
    return _forward(net, net.value_shapes, net.value_weights, net.value_biases, obs, net.value_features)[0]


@cached_njit
def net_policy(net, obs, logits):
    """The policy head's logits on ``obs`` into ``logits`` (float64[A])."""
    out = _forward(net, net.policy_shapes, net.policy_weights, net.policy_biases, obs, net.policy_features)
    for a in range(logits.shape[0]):
        logits[a] = out[a]
    per = net.move_weights.shape[0]
    for a in range(net.move_blocks):  # the weights shared by every move (net.feats: this observation's)
        for k in range(per):
            logits[a] += net.feats[a * per + k] * net.move_weights[k]
    if net.scorer_blocks > 0:
        _score_moves(net, logits)


@cached_njit
def _score_moves(net, logits):
    """Add the move scorer's output to each of the first ``scorer_blocks`` logits: the MLP on that move's
    block of ``net.feats`` followed by the summary columns (the heads' scratch is free again)."""
    per, inputs, shapes = net.scorer_per, net.scorer_input, net.scorer_shapes
    summary_start = net.scorer_blocks * per
    for k in range(inputs.shape[0] - per):
        inputs[per + k] = net.feats[summary_start + k]
    layers = shapes.shape[0]
    for a in range(net.scorer_blocks):
        for k in range(per):
            inputs[k] = net.feats[a * per + k]
        _dense(net.scorer_weights, net.scorer_biases, shapes[0], inputs, net.hidden_a, layers > 1, net.relu)
        source, target = net.hidden_a, net.hidden_b
        for i in range(1, layers):
            _dense(net.scorer_weights, net.scorer_biases, shapes[i], source, target, i < layers - 1, net.relu)
            source, target = target, source
        logits[a] += source[0]


@cached_njit
def blended_value(net, obs, own):
    """The search's value of a position: the value head on ``obs`` plus, with a score blend,
    ``tanh(score_scale * own)`` (``own``: the game's own evaluation for the mover), clipped
    to [-1, 1]."""
    value = net_value(net, obs)
    if net.score_scale > 0.0:
        value += np.tanh(net.score_scale * own)
    return min(max(value, -1.0), 1.0)


def own_evaluation(state: State) -> float:
    """Plain alpha-beta's leaf value of ``state`` for its player to move (what the score blend
    reads): ``Game.search_heuristic`` where the game has one, else the score difference."""
    game, me = state.game, state.current_player
    if game.search_heuristic is not None:
        return float(game.search_heuristic(state.array, game.params, me))
    scores = state.scores()
    return float(scores[me] - scores[1 - me])


class LearnedPolicyAgent(Agent):
    """The bare policy head of an evaluation file: the legal move with the highest logit, no search."""

    name = "policy"

    def __init__(self, path: str | Path, seed: int | None = None):
        super().__init__(seed)
        self.evaluation = load_evaluation(path)
        if not self.evaluation.has_policy:
            raise EvalFileError(f"{self.evaluation.path}: the evaluation has no policy head to play")
        self._net = self.evaluation.net()
        self._logits = np.zeros(self.evaluation.game.num_actions, np.float64)

    def act(self, state: State) -> int:
        self.evaluation.check_game(state.game)
        self._net.obs[:] = state.observation(state.current_player)
        load_features(self._net, state)
        net_policy(self._net, self._net.obs, self._logits)
        mask = state.action_mask()
        logits = np.where(mask != 0, self._logits, -np.inf)
        best = np.flatnonzero(logits == logits.max())
        return int(best[0] if best.size == 1 else self.rng.choice(best))
