"""The value trainer (``algo: search-bootstrap``): a learned evaluation trained from search.

Each *iteration* plays ``value.games`` self-play games in ``value.workers`` forked processes, or
with ``backend: ray`` on Ray actors across a cluster (``mancala_envs.training.selfplay_backends``;
each gets a frozen ``SelfPlaySettings`` and returns a ``PositionBatch``), and then fits the
networks on the positions collected so far, in this process:

1. **Self-play with search.** Every move is an alpha-beta search (``value.depth`` plies)
   whose leaves are valued by the current evaluation (the first iteration: by the game's
   score difference). The search value of the root is the position's *target* (the
   "RootStrap" of Veness et al., 2009: search bootstrapping; TD-leaf's target without the
   time shift), and the move it picks the policy target.
2. **Diversity.** Each game opens with a random number of uniformly random moves (0 to
   ``value.random_plies``), and later moves are random with probability ``value.epsilon``
   (their positions are still searched and labelled), so the networks see many lines and
   learn no memorised ones. The judging ladder is never played during training.
3. **Targets.** ``(1 - outcome_weight) * search + outcome_weight * result``: the search
   value on the [-1, 1] scale (with no evaluation yet, ``tanh(score difference /
   value.margin_scale)``; a proven end of the game, its result), mixed with the game's
   final result for the player to move. ``value.result_target: margin`` puts the game's end in
   as ``tanh(final score difference / value.margin_scale)`` instead of its result (+1/0/-1), so
   the value learns by how much a position is won, the margin perfect play maximises. With
   ``value.endgame_targets`` every position the game's endgame database holds
   (``mancala_envs.agents.endgame``, Kalah) is labelled with its exact value instead (perfect
   play's result or margin on the same scale, the search value and the game's end both
   replaced): free, exact supervision for the endgame. With ``value.score_blend`` the evaluation is
   ``tanh(h / value.margin_scale)`` plus the value network, ``h`` plain alpha-beta's leaf
   value (the game's search heuristic, else the score difference; the file's
   ``score_scale``, ``mancala_envs.agents.learned.learned_eval``), so the network is fitted to the
   target minus that term: it learns a correction of the game's own evaluation, and the
   search starts out as plain alpha-beta instead of as a search on an untrained network.
   With the blend, a share of the positions (``value.holdout``, a tenth) is never fitted, and
   the network's output is scaled by the gain in [0, 1] that predicts their targets best (least squares),
   so a network that mostly adds noise is damped rather than let loose on the search (an
   unchecked noisy correction can make alpha-beta weaker than plain alpha-beta;
   ``docs/strength.md``).
4. **Fitting.** Two MLPs on the encoded mover's observation (``value.encoding``,
   ``mancala_envs.core.encodings``; with ``value.features: moves`` plus the game's move
   features, ``mancala_envs.agents.learned.move_features``): the value head (mean squared
   error against the target) and the policy head (cross-entropy over the legal moves), fitted
   with Adam over a replay buffer of the last ``value.replay`` positions. With move features
   the policy adds to each move's logit its block of features times weights shared by every
   move. The policy head's own section, ``value.policy``:

   - ``teacher``: its target move, the search's (``search``) or plain alpha-beta's at the
     same depth (``plain``), or at ``teacher_depth`` plies while self-play keeps its own;
   - ``temperature: T > 0``: soft targets, the softmax over every legal move of the teacher's
     value of it (each child searched one ply less deep) divided by ``T``, so equally good
     moves share the target instead of one being picked at random: plain alpha-beta's (plain
     teacher, values in stones) or the self-play search's with the current evaluation (search
     teacher, values on the [-1, 1] scale: AlphaZero-style targets from the search; the first
     iteration, before any evaluation, searches plainly);
   - ``features: moves`` (with ``value.features: none``): the move features go to the policy
     alone, the value's input stays the encoded observation, so the self-play and evaluated
     alpha-beta never compute them at their leaves (only once per stored position);
   - ``move_hidden`` (move features): a *move scorer*, an MLP of one move's block and the
     features' summary whose one output is added to that move's logit, the same weights for
     every move, so what it learns of one move holds for all;
   - ``hidden``, ``epochs``: the policy network's own layers and passes; ``replay``: its own,
     longer memory of positions (a plain teacher's moves do not change as the evaluation
     learns);
   - ``average: d``: the exported policy is a moving average of its weights, d times the
     average so far plus 1 - d times the weights just fitted; ``weight_decay: w``: every Adam
     step shrinks the policy MLP's weights by ``learning_rate * w`` (AdamW's decoupled decay);
   - ``dagger_games: N`` (plain teacher): from the second iteration on, N more games per
     iteration of the bare policy itself (the ``policy:RUN`` player of the last fit) against
     random moves, every position where it moves labelled by the teacher and fitted by the
     policy only, so it also learns the teacher's move in positions its own mistakes lead to
     (DAgger, Ross et al., 2011; ``play_dagger``), kept in a buffer of their own (``replay``,
     else ``value.replay``, positions; checkpoints keep it like the replay buffer).

   None of these changes the value network or the games. The result goes to
   ``evaluation.npz`` in the run folder (``mancala_envs.agents.learned.learned_eval``) after
   every iteration, so ``eval=RUN_DIR`` and ``policy:RUN_DIR`` can play it while the run goes on.

A checkpoint (``checkpoints/latest.zip``, ``mancala_envs.training.checkpoint``: both networks,
the optimiser, the replay buffers and the run state in one archive) is committed after every
iteration, so ``mancala train --resume RUN_DIR`` loses at most one iteration, and a resumed run
ends with the same networks as one never stopped. Every game is seeded by its index in the
iteration and an iteration's positions are joined in that order into one batch, so the same seed
gives the same networks on either backend and with any number of workers. Every ``value.eval_every`` iterations the
search agent ``alphabeta:depth=value.eval_depth,eval=RUN_DIR`` plays the ladder over the
periodic opening suite (``evals.csv``, TensorBoard ``eval/*``); at the end both the search
agent and the bare policy network play it over the final suite (``report.md``).
"""

