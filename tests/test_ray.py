"""Scale-out on Ray: the arena's Ray backend and RLlib training (the ray extra).

One local Ray per test session (2 CPUs, no dashboard); command-line runs join it with
``--address``/``ray_address``, so no test starts a second cluster. The default backend's
freedom from Ray is checked in a fresh interpreter.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from mancala_envs.agents import make_agent  # noqa: E402
from mancala_envs.evaluation import play_match
from mancala_envs.evaluation.openings import opening_suite  # noqa: E402
from mancala_envs.evaluation.ray_backend import chunks  # noqa: E402
from mancala_envs.evaluation.tournament import json_default, round_robin  # noqa: E402
from mancala_envs.core.errors import IllegalActionError, InvalidOptionError  # noqa: E402
from mancala_envs.registry import make_game  # noqa: E402
from mancala_envs.training.checkpoint import (COMMIT_STEPS, FAULT_ENV, KILLED_EXIT, load_checkpoint,  # noqa: E402
                                              read_checkpoint)
from mancala_envs.wrappers.rllib import AGENTS, MancalaMultiAgentEnv  # noqa: E402

pytestmark = pytest.mark.slow  # the full suite only: Ray starts a cluster per test module

ROOT = Path(__file__).resolve().parents[1]
AGENT_SPECS = ["random", "greedy", "alphabeta:depth=2", "mcts:sims=40"]


@pytest.fixture(scope="session")
def ray_address():
    """A local Ray with 2 CPUs for the whole session; its address for the command line."""
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def mancala(*args: str, timeout: float = 600, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mancala_envs.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, stdin=subprocess.DEVNULL,
                          env=None if env is None else {**os.environ, **env})


# -- the default backend ---------------------------------------------------------------------------
def test_the_default_backend_never_imports_ray():
    code = ("import sys, mancala_envs.evaluation.arena, mancala_envs.evaluation.tournament, mancala_envs.cli, "
            "mancala_envs.training.evaluation\n"
            "from mancala_envs.evaluation import play_match\n"
            "play_match('kalah-v0', 'random', 'greedy', 2, workers=1)\n"
            "assert not [m for m in sys.modules if m == 'ray' or m.startswith('ray.')], 'ray was imported'")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr


def test_bad_backend_is_refused():
    with pytest.raises(ValueError, match="backend must be one of local, ray"):
        play_match("kalah-v0", "random", "greedy", 1, backend="dask")
    out = mancala("match", "kalah-v0", "random", "greedy", "--openings", "1", "--address", "auto")
    assert out.returncode != 0 and "give --backend ray" in out.stderr


def test_chunks_cover_every_opening_once():
    for pairs, workers in [(1, 4), (7, 2), (100, 3), (500, 64)]:
        cut = chunks(pairs, workers)
        assert sorted(i for chunk in cut for i in chunk) == list(range(pairs))


# -- the Ray backend ---------------------------------------------------------------------------------
def test_tournament_results_are_equal_on_both_backends(ray_address, tmp_path):
    """The ``results`` of ``mancala tournament --json`` with ``--backend ray`` equal the local ones."""
    local = round_robin("kalah-v0", AGENT_SPECS, openings=3, seed=5, workers=2, bootstrap_samples=20)
    out = mancala("tournament", "kalah-v0", "--agents", *AGENT_SPECS, "--openings", "3", "--seed", "5",
                  "--bootstrap", "20", "--backend", "ray", "--address", ray_address, "--no-plot",
                  "--no-progress", "--json", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    on_ray = json.loads(out.stdout)
    expected = json.loads(json.dumps(local.to_dict(), default=json_default))
    assert on_ray["results"] == expected["results"]
    assert on_ray["rows"] == expected["rows"]


def test_match_on_ray_reports_progress_and_matches_local(ray_address):
    seen = []
    on_ray = play_match("kalah-v0", "greedy", "alphabeta:depth=2", 5, seed=2, backend="ray", progress=seen.append)
    local = play_match("kalah-v0", "greedy", "alphabeta:depth=2", 5, seed=2, workers=1)
    assert on_ray.report() == local.report()
    assert seen == sorted(seen) and seen[-1] == 10 and len(seen) >= 2  # after every chunk, up to every game


class DiesOnce:
    """Greedy, but the worker process playing game ``victim`` dies the first time (a lost node)."""

    def __init__(self, marker: str, victim_seed: int):
        self.inner = make_agent("greedy")
        self.marker, self.victim_seed = marker, victim_seed
        self.name = "dies-once"
        self.seed = None

    def reset(self, seed=None):
        self.seed = seed
        self.inner.reset(seed=seed)

    def act(self, state):
        if self.seed == self.victim_seed and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os._exit(1)  # the whole worker process, mid-chunk
        return self.inner.act(state)


def test_a_lost_worker_has_its_games_replayed_once(ray_address, tmp_path):
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import this test module
    game = make_game("kalah-v0")
    suite = opening_suite(game, 8, seed=4)
    from mancala_envs.evaluation.arena import agent_seeds

    victim = int(agent_seeds(suite)[9, 0])  # game 9: the second game of opening 4
    marker = tmp_path / "died"
    seen = []
    on_ray = play_match(game, DiesOnce(str(marker), victim), "alphabeta:depth=2", suite, backend="ray", workers=2,
                        progress=seen.append)
    assert marker.exists(), "the worker was never lost"
    local = play_match(game, DiesOnce(str(marker), victim), "alphabeta:depth=2", suite, workers=1)
    assert on_ray.report() == local.report()
    assert on_ray.counts()[0] == 16 and len(on_ray.games_played) == 16
    assert seen[-1] == 16 and max(seen) == 16 and seen == sorted(seen)


# -- RLlib -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("plies", [(3, 1), (-1, 2), (1, 2, 3)])
def test_rllib_env_refuses_bad_opening_plies(plies):
    with pytest.raises(InvalidOptionError, match="opening_plies must be"):
        MancalaMultiAgentEnv({"env_id": "kalah-v0", "opening_plies": plies})


def test_rllib_env_gives_masks_and_observations_where_rllib_reads_them():
    env = MancalaMultiAgentEnv({"env_id": "kalah-v0", "seed": 3})
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    plies, rewards = 0, {}
    while True:
        (agent, o), = obs.items()
        assert agent in AGENTS and set(o) == {"observations", "action_mask"}
        assert o["action_mask"].dtype == np.float32 and env.observation_spaces[agent].contains(o)
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terminated, truncated, _ = env.step({agent: action})
        plies += 1
        if terminated["__all__"] or truncated["__all__"]:
            break
    assert sorted(rewards) == list(AGENTS) and sum(rewards.values()) == 0
    agent, illegal = an_illegal_action(env, rng)
    _, rewards, terminated, _, infos = env.step({agent: illegal})  # RLlib's env check steps unmasked actions
    assert terminated["__all__"] and rewards[agent] == -1.0 and "not legal" in infos[agent]["illegal_reason"]
    strict = MancalaMultiAgentEnv({"env_id": "kalah-v0", "illegal_action": "raise"})
    agent, illegal = an_illegal_action(strict, rng)
    with pytest.raises(IllegalActionError, match="not legal"):
        strict.step({agent: illegal})


def an_illegal_action(env: MancalaMultiAgentEnv, rng) -> tuple[str, int]:
    """Play random legal moves from a reset until the mover has an illegal action; (mover, that action)."""
    (agent, o), = env.reset(seed=3)[0].items()
    while o["action_mask"].all():
        (agent, o), = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})[0].items()
    return agent, int(np.flatnonzero(o["action_mask"] == 0)[0])


def test_rllib_env_seats_a_pool_opponent():
    env = MancalaMultiAgentEnv({"env_id": "kalah-v0", "opponents": [("greedy", 1.0)], "self_play_weight": 0.0,
                                "opening_plies": (2, 4), "seed": 1})
    seats = set()
    for episode in range(4):
        obs, _ = env.reset(seed=episode) if episode == 0 else env.reset()
        seats.add(env.opponent_seat)
        assert len(env.agents) == 1 and list(obs) == env.agents
        while obs:
            (agent, o), = obs.items()
            assert agent == env.agents[0]
            obs, rewards, terminated, truncated, _ = env.step({agent: int(np.flatnonzero(o["action_mask"])[0])})
            if terminated["__all__"] or truncated["__all__"]:
                assert set(rewards) <= set(env.agents)
                break
    assert seats == {0, 1}


RLLIB_TINY = ["rllib.train_batch_size=128", "rllib.num_env_runners=0", "rllib.num_envs_per_env_runner=2",
              "ppo.batch_size=64", "ppo.n_epochs=1", "ppo.net_arch=[16]", "checkpoint_every=128",
              "pool.snapshot_every=128", "pool.keep_last=1", "eval.every=256", "eval.openings=1",
              "eval.final_openings=1", "pool.baselines={random: 1.0}"]


def test_rllib_training_checkpoints_resumes_and_plays_as_policy(ray_address, tmp_path):
    tiny = RLLIB_TINY + ["total_timesteps=256", "eval.ladder_openings=1", "eval.ladder=[random,greedy]",
                         f"ray_address={ray_address}", f"runs_dir={tmp_path}"]
    out = mancala("train", str(ROOT / "configs" / "kalah-v0-rllib.yaml"), *tiny)
    assert out.returncode == 0, out.stdout + out.stderr
    run = next(tmp_path.glob("kalah-v0-*"))
    for name in ("config.yaml", "evaluation.npz", "report.md", "report.json", "evals.csv",
                 "checkpoints/latest.zip", "checkpoints/previous.zip", "checkpoints/state.json"):
        assert (run / name).is_file(), name
    assert list((run / "tb").glob("events.out.tfevents.*")), "no TensorBoard log"
    state = load_checkpoint(run)
    assert len(state.snapshots) == 1  # keep_last; the files of the previous checkpoint's stay with it
    kept = set(state.snapshots) | set(read_checkpoint(run / "checkpoints" / "previous.zip")[0].snapshots)
    assert set(state.snapshots) <= {p.stem for p in (run / "snapshots").glob("*.npz")} <= kept
    report = json.loads((run / "report.json").read_text())
    assert report["steps"] >= 256 and [r["opponent"] for r in report["final_evaluation"]] == ["random", "greedy"]
    assert report["final_evaluation"][0]["in_training_pool"] and not report["final_evaluation"][1]["in_training_pool"]
    first = json.loads((run / "checkpoints" / "state.json").read_text())["steps"]

    config = (run / "config.yaml").read_text().replace("total_timesteps: 256", "total_timesteps: 384")
    (run / "config.yaml").write_text(config)
    out = mancala("train", "--resume", str(run))
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"resumed from {run / 'checkpoints' / 'latest.zip'} at step {first}" in out.stdout
    assert json.loads((run / "report.json").read_text())["steps"] >= max(first + 128, 384)

    policy = make_agent(f"policy:{run}")  # the one loader: evaluation.npz
    result = play_match("kalah-v0", policy, "random", 2, workers=1)
    assert result.counts()[0] == 4

    out = mancala("eval", str(run), "--against", "greedy", "--openings", "1", "--ladder-openings", "0",
                  "--no-progress", "--out", str(tmp_path / "eval"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"evaluating policy:{run}" in out.stdout


@pytest.mark.parametrize("step", range(1, COMMIT_STEPS + 1))
def test_rllib_killed_at_each_commit_step_resumes_from_the_old_or_the_new_checkpoint(ray_address, tmp_path, step):
    tiny = RLLIB_TINY + ["total_timesteps=384", "eval.ladder_openings=0", "eval.ladder=[random]",
                         f"ray_address={ray_address}", f"runs_dir={tmp_path}"]
    out = mancala("train", str(ROOT / "configs" / "kalah-v0-rllib.yaml"), *tiny, env={FAULT_ENV: f"2:{step}"})
    assert out.returncode == KILLED_EXIT, out.stdout + out.stderr
    run = next(tmp_path.glob("kalah-v0-*"))
    out = mancala("train", "--resume", str(run))
    assert out.returncode == 0, out.stdout + out.stderr
    (kept,) = re.findall(rf"resumed from {re.escape(str(run / 'checkpoints' / 'latest.zip'))} at step (\d+)", out.stdout)
    assert 256 <= int(kept) < 384 if step >= 4 else 128 <= int(kept) < 256  # the second commit is step 4's rename
    assert load_checkpoint(run).steps >= 384 and json.loads((run / "report.json").read_text())["steps"] >= 384


def test_rllib_example_runs(ray_address):
    out = subprocess.run([sys.executable, "examples/rllib_selfplay.py", "--iterations", "1", "--batch", "64",
                          "--address", ray_address], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "iteration 1/1" in out.stdout and "nan" not in out.stdout


def test_strength_benchmark_rows_are_equal_on_both_backends(ray_address):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import strength
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    rows = [strength.measure_row("kalah-v0", "alphabeta:depth=2", "random", ROOT, 3, 5, backend, address)
            for backend, address in (("local", None), ("ray", ray_address))]
    for key in ("games", "distinct_games", "score", "score_ci"):
        assert rows[0][key] == rows[1][key], key
    assert rows[1]["command"].endswith(f"--backend ray --address {ray_address}")
