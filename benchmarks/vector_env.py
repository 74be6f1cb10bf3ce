#!/usr/bin/env python
"""The numba vector env against Gymnasium's SyncVectorEnv of the single-agent env.

    python benchmarks/vector_env.py [--env kalah-v0] [--num-envs 256] [--steps 300] [--out FILE]

Both are made by ``gymnasium.make_vec("mancala/ID", num_envs=N, vectorization_mode=...)``:
``"vector_entry_point"`` (``mancala_envs.vector_gym.MancalaVectorEnv``, the batched engine)
and ``"sync"`` (N ``MancalaGymEnv`` in a ``SyncVectorEnv``). Both play the learner against the
default uniformly random opponent, and the learner's actions are drawn the same way in both
loops (uniform over the legal actions, from the learner's masks: ``action_masks()`` of the
vector env, ``info["action_mask"]`` of the sync one). After a warm-up (numba compilation),
each is timed for a number of vector steps; the figure is learner steps per second (vector
steps x N), the median of several samples. ``speedup`` is the ratio of the two medians,
measured in the same run. Timings are never asserted.

Prints the figures and writes them as JSON (temporary name, then ``os.replace``) to
``benchmarks/results/vector_env.json`` or ``--out``. ``measure_vector_env`` is the function
``benchmarks/run.py`` can call.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402

import mancala_envs  # noqa: E402, F401  (registers the ids)
from mancala_envs.core.files import write_text_atomic  # noqa: E402

DEFAULT_OUT = ROOT / "benchmarks" / "results" / "vector_env.json"


def _steps_per_second(env, steps: int, masks_of, samples: int, seed: int = 0) -> list[float]:
    """Learner steps per second of ``env`` over ``samples`` timed runs of ``steps`` vector steps."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    for _ in range(3):  # warm-up: compilation, first allocations
        masks = masks_of(env, info)
        _, _, _, _, info = env.step(np.argmax(masks * rng.random(masks.shape), axis=1))
    rates = []
    for _ in range(samples):
        start = time.perf_counter()
        for _ in range(steps):
            masks = masks_of(env, info)
            _, _, _, _, info = env.step(np.argmax(masks * rng.random(masks.shape), axis=1))
        rates.append(steps * env.num_envs / (time.perf_counter() - start))
    return rates


def measure_vector_env(env_id: str = "kalah-v0", num_envs: int = 256, steps: int = 300, samples: int = 3) -> dict[str, Any]:
    """Learner steps/s of the numba vector env and of ``SyncVectorEnv``, and their ratio."""
    fast = gymnasium.make_vec(f"mancala/{env_id}", num_envs=num_envs, vectorization_mode="vector_entry_point")
    sync = gymnasium.make_vec(f"mancala/{env_id}", num_envs=num_envs, vectorization_mode="sync")
    # the sync env is far slower: fewer steps give it a comparable wall time per sample
    sync_steps = max(1, steps // 20)
    fast_rates = _steps_per_second(fast, steps, lambda env, info: env.action_masks(), samples)
    sync_rates = _steps_per_second(sync, sync_steps, lambda env, info: info["action_mask"], samples)
    fast.close()
    sync.close()
    result = {
        "env_id": env_id,
        "num_envs": num_envs,
        "vector_entry_point_steps_per_s": statistics.median(fast_rates),
        "sync_steps_per_s": statistics.median(sync_rates),
        "samples": {"vector_entry_point": fast_rates, "sync": sync_rates},
        "vector_steps": {"vector_entry_point": steps, "sync": sync_steps},
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    result["speedup"] = result["vector_entry_point_steps_per_s"] / result["sync_steps_per_s"]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="kalah-v0")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--steps", type=int, default=300, help="timed vector steps per sample (sync: 1/20 of it)")
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    result = measure_vector_env(args.env, args.num_envs, args.steps, args.samples)
    print(f"{args.env}, {args.num_envs} games, learner steps/s (median of {args.samples}):")
    print(f"  vector_entry_point  {result['vector_entry_point_steps_per_s']:>12,.0f}")
    print(f"  sync                {result['sync_steps_per_s']:>12,.0f}")
    print(f"  speedup             {result['speedup']:>12.1f}x   (load average {result['load_average']})")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(args.out, json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
