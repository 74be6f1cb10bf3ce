"""The search-bootstrap trainer's self-play on Ray (``backend: ray``, ``training.ray_selfplay``).

The config keys and the local backend's independence from its number of workers are checked in
the fast lane. The Ray runs (slow) join one local Ray of 2 CPUs for the session, through
``ray_address``, and compare the exported networks (``evaluation.npz``, byte for
byte) with a run on the local backend.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from mancala_envs.core.extras import MissingExtraError  # noqa: E402
from mancala_envs.training.checkpoint import FAULT_ENV, KILLED_EXIT  # noqa: E402
from mancala_envs.training.config import ConfigError, load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
QUICK = "kalah-v0-quick"
ITERATIONS = 3
TINY = [f"value.iterations={ITERATIONS}", "value.games=4", "value.depth=2", "value.eval_depth=1", "value.hidden=[8]",
        "value.eval_every=2", "eval.openings=1", "eval.final_openings=1", "eval.ladder_openings=0",
        "eval.ladder=[random]"]
RAY_FAULT_ENV = "MANCALA_RAY_SELFPLAY_FAULT"  # training.ray_selfplay.FAULT_ENV (that module imports ray)
LOST = "self-play: a Ray actor was lost"


# -- the config (no Ray needed) ------------------------------------------------------------------------
def test_the_backend_keys_are_read_and_shown_by_dry_run():
    config = load_config(QUICK, ["backend=local", "value.workers=0"])
    shown = config.to_dict()
    assert shown["backend"] == "local" and shown["ray_address"] == "" and shown["value"]["workers"] == 0
    with pytest.raises(ConfigError, match="backend must be one of local, ray, got 'rya'"):
        load_config(QUICK, ["backend=rya"])
    with pytest.raises(ConfigError, match="ray_address='auto' names the Ray cluster .* give backend=ray"):
        load_config(QUICK, ["ray_address=auto"])
    with pytest.raises(ConfigError, match="value.workers must be at least 0, got -1"):
        load_config(QUICK, ["value.workers=-1"])


def test_backend_ray_without_ray_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import raises ModuleNotFoundError, as when not installed
    with pytest.raises(MissingExtraError, match="backend: ray needs ray.*'ray' extra"):
        load_config(QUICK, ["backend=ray"])


def test_an_iterations_positions_do_not_depend_on_the_local_workers():
    from mancala_envs.registry import make_game
    from mancala_envs.training.search_bootstrap import joined, play_games
    from mancala_envs.evaluation.work_chunks import chunked
    from mancala_envs.training.selfplay_backends import LocalSelfPlay

    from test_value_trainer import worker_settings

    assert chunked([5, 6, 7], 2) == [[5], [6], [7]] and chunked([5], 3) == [[5]]
    game = make_game("kalah-v0", pits=3, seeds=2)
    settings = worker_settings(game, depth=1, random_plies=2)
    seeds = list(range(11, 20))
    assert chunked(seeds, 1) == [seeds[0:3], seeds[3:6], seeds[6:9]]  # cut otherwise than with 3 workers
    assert chunked(seeds, 3) == [[seed] for seed in seeds]
    played = []
    for workers in (1, 3):
        with LocalSelfPlay(game, settings, workers) as players:
            (batch,) = joined(players.play(play_games, None, seeds))
        played.append(batch)
    (alone,) = joined([play_games(game, None, [seed], settings) for seed in seeds])
    for batch in played:
        assert np.array_equal(batch.observations, alone.observations) and np.array_equal(batch.moves, alone.moves)
        assert np.array_equal(batch.values, alone.values) and np.array_equal(batch.results, alone.results)


# -- on Ray (slow) -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ray_address():
    """A local Ray with 2 CPUs (the session's, if a test module started one); its address for the CLI."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    else:  # the match workers another test module left running would hold both CPUs: the actors would wait
        from mancala_envs.evaluation.ray_backend import release_workers
        release_workers()
    yield ray.get_runtime_context().gcs_address
    if started:
        ray.shutdown()


def train(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``mancala train ...`` in a fresh process (no fault injection unless ``env`` gives one)."""
    environment = {k: v for k, v in os.environ.items() if k not in (FAULT_ENV, RAY_FAULT_ENV)}
    return subprocess.run([sys.executable, "-m", "mancala_envs.cli", "train", *args], capture_output=True,
                          text=True, timeout=900, cwd=ROOT, stdin=subprocess.DEVNULL, env={**environment, **(env or {})})


def run_of(tmp_path: Path, overrides: list[str], env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, Path]:
    out = train(tmp_path, QUICK, *TINY, *overrides, f"runs_dir={tmp_path}", env=env)
    (run,) = tmp_path.glob("kalah-v0-*")
    return out, run


def exported(run: Path) -> bytes:
    """The run's ``evaluation.npz``, byte for byte (``numpy.savez`` stamps no clock: its members carry the zip format's fixed date)."""
    return (run / "evaluation.npz").read_bytes()


def assert_clean_stdout(out: subprocess.CompletedProcess) -> None:
    """The run's own lines only: no Ray log line, no traceback, on stdout."""
    assert out.returncode == 0, out.stderr
    for line in out.stdout.splitlines():
        assert not re.search(r"raylet|\bray\b.*(INFO|WARNING|ERROR)|Started a local Ray", line), line
    assert iterations_trained(out.stdout)


def iterations_trained(output: str) -> list[int]:
    return [int(n) for n in re.findall(rf"^iteration (\d+)/{ITERATIONS}:", output, re.M)]


@pytest.fixture(scope="module")
def local_networks(tmp_path_factory):
    """The networks of the tiny run on the local backend (2 forked workers)."""
    out, run = run_of(tmp_path_factory.mktemp("local"), ["value.workers=2"])
    assert out.returncode == 0, out.stderr
    assert iterations_trained(out.stdout) == [1, 2, 3]
    return exported(run)


@pytest.mark.slow
@pytest.mark.parametrize("actors", [1, 2])
def test_ray_gives_the_local_networks_with_any_number_of_actors(ray_address, local_networks, tmp_path, actors):
    out, run = run_of(tmp_path, ["backend=ray", f"ray_address={ray_address}", f"value.workers={actors}"])
    assert_clean_stdout(out)
    assert f"self-play on {actors} Ray actors" in out.stdout
    assert exported(run) == local_networks


@pytest.mark.slow
def test_a_killed_actor_and_a_killed_driver_leave_the_networks_unchanged(ray_address, local_networks, tmp_path):
    """An actor is killed during iteration 2 (its chunk is played again), the driver dies right after
    iteration 2's checkpoint commit; ``--resume`` finishes on Ray with the networks of the local run."""
    # 4 games on 2 actors: chunks of one game, 4 per iteration; chunk 6 is iteration 2's second, handed out
    # while the first is running
    out, run = run_of(tmp_path, ["backend=ray", f"ray_address={ray_address}", "value.workers=2"],
                      env={RAY_FAULT_ENV: "6", FAULT_ENV: "2:4"})
    assert out.returncode == KILLED_EXIT, out.stderr
    assert LOST in out.stderr and LOST not in out.stdout
    assert iterations_trained(out.stdout) == [1]  # iteration 2's line follows its commit: never printed
    resumed = train(tmp_path, "--resume", str(run))
    assert_clean_stdout(resumed)
    assert iterations_trained(resumed.stdout) == [3] and "resumed from" in resumed.stdout
    assert exported(run) == local_networks