from __future__ import annotations

import io
import sys
import time
import zipfile
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from torch import nn
from torch.utils.tensorboard import SummaryWriter

from mancala_envs.agents.learned.learned_eval import (LearnedEval, LearnedPolicyAgent, load_evaluation, load_features,
                                               net_policy, network_input, own_evaluation, save_evaluation,
                                               scorer_width)
from mancala_envs.agents.endgame import endgame_for
from mancala_envs.agents.search import WIN_BONUS, AlphaBetaAgent, TranspositionTable, search
from mancala_envs.core.encodings import encoding_spec
from mancala_envs.agents.learned.move_features import MoveFeatures, move_feature_set, move_features
from mancala_envs.core.files import write_text_atomic
from mancala_envs.core.game import Game

from .config import TrainConfig, ValueConfig
from .evaluation import LEARNER, evaluate, ladder_results, ladder_to_json, learner_ratings, record_evaluation
from .report import build_report, results_table, write_report
from .trainer_base import SUITE_FINAL, SUITE_LADDER, SUITE_PERIODIC, RunTrainer
from .checkpoint import RunState, checkpoint_file, commit_checkpoint
from .selfplay_backends import selfplay_backend

BARE = "bare network"


# -- self-play (runs in the workers) ---------------------------------------------------------------


def _scaled(value: float, margin_scale: float, learned: bool) -> float:
    """A search value on the [-1, 1] scale: a proven end its result, else the evaluation's value
    (learned) or ``tanh(score difference / margin_scale)``."""
    if abs(value) >= WIN_BONUS / 2:
        return float(np.sign(value))
    return float(np.clip(value, -1.0, 1.0)) if learned else float(np.tanh(value / margin_scale))


def root_move_values(state, depth: int, tt: TranspositionTable, rng: np.random.Generator,
                     evaluation=None) -> np.ndarray:
    """Alpha-beta's value of every action of ``state`` for its mover (float64[A], -inf for an illegal
    one): each child searched ``depth - 1`` plies (at least 1), plain or with ``evaluation`` (an
    ``EvalNet``: values on its [-1, 1] scale), a finished game its score difference plus
    ``WIN_BONUS`` times its result, a truncated one its score difference."""
    me = state.current_player
    values = np.full(state.game.num_actions, -np.inf)
    for action in state.legal_actions():
        child = state.clone()
        child.apply(int(action))
        scores = child.scores()
        if child.is_terminal():
            values[action] = scores[me] - scores[1 - me] + WIN_BONUS * child.returns()[me]
        elif child.is_truncated():
            values[action] = scores[me] - scores[1 - me]
        else:
            found = search(child, max(depth - 1, 1), tt=tt, rng=rng, evaluation=evaluation)
            values[action] = found.value if child.current_player == me else -found.value
    return values


def soft_target(values: np.ndarray, temperature: float) -> np.ndarray:
    """The softmax of ``values / temperature`` over the finite entries (0 elsewhere), float32."""
    legal = np.isfinite(values)
    z = np.where(legal, np.clip(values, -WIN_BONUS, WIN_BONUS) / temperature, -np.inf)
    p = np.exp(z - z[legal].max())
    return (p / p.sum()).astype(np.float32)


@dataclass(frozen=True, eq=False)  # its move feature set holds arrays: no == between settings
class SelfPlaySettings:
    """What a self-play worker reads of the ``value`` section (a frozen copy the forked workers unpickle)."""

    depth: int  # value.depth: plies each self-play move searches
    random_plies: int  # value.random_plies: each game opens with 0..random_plies random moves
    epsilon: float  # value.epsilon: chance of a random move after the opening
    margin_scale: float  # value.margin_scale: search values before any evaluation, tanh(difference / this)
    teacher: str  # value.policy.teacher: "search" or "plain"
    teacher_depth: int  # plies of the plain teacher (value.policy.teacher_depth, else depth)
    temperature: float  # value.policy.temperature: > 0, soft targets from the teacher's value of every move
    features: MoveFeatures  # the game's move feature set (value.features), its rows stored with each position
    result_target: str = "result"  # value.result_target: the game's end as its result or tanh(margin / scale)
    endgame_targets: bool = False  # value.endgame_targets: exact values from the endgame database

    @classmethod
    def of(cls, value: ValueConfig, features: MoveFeatures) -> SelfPlaySettings:
        policy = value.policy
        return cls(depth=value.depth, random_plies=value.random_plies, epsilon=value.epsilon,
                   margin_scale=value.margin_scale, teacher=policy.teacher,
                   teacher_depth=policy.teacher_depth or value.depth, temperature=policy.temperature,
                   features=features, result_target=value.result_target, endgame_targets=value.endgame_targets)

    @property
    def soft_temperature(self) -> float:
        """The temperature of soft policy targets (0: none)."""
        return self.temperature

    def end_value(self, margin: float) -> float:
        """A game's end worth ``margin`` (final score difference, the mover's side) on the target scale:
        its result, or ``tanh(margin / margin_scale)`` with ``result_target`` margin."""
        return float(np.tanh(margin / self.margin_scale)) if self.result_target == "margin" else float(np.sign(margin))


