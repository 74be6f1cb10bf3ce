"""The search-bootstrap trainer's self-play on Ray against the local backend, and its scaling.

    .venv/bin/python benchmarks/ray_training.py                       # every setup, defaults below
    .venv/bin/python benchmarks/ray_training.py --games 128 --depth 4 --iterations 5 --nodes 3 --repeats 2 --out FILE

Each setup trains ``kalah-v0-quick`` for ``--iterations`` iterations of ``--games`` self-play games
at ``--depth`` plies (evaluations left out) in this process, with the trainer's own code, and times
the parts of every iteration after the first two (they start the workers and compile their
searches, without and with a network): the self-play games, the weight broadcast (``ray.put`` of the new evaluation), the fit,
the export of ``evaluation.npz`` and the checkpoint. The setups:

* the local backend (forked processes) with 1 and 2 workers;
* a local Ray (``ray.init(num_cpus=k)``) with k = 1 and 2 actors;
* a simulated cluster: ``--nodes`` nodes started with ``ray start`` on this machine (a head and
  workers, one CPU each; token authentication off, as on a private network), one actor per CPU;
  the nodes are stopped at the end (SIGTERM to the ``ray start --block`` processes this script began).

It prints games per second per CPU (Ray against the local backend with as many CPUs), the driver's
share of an iteration (everything but the games: fit, broadcast, export, checkpoint) and the
speed-up Amdahl's law projects at 8, 32 and 128 CPUs from the serial share measured with one Ray
actor. Each setup runs ``--repeats`` times, the local and the Ray runs alternated, and keeps its
fastest run (the load of a shared machine only slows a run down). It checks that every run ended
with the same networks. Results go to
``benchmarks/results/ray_training.json`` through a temporary file, with ``os.getloadavg()`` at the
start and the end: on a shared machine the figures move with the load.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # the simulated cluster's nodes and this driver alike

import numpy as np  # noqa: E402
import ray  # noqa: E402

from mancala_envs.core.files import write_text_atomic  # noqa: E402
from mancala_envs.training import search_bootstrap  # noqa: E402
from mancala_envs.training.checkpoint import RunState  # noqa: E402
from mancala_envs.training.config import load_config  # noqa: E402
from mancala_envs.training.run_folder import start_run  # noqa: E402
from mancala_envs.training.train import make_trainer  # noqa: E402

SCHEMA = "ray-training-1"  # scripts/gen_results_pages.py renders files of this schema
PROJECTED_CPUS = (8, 32, 128)
PARTS = ("selfplay", "broadcast", "fit", "export", "checkpoint")


UNTIMED = 2  # the first iterations start the workers and compile their searches, with and without a network


class Clock:
    """Seconds spent in each part of the iterations after the first ``UNTIMED``."""

    def __init__(self):
        self.iteration = 0  # iterations finished (a checkpoint ends each)
        self.seconds = dict.fromkeys(PARTS, 0.0)
        self.measured_from: float | None = None  # the end of the last untimed iteration
        self.measured_to = 0.0

    def timed(self, part: str, function):
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                if self.iteration >= UNTIMED:
                    self.seconds[part] += time.perf_counter() - start
        return wrapper

    def iteration_done(self) -> None:
        self.iteration += 1
        now = time.perf_counter()
        if self.iteration == UNTIMED:
            self.measured_from = now
        self.measured_to = now


def train_timed(label: str, overrides: list[str], runs: Path, cpus: int) -> tuple[dict, dict]:
    """One run of the setup; its timings (iterations after the first) and its networks."""
    config = load_config("kalah-v0-quick", overrides + [f"runs_dir={runs}"])
    run_dir = start_run(config, f"benchmarks/ray_training.py ({label})")
    trainer = make_trainer(config, run_dir, RunState(), echo=lambda text: print(f"  {text}", file=sys.stderr))
    clock = Clock()
    made = search_bootstrap.selfplay_backend

    def backend(*args, **kwargs):
        players = made(*args, **kwargs)
        players.play = clock.timed("selfplay", players.play)
        return players

    checkpoint = trainer._save_checkpoint

    def checkpoint_then_tick():
        clock.timed("checkpoint", checkpoint)()
        clock.iteration_done()

    trainer._fit = clock.timed("fit", trainer._fit)
    trainer._save_evaluation = clock.timed("export", trainer._save_evaluation)
    trainer._save_checkpoint = checkpoint_then_tick
    trainer._evaluate = lambda *args: None  # no evaluation (the last iteration's, the final one): the loop alone
    trainer._final = lambda evaluation: {}
    put = ray.put
    ray.put = clock.timed("broadcast", put)
    search_bootstrap.selfplay_backend = backend
    try:
        trainer.run()
    finally:
        search_bootstrap.selfplay_backend, ray.put = made, put
    return summary(label, config, clock, cpus, run_dir)


def summary(label: str, config, clock: Clock, cpus: int, run_dir: Path) -> tuple[dict, dict]:
    iterations = clock.iteration - UNTIMED
    wall = clock.measured_to - clock.measured_from
    games = config.value.games * iterations
    playing = clock.seconds["selfplay"] - clock.seconds["broadcast"]  # the broadcast happens inside play()
    serial = wall - playing
    with np.load(run_dir / "evaluation.npz") as arrays:
        networks = {name: arrays[name].tobytes() for name in arrays.files}
    row = {"setup": label, "cpus": cpus, "backend": config.backend, "workers": config.value.workers,
           "iterations_timed": iterations, "games_timed": games, "iteration_s": round(wall / iterations, 3),
           "games_per_s_per_cpu": round(games / playing / cpus, 4),
           "driver_share": round(serial / wall, 4),
           "shares": {part: round((playing if part == "selfplay" else clock.seconds[part]) / wall, 4)
                      for part in PARTS},
           "other_share": round((serial - sum(clock.seconds[p] for p in PARTS[1:])) / wall, 4)}
    print(f"{label}, {cpus} CPU(s): {row['games_per_s_per_cpu']} games/s per CPU, {row['iteration_s']} s per iteration, "
          f"driver share {row['driver_share']:.1%} (fit {row['shares']['fit']:.1%}, broadcast "
          f"{row['shares']['broadcast']:.2%}, export {row['shares']['export']:.1%}, checkpoint "
          f"{row['shares']['checkpoint']:.1%})", flush=True)
    return row, networks


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def simulated_cluster(nodes: int):
    """``nodes`` Ray nodes of one CPU on this machine (``ray start --block``), this process joined to them;
    their address. The nodes start one after another, each with ports of its own (nodes of one machine
    would otherwise contend for the same agent ports). On leaving, this process leaves Ray and each
    ``ray start`` process it began gets SIGTERM, which stops the processes of its node."""
    ray_cli = str(Path(sys.executable).with_name("ray"))
    port = free_port()
    address = f"127.0.0.1:{port}"
    started = []
    logs = Path(tempfile.mkdtemp(prefix="ray-training-nodes-"))
    try:
        for k in range(nodes):
            where = ["--head", "--port", str(port), "--include-dashboard", "false"] if k == 0 else ["--address", address]
            ports = [arg for flag in ("--node-manager-port", "--object-manager-port", "--metrics-export-port",
                                      "--dashboard-agent-listen-port", "--dashboard-agent-grpc-port",
                                      "--runtime-env-agent-port") for arg in (flag, str(free_port()))]
            with open(logs / f"node{k}.log", "w") as log:
                started.append(subprocess.Popen([ray_cli, "start", *where, *ports, "--num-cpus", "1",
                                                 "--disable-usage-stats", "--block"], stdout=log, stderr=log,
                                                stdin=subprocess.DEVNULL))
            if k == 0:
                wait_for(lambda: head_is_up(address), "the head node", logs)
                ray.init(address=address, logging_level="ERROR", log_to_driver=False)
            wait_for(lambda: ray.cluster_resources().get("CPU", 0) >= k + 1, f"node {k}", logs)
        yield address
        shutil.rmtree(logs, ignore_errors=True)
    finally:
        ray.shutdown()
        for process in reversed(started):  # the workers, then the head
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
        forget_cluster(port)


def forget_cluster(port: int) -> None:
    """Remove Ray's note of the latest ``ray start`` cluster if it names ours (``ray stop`` would; a bare
    ``ray.init()`` would try to join the stopped cluster)."""
    note = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
    with contextlib.suppress(OSError):
        if note.read_text().strip().endswith(f":{port}"):
            note.unlink()


def head_is_up(address: str) -> bool:
    host, port = address.split(":")
    with socket.socket() as s:
        return s.connect_ex((host, int(port))) == 0


def wait_for(check, what: str, logs: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} did not come up within {timeout:.0f} s (the nodes' logs: {logs})")
        time.sleep(1)


def provenance(argv: list[str] | None) -> dict:
    """The command, the commit and the time of this measurement."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    command = " ".join(["python benchmarks/ray_training.py", *(sys.argv[1:] if argv is None else argv)])
    return {"command": command.strip(), "commit": commit.stdout.strip() or None,
            "measured_at": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


@contextlib.contextmanager
def local_ray(cpus: int):
    """A new local Ray of ``cpus`` CPUs for the block."""
    ray.init(address="local", num_cpus=cpus, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def best(runs: list[tuple[dict, dict]]) -> tuple[dict, dict]:
    """The run of a setup with the most games per second per CPU (a shared machine's load only slows a
    run down), with every run's figure beside it."""
    row, nets = max(runs, key=lambda run: run[0]["games_per_s_per_cpu"])
    return {**row, "games_per_s_per_cpu_runs": [run[0]["games_per_s_per_cpu"] for run in runs]}, nets


def amdahl(serial: float, cpus: int) -> float:
    return 1.0 / (serial + (1.0 - serial) / cpus)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=128, help="self-play games per iteration (default 128)")
    parser.add_argument("--depth", type=int, default=4, help="plies each self-play move searches (default 4, as kalah-v0-quick)")
    parser.add_argument("--iterations", type=int, default=5,
                        help=f"iterations per setup, the first {UNTIMED} untimed (default 5)")
    parser.add_argument("--nodes", type=int, default=3, help="nodes of the simulated cluster (default 3; 0: none)")
    parser.add_argument("--repeats", type=int, default=2, help="runs per setup, the fastest kept (default 2)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "ray_training.json"))
    args = parser.parse_args(argv)
    common = [f"value.iterations={args.iterations}", f"value.games={args.games}", f"value.depth={args.depth}",
              "value.eval_every=1000000", "eval.ladder_openings=0"]
    load_start = os.getloadavg()
    rows, networks = [], []
    with tempfile.TemporaryDirectory(prefix="ray-training-") as runs:
        for cpus in (1, 2):
            local_runs, ray_runs = [], []
            for _ in range(args.repeats):  # alternated, so a change of the machine's load hits both
                local_runs.append(train_timed("local processes", common + [f"value.workers={cpus}"],
                                              Path(runs), cpus))
                with local_ray(cpus):
                    ray_runs.append(train_timed("local Ray",
                                                common + ["backend=ray", f"value.workers={cpus}"], Path(runs), cpus))
            for row, nets in (best(local_runs), best(ray_runs)):
                rows.append(row)
                networks.append(nets)
            rows[-1]["vs_local"] = round(rows[-1]["games_per_s_per_cpu"] / rows[-2]["games_per_s_per_cpu"], 3)
            print(f"  Ray/local games/s per CPU with {cpus} CPU(s) (best of {args.repeats}): x{rows[-1]['vs_local']}",
                  flush=True)
        if args.nodes:
            with simulated_cluster(args.nodes) as address:
                row, nets = best([train_timed(f"{args.nodes} ray start nodes of 1 CPU", common + [
                    "backend=ray", f"ray_address={address}", "value.workers=0"], Path(runs), args.nodes)
                    for _ in range(args.repeats)])
            rows.append(row)
            networks.append(nets)
    serial = next(r for r in rows if r["setup"] == "local Ray" and r["cpus"] == 1)["driver_share"]
    projection = {str(n): round(amdahl(serial, n), 2) for n in PROJECTED_CPUS}
    equal = all(n == networks[0] for n in networks)
    print(f"Amdahl from the driver's share with one actor ({serial:.1%}): speed-up "
          + ", ".join(f"x{s} at {n} CPUs" for n, s in projection.items())
          + f"; same networks in every setup: {equal}", flush=True)
    payload = {"schema": SCHEMA, "provenance": provenance(argv), "machine": {"cores": os.cpu_count()},
               "load_average": {"start": [round(x, 2) for x in load_start],
                                "end": [round(x, 2) for x in os.getloadavg()]}, "ray": ray.__version__,
               "workload": {"config": "kalah-v0-quick", "games_per_iteration": args.games, "depth": args.depth,
                            "iterations": args.iterations, "untimed_iterations": UNTIMED, "nodes": args.nodes,
                            "repeats": args.repeats},
               "rows": rows, "serial_share_one_actor": serial, "projected_speedup": projection,
               "same_networks": equal, "assumptions": [
                   f"timed: the iterations after the first {UNTIMED} (they start the workers and compile their "
                   "searches, without and with a network)",
                   "games/s per CPU: the games over the seconds spent playing them (the broadcast left out) over "
                   "the CPUs; each setup runs --repeats times (local and Ray alternated) and the fastest run is kept",
                   "driver share: the iteration's seconds outside the games (fit, broadcast, export, checkpoint, "
                   "the rest of the loop) over its seconds",
                   "projection: Amdahl's law with the driver share measured with one Ray actor as the serial part; "
                   "at most value.games actors are busy at once, and the fit grows with the replay buffer, so "
                   "more CPUs need more games per iteration",
                   "the simulated cluster's nodes share this machine's cores: with more nodes than cores its "
                   "games/s per CPU falls with the oversubscription",
               ]}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(Path(args.out), json.dumps(payload, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
