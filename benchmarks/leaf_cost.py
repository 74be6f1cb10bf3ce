"""Leaf cost of a learned evaluation inside alpha-beta: nodes per second with and without move features.

    .venv/bin/python benchmarks/leaf_cost.py                          # widdershins-v0, depth 3, 40 positions
    .venv/bin/python benchmarks/leaf_cost.py --env rondell-v0 --depth 4 --positions 60 --out FILE

On the same random mid-game positions (uniformly random moves from seeded deals) it runs
``search(state, depth)`` three ways: plain alpha-beta (the score difference at the leaves),
a learned evaluation without move features, and one with the game's move features
(``value.features: moves``, computed from the leaf's state by the kernel: the set the game declares
in ``mancala_envs.agents.learned.move_features``; Rondell, Widdershins and Progressive have one).
The networks are random, of the committed config's shape (``scaled`` encoding, one hidden layer
of 64, score blend): the cost per node does not depend on the weights. It prints nodes per second
of each (every search's nodes over its seconds, summed) and the ratios, and writes them as JSON to
``benchmarks/results/leaf_cost.json`` (or ``--out``) with ``os.getloadavg()``. Timings
depend on the machine's load: compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from mancala_envs.agents.learned.learned_eval import LearnedEval, input_width  # noqa: E402
from mancala_envs.agents.search import TranspositionTable, search  # noqa: E402
from mancala_envs.core.encodings import encoding_spec  # noqa: E402
from mancala_envs.core.files import write_text_atomic  # noqa: E402
from mancala_envs.agents.learned.move_features import move_feature_set  # noqa: E402
from mancala_envs.registry import make_game  # noqa: E402


def positions(game, count: int, seed: int) -> list:
    """``count`` positions after 4..40 uniformly random moves from seeded deals (none over)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_state(int(rng.integers(2**31)))
        for _ in range(int(rng.integers(4, 41))):
            if state.is_terminal() or state.is_truncated():
                break
            state.apply(int(rng.choice(state.legal_actions())))
        if not (state.is_terminal() or state.is_truncated()):
            out.append(state)
    return out


def random_evaluation(game, features: str, seed: int) -> LearnedEval:
    """A random network of the committed Widdershins config's shape (scaled, [64], score blend), reading
    the game's move features with ``features="moves"``."""
    rng = np.random.default_rng(seed)
    width = input_width(game, "scaled", features)
    value = [(rng.normal(size=(width, 64)) / np.sqrt(width), np.zeros(64)), (rng.normal(size=(64, 1)) * 0.1, np.zeros(1))]
    spec = encoding_spec("scaled", game.observation_size, game.observation_bounds())
    return LearnedEval(game, spec, "relu", [(w.astype(np.float32), b.astype(np.float32)) for w, b in value], None,
                       "random", None, 1 / 6, move_feature_set(features, game))


def nodes_per_second(states, depth: int, evaluation) -> tuple[float, int]:
    net = evaluation.net() if evaluation is not None else None
    search(states[0], 1, evaluation=net)  # compile outside the timing
    nodes, seconds = 0, 0.0
    for state in states:
        found = search(state, depth, tt=TranspositionTable(16), rng=np.random.default_rng(0), evaluation=net)
        nodes += found.nodes
        seconds += found.seconds
    return nodes / seconds, nodes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="widdershins-v0")
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "leaf_cost.json"))
    args = parser.parse_args(argv)
    game = make_game(args.env)
    states = positions(game, args.positions, args.seed)
    load_start = os.getloadavg()
    rows = {"plain": nodes_per_second(states, args.depth, None),
            "eval": nodes_per_second(states, args.depth, random_evaluation(game, "none", args.seed)),
            "eval+moves": nodes_per_second(states, args.depth, random_evaluation(game, "moves", args.seed))}
    print(f"{args.env}, alpha-beta depth {args.depth}, {len(states)} positions (load {load_start[0]:.2f}):")
    for name, (rate, nodes) in rows.items():
        print(f"  {name:<11} {rate:>12,.0f} nodes/s  ({nodes} nodes, {rate / rows['plain'][0]:.3f}x plain)")
    ratio = rows["eval+moves"][0] / rows["eval"][0]
    print(f"  move features: {ratio:.3f}x the nodes/s of the evaluation without them")
    result = {"env_id": args.env, "depth": args.depth, "positions": len(states),
              "nodes_per_second": {k: v[0] for k, v in rows.items()}, "nodes": {k: v[1] for k, v in rows.items()},
              "moves_over_eval": ratio, "loadavg_start": load_start, "loadavg_end": os.getloadavg(),
              "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(Path(args.out), json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