@dataclass(frozen=True, eq=False)  # arrays: compare them field by field
class PositionBatch:
    """Labelled positions, one row of each array per position (what the workers return and the replay
    buffers hold)."""

    observations: np.ndarray  # float32 (n, observation size): the mover's observation
    values: np.ndarray  # float64 (n,): the search value on the [-1, 1] scale (0 in the bare policy's games)
    moves: np.ndarray  # int64 (n,): the policy's target move
    results: np.ndarray  # float64 (n,): the game's final result for the mover (0 in the bare policy's games)
    own: np.ndarray  # float64 (n,): the game's own evaluation for the mover (learned_eval.own_evaluation)
    masks: np.ndarray  # bool (n, actions): the legal moves
    feature_rows: np.ndarray  # float32 (n, features.width): the move features, computed from the state
    soft: np.ndarray  # float32 (n, actions): soft policy targets with a temperature, else (n, 0)
    held_out: np.ndarray | None = None  # bool (n,): never fitted, sets the blend's gain (the trainer sets it)

    @classmethod
    def of(cls, game: Game, features: MoveFeatures, observations, values, moves, results, own, masks, rows,
           soft) -> PositionBatch:
        """The batch of per-position lists (``soft`` empty when there are no soft targets)."""
        n = len(observations)
        return cls(np.array(observations, np.float32).reshape(n, game.observation_size),
                   np.array(values, np.float64), np.array(moves, np.int64), np.array(results, np.float64),
                   np.array(own, np.float64), np.array(masks, bool).reshape(n, game.num_actions),
                   np.array(rows, np.float32).reshape(n, features.width),
                   np.array(soft, np.float32).reshape(n, game.num_actions if soft else 0))

    @property
    def size(self) -> int:
        """The number of positions."""
        return len(self.observations)

    @classmethod
    def concatenate(cls, batches: list[PositionBatch]) -> PositionBatch:
        """The positions of ``batches`` (at least one) in order, as one batch: soft targets only when every
        batch has them (else none), held-out masks only when every batch has one."""
        rows = {f.name: np.concatenate([getattr(b, f.name) for b in batches]) for f in fields(cls)
                if f.name not in ("soft", "held_out")}
        soft = [b.soft for b in batches]
        held_out = [b.held_out for b in batches]
        return cls(**rows, soft=np.concatenate(soft) if all(t.shape[1] for t in soft)
                   else np.zeros((len(rows["observations"]), 0), np.float32),
                   held_out=np.concatenate(held_out) if all(h is not None for h in held_out) else None)


def play_games(game: Game, evaluation: LearnedEval | None, seeds: list[int],
               settings: SelfPlaySettings) -> PositionBatch:
    """Self-play games, one per seed, every position after the opening labelled (``PositionBatch``): its
    search value, the policy's target move (the search's, or the plain teacher's with ``teacher`` plain),
    the game's result, the game's own evaluation, the legal moves, the move features, and soft targets
    with the plain teacher and a temperature."""
    net = evaluation.net() if evaluation is not None else None
    features = settings.features
    tt = TranspositionTable(16)
    plain_tt = TranspositionTable(16)  # plain alpha-beta's values are on another scale: a table of its own
    teacher_depth = settings.teacher_depth
    # without an evaluation the search is plain alpha-beta: its move is the teacher's at the same depth
    plain_teacher = settings.teacher == "plain" and (net is not None or teacher_depth != settings.depth)
    # soft targets from the first iteration on (without an evaluation the search is plain alpha-beta)
    temperature = settings.soft_temperature
    endgame = endgame_for(game) if settings.endgame_targets else None  # loaded before the workers fork
    observations, values, moves, results, own, masks, rows, soft = [], [], [], [], [], [], [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        plain_rng = np.random.default_rng([seed, 1])  # its own: the games are the same whoever teaches the policy
        state = game.new_state(int(rng.integers(2**31)))
        random_plies = int(rng.integers(settings.random_plies + 1))
        movers, exact = [], []  # exact: the position's value from the endgame database, else None
        tt.clear()
        plain_tt.clear()
        while not state.is_terminal() and not state.is_truncated():
            legal = state.legal_actions()
            if state.plies < random_plies:
                state.apply(int(rng.choice(legal)))
                continue
            mover = state.current_player
            found = search(state, settings.depth, tt=tt, rng=rng, evaluation=net)
            observations.append(state.observation(mover))
            rows.append(move_features(features, game.params, state.array, observations[-1])[0])
            own.append(own_evaluation(state))
            masks.append(state.action_mask() != 0)
            values.append(_scaled(found.value, settings.margin_scale, net is not None))
            if settings.teacher == "search" and temperature > 0:  # every root move's value in the search itself
                move_values = root_move_values(state, settings.depth, tt, rng, net)
                moves.append(found.best_action)
                soft.append(soft_target(move_values, temperature))
            elif temperature > 0 or plain_teacher:  # the policy's target: plain alpha-beta's (value.policy.teacher)
                move, target = _plain_label(state, teacher_depth, temperature, plain_tt, plain_rng)
                moves.append(move)
                soft.extend([target] if temperature > 0 else [])
            else:
                moves.append(found.best_action)
            movers.append(mover)
            known = endgame.mover_value(state) if endgame is not None and endgame.usable_from(state) else None
            exact.append(None if known is None else settings.end_value(known))
            explore = rng.random() < settings.epsilon
            state.apply(int(rng.choice(legal)) if explore else found.best_action)
        ends = _game_ends(state, settings)
        for i, (m, known) in enumerate(zip(movers, exact)):
            results.append(ends[m] if known is None else known)
            if known is not None:  # the target is exact: (1 - w) * value + w * result, both the database's
                values[len(values) - len(movers) + i] = known
    return PositionBatch.of(game, features, observations, values, moves, results, own, masks, rows, soft)


def _game_ends(state, settings: SelfPlaySettings) -> list[float]:
    """What the finished (or truncated: 0) game ``state`` is worth to each player on the target scale: its
    result (``state.returns()``), or with ``result_target`` margin ``tanh(final score difference / scale)``."""
    if not state.is_terminal():
        return [0.0, 0.0]
    if settings.result_target == "result":
        return [float(r) for r in state.returns()]
    scores = state.scores()
    return [settings.end_value(scores[0] - scores[1]), settings.end_value(scores[1] - scores[0])]


def _plain_label(state, depth: int, temperature: float, tt: TranspositionTable, rng: np.random.Generator):
    """Plain alpha-beta's move at ``depth`` plies and, with ``temperature`` > 0, the soft target over every
    legal move (``soft_target`` of ``root_move_values``; its argmax is the move), else None."""
    if temperature > 0:  # every move's plain value (value.policy.temperature)
        move_values = root_move_values(state, depth, tt, rng)
        return int(np.argmax(move_values)), soft_target(move_values, temperature)
    return search(state, depth, tt=tt, rng=rng).best_action, None


def play_dagger(game: Game, evaluation: LearnedEval, seeds: list[int], settings: SelfPlaySettings) -> PositionBatch:
    """Games of the bare policy of ``evaluation`` (``policy:RUN``: the legal move with the highest logit)
    against uniformly random moves, one per seed, the policy's seat alternating with the seed and the game
    opening with 0 to ``random_plies`` random moves: every position where the policy has two or more legal
    moves, labelled by plain alpha-beta as in ``play_games`` (``value.policy.dagger_games``; DAgger, Ross et
    al., 2011: the policy learns the teacher's move in the positions its own mistakes lead to). The batch of
    ``play_games`` with zero values, results and own evaluations: it is fitted by the policy only."""
    net, logits = evaluation.net(), np.zeros(game.num_actions)
    features, temperature, depth = settings.features, settings.temperature, settings.teacher_depth
    tt = TranspositionTable(16)
    observations, moves, masks, rows, soft = [], [], [], [], []
    for seed in seeds:
        rng = np.random.default_rng([seed, 2])  # a stream of its own: the self-play games stay the same
        state = game.new_state(int(rng.integers(2**31)))
        learner, opening = seed % 2, int(rng.integers(settings.random_plies + 1))
        tt.clear()
        while not state.is_terminal() and not state.is_truncated():
            legal = state.legal_actions()
            if state.plies < opening or state.current_player != learner:
                state.apply(int(rng.choice(legal)))
                continue
            net.obs[:] = state.observation(learner)
            load_features(net, state)
            net_policy(net, net.obs, logits)
            mask = state.action_mask() != 0
            if len(legal) > 1:
                observations.append(net.obs.copy())
                rows.append(move_features(features, game.params, state.array, observations[-1])[0])
                masks.append(mask)
                move, target = _plain_label(state, depth, temperature, tt, rng)
                moves.append(move)
                soft.extend([target] if temperature > 0 else [])
            state.apply(int(np.argmax(np.where(mask, logits, -np.inf))))
    zeros = [0.0] * len(observations)
    return PositionBatch.of(game, features, observations, zeros, moves, zeros, zeros, masks, rows, soft)


def joined(batches: list[PositionBatch]) -> list[PositionBatch]:
    """The positions of the chunks of an iteration's games (in game order) as one batch ([] if none)."""
    played = [b for b in batches if b.size]
    return [PositionBatch.concatenate(played)] if played else []


# -- the networks --------------------------------------------------------------------------------


def _mlp(inputs: int, hidden: list[int], outputs: int, activation: str) -> nn.Sequential:
    layers: list[nn.Module] = []
    width = inputs
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU() if activation == "relu" else nn.Tanh()]
        width = h
    layers.append(nn.Linear(width, outputs))
    return nn.Sequential(*layers)


def _layers(net: nn.Sequential) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight (in, out), bias) pairs of an MLP, as the evaluation file stores them."""
    return [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
            for m in net if isinstance(m, nn.Linear)]


def _pairs(tensors: list[torch.Tensor]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(weight, bias) tensors of an MLP's layers, in torch's order, as the evaluation file stores them."""
    return [(w.numpy().T.copy(), b.numpy().copy()) for w, b in zip(tensors[::2], tensors[1::2], strict=True)]


NETWORKS_MEMBER = "networks.pt"  # the checkpoint's torch.save payload: networks, optimiser, gain, averages


def read_networks(path: Path) -> dict[str, Any]:
    """The networks, optimiser state, gain and policy averages of a checkpoint of this trainer."""
    with zipfile.ZipFile(path) as archive:
        return torch.load(io.BytesIO(archive.read(NETWORKS_MEMBER)), weights_only=True)


def _buffer_bytes(buffer: list[PositionBatch]) -> bytes:
    """A replay buffer as one ``.npz``: each field of its batches concatenated, and the batch sizes."""
    arrays: dict[str, np.ndarray] = {"sizes": np.array([b.size for b in buffer], np.int64)}
    for f in fields(PositionBatch) if buffer else ():
        arrays[f.name] = np.concatenate([getattr(b, f.name) for b in buffer])
    data = io.BytesIO()
    np.savez(data, **arrays)
    return data.getvalue()


def _buffer_of(data: bytes) -> list[PositionBatch]:
    """The replay buffer ``_buffer_bytes`` wrote, in its batches."""
    with np.load(io.BytesIO(data)) as arrays:
        sizes = arrays["sizes"]
        ends = np.cumsum(sizes)
        columns = {f.name: np.split(arrays[f.name], ends[:-1]) for f in fields(PositionBatch) if sizes.size}
    return [PositionBatch(**{name: parts[i] for name, parts in columns.items()}) for i in range(sizes.size)]


class SearchBootstrapTrainer(RunTrainer):
    """One value-training run in its folder (see the module docstring)."""

    def __init__(self, config: TrainConfig, run_dir: Path, state: RunState, echo: Callable[[str], None] = print):
        super().__init__(config, run_dir, state, echo)
        self.cfg = config.value
        torch.manual_seed(config.seed)
        self.spec = encoding_spec(self.cfg.encoding, self.game.observation_size, self.game.observation_bounds())
        # value.features: moves gives the move features to both heads, value.policy.features: moves to the policy alone
        policy_alone = self.cfg.policy.features == "moves"
        self.features = move_feature_set("moves" if policy_alone else self.cfg.features, self.game)
        self.features_heads = "policy" if policy_alone else "both"  # learned_eval.FEATURES_HEADS
        width = self.spec.width + self.features.width
        self.value_width = self.spec.width if policy_alone else width  # the value's input: x[:, :value_width]
        self.value_net = _mlp(self.value_width, self.cfg.hidden, 1, self.cfg.activation)
        policy_hidden = self.cfg.policy.hidden or self.cfg.hidden  # value.policy.hidden: the policy's own layers
        self.policy_net = _mlp(width, policy_hidden, self.game.num_actions, self.cfg.activation)
        # with move features: one weight per column of a move's block, shared by every move (learned_eval)
        self.policy_move = nn.Parameter(torch.zeros(self.features.per_block)) if self.features.blocks else None
        # value.policy.move_hidden: the move scorer, an MLP of a move's block and the summary, shared by every move
        self.move_scorer = (_mlp(scorer_width(self.features), self.cfg.policy.move_hidden, 1, self.cfg.activation)
                            if self.cfg.policy.move_hidden else None)
        params = list(self.value_net.parameters()) + self._policy_parameters()
        decay = self.cfg.policy.weight_decay  # value.policy.weight_decay: the policy MLP's weights shrink (AdamW)
        if decay > 0:
            policy = set(self.policy_net.parameters())
            params = [{"params": [t for t in params if t not in policy]},
                      {"params": list(self.policy_net.parameters()), "weight_decay": decay}]
        self.optimizer = torch.optim.Adam(params, lr=self.cfg.learning_rate, decoupled_weight_decay=decay > 0)
        self.buffer: list[PositionBatch] = []  # the self-play positions, newest last
        self.dagger_buffer: list[PositionBatch] = []  # value.policy.dagger_games: the policy's alone
        self.learned = False  # the evaluation has been fitted at least once
        self.score_scale = 1.0 / self.cfg.margin_scale if self.cfg.score_blend else 0.0
        self.value_gain = 1.0  # the network's output scale in the evaluation file (set on held-out positions)
        # value.policy.average: the exported policy, a moving average of the policy's weights after each fit
        self.policy_averaged: list[torch.Tensor] | None = None

    def _policy_parameters(self) -> list[torch.Tensor]:
        """The policy's tensors: its MLP's (weight, bias of each layer), the shared move weights, the move
        scorer's (those there are, in this order: the order of ``policy_averaged``)."""
        tensors = list(self.policy_net.parameters())
        tensors += [self.policy_move] if self.policy_move is not None else []
        return tensors + (list(self.move_scorer.parameters()) if self.move_scorer is not None else [])

    # files -----------------------------------------------------------------------------------------
    def _save_checkpoint(self) -> None:
        """Commit the networks, the optimiser, the replay buffers and the run state (one archive)."""
        payload = {"value": self.value_net.state_dict(), "policy": self.policy_net.state_dict(),
                   "policy_move": None if self.policy_move is None else self.policy_move.detach().clone(),
                   "move_scorer": None if self.move_scorer is None else self.move_scorer.state_dict(),
                   "optimizer": self.optimizer.state_dict(), "iterations": self.state.steps,
                   "value_gain": self.value_gain, "policy_averaged": self.policy_averaged}
        networks = io.BytesIO()
        torch.save(payload, networks)

        def write(path: Path) -> None:
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
                archive.writestr(NETWORKS_MEMBER, networks.getvalue())
                for name, buffer in (("buffer", self.buffer), ("dagger_buffer", self.dagger_buffer)):
                    archive.writestr(f"{name}.npz", _buffer_bytes(buffer))

        commit_checkpoint(self.run_dir, self.state, write)

    def _load_checkpoint(self) -> None:
        path = checkpoint_file(self.run_dir)
        if not path.exists():
            return
        payload = read_networks(path)
        self.value_net.load_state_dict(payload["value"])
        self.policy_net.load_state_dict(payload["policy"])
        if self.policy_move is not None and payload.get("policy_move") is not None:
            with torch.no_grad():
                self.policy_move.copy_(payload["policy_move"])
        if self.move_scorer is not None and payload.get("move_scorer") is not None:
            self.move_scorer.load_state_dict(payload["move_scorer"])
        self.optimizer.load_state_dict(payload["optimizer"])
        self.value_gain = float(payload.get("value_gain", 1.0))
        self.policy_averaged = payload.get("policy_averaged")
        with zipfile.ZipFile(path) as archive:
            self.buffer = _buffer_of(archive.read("buffer.npz"))
            self.dagger_buffer = _buffer_of(archive.read("dagger_buffer.npz"))
        self.learned = True
        self.echo(f"resumed from {path} after iteration {self.state.steps}")

    def _save_evaluation(self) -> LearnedEval:
        value = _layers(self.value_net)
        value[-1] = (value[-1][0] * self.value_gain, value[-1][1] * self.value_gain)
        policy, policy_move = _layers(self.policy_net), self.policy_move
        scorer = _layers(self.move_scorer) if self.move_scorer is not None else None
        if self.policy_averaged is not None:  # value.policy.average
            tensors = list(self.policy_averaged)
            weights = [tensors.pop(0) for _ in self.policy_net.parameters()]
            policy = _pairs(weights)
            policy_move = tensors.pop(0) if self.policy_move is not None else None
            scorer = _pairs(tensors) if self.move_scorer is not None else None
        path = save_evaluation(self.run_dir, self.game, self.cfg.encoding, self.cfg.activation,
                               value, policy, source="search-bootstrap",
                               score_scale=self.score_scale, features=self.features.name,
                               features_heads=self.features_heads,
                               policy_move=None if policy_move is None else policy_move.detach().numpy(),
                               move_scorer=scorer)
        return load_evaluation(path, self.game)

    # the loop --------------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        cfg = self.cfg
        self._load_checkpoint()
        writer = SummaryWriter(str(self.run_dir / "tb"))
        evaluation = self._save_evaluation() if self.learned else None
        search(self.game.new_state(0), depth=1, evaluation=evaluation or self._save_evaluation())  # compile before forking
        if cfg.endgame_targets:  # value.endgame_targets: the database loaded (or built) once, before forking
            endgame_for(self.game)
        progress = Progress(TextColumn("training"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                            disable=not sys.stderr.isatty(), transient=True)
        task = progress.add_task("iterations", total=cfg.iterations, completed=self.state.steps)
        started, spent_before = time.perf_counter(), self.state.seconds
        settings = SelfPlaySettings.of(cfg, self.features)
        players = selfplay_backend(self.config, self.game, settings, warn=lambda text: print(text, file=sys.stderr))
        self.echo(players.describe())
        with players, progress:
            while self.state.steps < cfg.iterations:
                it = self.state.steps
                seeds = [self.config.seed * 1_000_003 + it * 10_007 + g for g in range(cfg.games)]
                batches = joined(players.play(play_games, evaluation, seeds))
                positions = self._add_to_buffer(batches)
                if cfg.policy.dagger_games > 0 and evaluation is not None:  # the bare policy's own games
                    self._add_dagger(joined(players.play(play_dagger, evaluation, self._dagger_seeds())))
                losses = self._fit()
                self.learned = True
                evaluation = self._save_evaluation()
                self.state.steps = it + 1
                self.state.seconds = spent_before + time.perf_counter() - started
                outcome = PositionBatch.concatenate(batches).results if batches else np.zeros(1)
                self.state.curve.append([float(it + 1), float(losses["value"]), float(positions)])
                for key, value in losses.items():
                    writer.add_scalar(f"train/{key}_loss", value, it + 1)
                writer.add_scalar("train/positions", positions, it + 1)
                writer.add_scalar("train/decided_fraction", float(np.mean(outcome != 0)), it + 1)
                if (it + 1) % cfg.eval_every == 0 or it + 1 == cfg.iterations:
                    self._evaluate(evaluation, it + 1, writer)
                self._save_checkpoint()
                progress.update(task, completed=self.state.steps)
                writer.add_scalar("train/value_gain", self.value_gain, it + 1)
                self.echo(f"iteration {it + 1}/{cfg.iterations}: {positions} positions, value loss "
                          f"{losses['value']:.4f} (gain {self.value_gain:.2f}), policy loss {losses['policy']:.3f} "
                          f"({self.state.seconds:.0f} s)")
        writer.close()
        return self._final(evaluation or self._save_evaluation())

    def _add_to_buffer(self, batches) -> int:
        rng = np.random.default_rng([self.config.seed, self.state.steps])
        share = self.cfg.holdout if self.score_scale > 0 else 0.0  # only the blend's gain needs held-out positions
        self.buffer.extend(replace(b, held_out=rng.random(b.size) < share) for b in batches)
        keep = max(self.cfg.replay, self.cfg.policy.replay)  # value.policy.replay: the policy's longer memory
        while len(self.buffer) > 1 and self._positions(self.buffer[1:]) >= keep:
            self.buffer.pop(0)
        return self._positions(batches)

    def _dagger_seeds(self) -> list[int]:
        """The seeds of this iteration's ``value.policy.dagger_games`` games (``play_dagger``), after its
        self-play games'."""
        first = self.config.seed * 1_000_003 + self.state.steps * 10_007 + self.cfg.games
        return [first + g for g in range(self.cfg.policy.dagger_games)]

    def _add_dagger(self, batches: list[PositionBatch]) -> None:
        """The bare policy's positions (``play_dagger``) join the policy's own buffer, which keeps the newest
        ``value.policy.replay`` (else ``value.replay``) of them, in whole batches, beside the self-play ones."""
        self.dagger_buffer.extend(replace(b, held_out=np.zeros(b.size, bool)) for b in batches if b.size)
        keep = self.cfg.policy.replay or self.cfg.replay
        while len(self.dagger_buffer) > 1 and self._positions(self.dagger_buffer[1:]) >= keep:
            self.dagger_buffer.pop(0)

    @staticmethod
    def _positions(batches: list[PositionBatch]) -> int:
        return sum(b.size for b in batches)

    def _newest(self, positions: int) -> int:
        """How many of the buffer's rows (its newest) hold the last ``positions`` positions, in whole batches."""
        rows = 0
        for batch in reversed(self.buffer):
            if rows >= positions:
                break
            rows += batch.size
        return rows

    def _fit(self) -> dict[str, float]:
        cfg = self.cfg
        batches = self.buffer + self.dagger_buffer  # the bare policy's positions last (the policy's alone)
        self_play = self._positions(self.buffer)
        data = PositionBatch.concatenate(batches)
        obs, held_out = data.observations, data.held_out
        legal = torch.from_numpy(data.masks)
        target = (1.0 - cfg.outcome_weight) * data.values + cfg.outcome_weight * data.results
        target = target - np.tanh(self.score_scale * data.own)  # the network's share (0 without a blend)
        x = torch.from_numpy(network_input(self.spec, self.features, obs, data.feature_rows))
        y = torch.from_numpy(target.astype(np.float32))
        a = torch.from_numpy(data.moves)
        if data.soft.shape[1]:  # soft targets over every legal move (value.policy.temperature)
            a = torch.from_numpy(data.soft)
        rng = np.random.default_rng(self.config.seed + self.state.steps)
        # the value head fits the newest value.replay positions, the policy head value.policy.replay (its
        # teacher's moves do not age); rows before value_start are the policy's alone (none by default)
        value_start = self_play - self._newest(cfg.replay)
        policy_start = self_play - self._newest(cfg.policy.replay or cfg.replay)
        fitted = np.flatnonzero(~held_out[value_start:self_play]) + value_start
        policy_fitted = np.flatnonzero(~held_out[policy_start:]) + policy_start  # with the bare policy's positions
        losses = {"value": [], "policy": []}
        policy_epochs = cfg.policy.epochs or cfg.epochs  # the heads are separate networks: each its own passes
        own_order = policy_start != value_start or len(obs) > self_play
        policy_rng = np.random.default_rng([self.config.seed, self.state.steps, 1]) if own_order else rng
        for epoch in range(max(cfg.epochs, policy_epochs)):
            order = torch.from_numpy(rng.permutation(fitted))
            policy_order = order if policy_rng is rng else torch.from_numpy(policy_rng.permutation(policy_fitted))
            value_batches = range(0, len(order), cfg.batch_size) if epoch < cfg.epochs else range(0)
            policy_batches = range(0, len(policy_order), cfg.batch_size) if epoch < policy_epochs else range(0)
            for start in sorted(set(value_batches) | set(policy_batches)):
                loss = torch.zeros(())
                if start in value_batches:
                    idx = order[start:start + cfg.batch_size]
                    lv = nn.functional.mse_loss(self.value_net(x[idx, :self.value_width])[:, 0], y[idx])
                    losses["value"].append(lv.item())
                    loss = loss + lv
                if start in policy_batches:
                    idx = policy_order[start:start + cfg.batch_size]
                    logits = self._policy(x[idx]).masked_fill(~legal[idx], -1e9)  # the policy picks among legal moves
                    lp = nn.functional.cross_entropy(logits, a[idx])
                    losses["policy"].append(lp.item())
                    loss = loss + lp
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()  # Adam skips the head without a gradient
        if self.score_scale > 0 and held_out[value_start:self_play].any():
            value_held_out = np.flatnonzero(held_out[value_start:self_play]) + value_start
            self.value_gain = self._gain(x[value_held_out], y[value_held_out])
        self._average_policy()
        return {head: float(np.mean(values)) if values else 0.0 for head, values in losses.items()}

    def _average_policy(self) -> None:
        """With ``value.policy.average`` = d > 0, the exported policy's weights become d times theirs plus
        (1 - d) times the policy network's just fitted (the first fit's as they are): the bare policy then
        smooths over the last iterations' fits instead of being the last one's. Training is unchanged."""
        if self.cfg.policy.average <= 0:
            return
        fitted = [t.detach().clone() for t in self._policy_parameters()]
        if self.policy_averaged is None:
            self.policy_averaged = fitted
            return
        for averaged, new in zip(self.policy_averaged, fitted, strict=True):
            averaged.mul_(self.cfg.policy.average).add_(new, alpha=1.0 - self.cfg.policy.average)

    def _policy(self, x: torch.Tensor) -> torch.Tensor:
        """The policy's logits: the MLP, plus each move's block of move features times the shared weights,
        plus the move scorer's output for each move (value.policy.move_hidden)."""
        logits = self.policy_net(x)
        if self.policy_move is None:
            return logits
        blocks, per = self.features.blocks, self.features.per_block
        block_rows = x[:, self.spec.width:self.spec.width + blocks * per].reshape(len(x), blocks, per)
        moves = block_rows @ self.policy_move
        if self.move_scorer is not None:  # learned_eval.scorer_inputs: each block, then the summary
            summary = x[:, None, self.spec.width + blocks * per:].expand(-1, blocks, -1)
            moves = moves + self.move_scorer(torch.cat([block_rows, summary], dim=2))[..., 0]
        return logits + nn.functional.pad(moves, (0, logits.shape[1] - blocks))

    def _gain(self, x: torch.Tensor, y: torch.Tensor) -> float:
        """The scale in [0, 1] of the network's output that best predicts held-out targets ``y``."""
        with torch.no_grad():
            n = self.value_net(x[:, :self.value_width])[:, 0].double()
        power = float((n * n).sum())
        return float(np.clip(float((n * y.double()).sum()) / power, 0.0, 1.0)) if power > 0 else 0.0

    # evaluation ----------------------------------------------------------------------------------
    def search_agent(self, evaluation: LearnedEval) -> AlphaBetaAgent:
        agent = AlphaBetaAgent(seed=self.config.seed, depth=self.cfg.eval_depth, eval=evaluation)
        agent.name = LEARNER
        return agent

    def _evaluate(self, evaluation: LearnedEval, iteration: int, writer) -> None:
        if self._periodic_suite is None:
            self._periodic_suite = self._suite(self.config.eval.openings, SUITE_PERIODIC)
        rows, matches = evaluate(self.game, self.search_agent(evaluation), self.config.eval.ladder,
                                 self._periodic_suite, iteration)
        _, summary = record_evaluation(rows, matches, [], self.state.evals, self.run_dir / "evals.csv",
                                       lambda tag, value: writer.add_scalar(tag, value, iteration))
        self.echo(f"iteration {iteration}: alphabeta:depth={self.cfg.eval_depth},eval=RUN scores {summary}")

    def _final(self, evaluation: LearnedEval) -> dict[str, Any]:
        cfg = self.config
        suite = self._suite(cfg.eval.final_openings, SUITE_FINAL)
        self.echo(f"final evaluation over {suite.label()}: alphabeta:depth={self.cfg.eval_depth},eval=RUN and "
                  f"the bare policy network, against each of {', '.join(cfg.eval.ladder)}")
        rows, matches = evaluate(self.game, self.search_agent(evaluation), cfg.eval.ladder, suite, self.state.steps)
        ladder = []
        if cfg.eval.ladder_openings > 0:  # the ladder agents against each other anchor the ratings
            ladder = ladder_results(self.game, cfg.eval.ladder, self._suite(cfg.eval.ladder_openings, SUITE_LADDER))
            self.state.ladder = ladder_to_json(ladder)
        ratings = learner_ratings(ladder, matches, intervals=True)
        bare = LearnedPolicyAgent(self.run_dir, seed=cfg.seed)
        bare.name = LEARNER
        bare_rows, _ = evaluate(self.game, bare, cfg.eval.ladder, suite, self.state.steps)
        report = build_report(cfg, self.state, rows, ratings, suite, self.run_dir)
        report["learner"] = f"alphabeta:depth={self.cfg.eval_depth},eval=RUN_DIR"
        report["bare_network_evaluation"] = bare_rows
        write_report(report, self.run_dir)
        extra = (f"\n## The bare policy network (policy:RUN_DIR, no search)\n\nOver the same suite.\n\n"
                 f"{results_table(bare_rows)}\n")
        markdown = (self.run_dir / "report.md").read_text(encoding="utf-8")
        write_text_atomic(self.run_dir / "report.md", markdown + extra)
        return report
