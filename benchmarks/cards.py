#!/usr/bin/env python
"""The card games' speed (Rondell, Widdershins), optionally against a baseline commit in the same run.

    .venv/bin/python benchmarks/cards.py [--quick] [--baseline REF] [--ids ID ...] [--kinds KIND ...]
                                         [--rounds N] [--out FILE]

Figures, for every Rondell and Widdershins id (compilation excluded: each worker warms every
figure up first):

* ``kernel``: ``mancala_envs.core.playout.random_playouts`` (whole random games inside numba,
  one core), moves/s;
* ``mcts``: ``mancala_envs.agents.mcts.mcts_search`` from the id's start position (UCT, one
  random rollout per simulation), simulations/s: searches of a fixed number of simulations,
  repeated (with new seeds) until the kernel's time budget has passed, so that one sample is
  as long as a kernel sample and not a single short search;
* ``alphabeta``: ``mancala_envs.agents.search.search`` from the id's start position,
  iterative deepening for a fixed time with a cleared transposition table, nodes/s.

These are the functions ``benchmarks/search.py`` times (``bench_mcts``, ``bench_alphabeta``)
and ``benchmarks/run.py``'s ``bench_kernel`` loop, so the figures compare with theirs.

``--baseline REF`` (a commit, branch or tag of this repository) measures the same figures on
that commit in the same run: ``git archive REF`` is unpacked once into a directory under the
system's temporary folder (kept, so that numba's cache stays warm for later runs), and each
version runs in its own worker process (``--worker``, this script's measuring code with the
version's package on ``PYTHONPATH``: it reads one figure request per line and answers one
JSON line). The two workers take turns figure by figure and round by round,
the order swapped every round, so load on the machine hits both alike; the ratios (this
checkout / baseline) are medians of the per-round ratios. Without ``--baseline`` only this
checkout is measured.

Prints a table and writes JSON (``benchmarks/results/cards.json`` or ``--out``) through a
temporary file and ``os.replace``. Timings are never asserted; record the machine's load
(``uptime``) with any figure you quote.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CARD_IDS = ("rondell-v0", "rondell-expert-v0", "rondell-reservation-v0", "rondell-partial-v0",
            "rondell-bottom-up-v0", "widdershins-v0", "widdershins-parlett-v0")
KINDS = ("kernel", "mcts", "alphabeta")
# per figure: (kernel seconds, MCTS simulations per search, alpha-beta seconds), and rounds;
# the MCTS figure repeats its searches for the kernel's seconds. Five rounds or more: one
# slow sample (another process woke up) moves the median ratio little.
BUDGETS = {"quick": ((0.3, 2000, 0.3), 5), "full": ((1.0, 5000, 1.0), 7)}


# -- worker: measures one figure of the checkout it was started from ------------------------------
def _worker_figures():
    """The three measuring functions of the checkout this worker imports."""
    import numba

    numba.set_num_threads(1)
    import mancala_envs
    from mancala_envs.agents.mcts import mcts_search
    from mancala_envs.agents.search import TranspositionTable, search
    from mancala_envs.core.playout import random_playouts

    tt = TranspositionTable(20)

    def kernel(env_id, seconds, seed):
        game = mancala_envs.make_game(env_id)
        probe = random_playouts(game, 200, seed)
        games = max(100, int(probe.games / max(probe.seconds, 1e-9) * seconds))
        totals = random_playouts(game, games, seed + 1)
        return totals.moves / totals.seconds

    def mcts(env_id, budget, seed):
        sims, seconds = budget
        state = mancala_envs.make_game(env_id).new_state(0)
        done = spent = 0.0
        while True:  # at least one search, then more until the time budget is spent
            r = mcts_search(state, sims=sims, seed=seed)
            done += r.simulations
            spent += r.seconds
            seed += 1000
            if spent >= seconds:
                return done / spent

    def alphabeta(env_id, seconds, seed):
        tt.clear()
        r = search(mancala_envs.make_game(env_id).new_state(0), time_limit=seconds, tt=tt)
        return r.nodes / r.seconds

    return {"kernel": kernel, "mcts": mcts, "alphabeta": alphabeta}


def worker() -> int:
    """Answer requests ``{"kind", "env_id", "budget", "seed"}`` (one JSON line each) on stdout."""
    figures = _worker_figures()
    for line in sys.stdin:
        request = json.loads(line)
        rate = figures[request["kind"]](request["env_id"], request["budget"], request["seed"])
        print(json.dumps({"rate": rate}), flush=True)
    return 0


class Worker:
    """A worker process of one checkout (``root``)."""

    def __init__(self, root: Path):
        env = dict(os.environ, PYTHONPATH=str(root))
        # this script's measuring code for every version (the package imported is root's), so
        # that both sides of a ratio are measured alike
        script = Path(__file__).resolve()
        self.proc = subprocess.Popen([sys.executable, str(script), "--worker"], cwd=root, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def measure(self, kind: str, env_id: str, budget: float, seed: int) -> float:
        self.proc.stdin.write(json.dumps({"kind": kind, "env_id": env_id, "budget": budget, "seed": seed}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"benchmarks/cards.py: the worker stopped (exit code {self.proc.wait()})")
        return json.loads(line)["rate"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


# -- the baseline checkout ----------------------------------------------------------------------
class BaselineError(RuntimeError):
    """The baseline ref cannot be checked out (not a git checkout, or not a commit of it)."""


def baseline_checkout(ref: str) -> tuple[Path, str]:
    """``git archive`` of ``ref`` unpacked into a kept temporary directory: (its path, the commit)."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--verify", f"{ref}^{{commit}}"], cwd=ROOT, check=True,
                                capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as err:
        detail = err.stderr.strip() if isinstance(err, subprocess.CalledProcessError) else str(err)
        raise BaselineError(f"baseline {ref!r} is not a commit of this repository ({detail})") from None
    target = Path(tempfile.gettempdir()) / f"mancala-envs-baseline-{commit[:12]}"
    if not (target / "mancala_envs").is_dir():
        partial = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
        archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(partial, filter="data")
        # the installed layout: agents/ and training/ are mancala_envs.agents / .training
        for sub in ("agents", "training"):
            if (partial / sub).is_dir() and not (partial / "mancala_envs" / sub).exists():
                os.symlink(Path("..") / sub, partial / "mancala_envs" / sub)  # relative: the folder is renamed
        os.replace(partial, target)
    return target, commit


# -- the driver ---------------------------------------------------------------------------------
def run(ids, mode: str, baseline: str | None, kinds=KINDS, rounds: int | None = None) -> dict:
    """Measure ``kinds`` of every id in ``ids`` (here, and at ``baseline`` if given), ``rounds``
    rounds (default: the mode's)."""
    (kernel_s, sims, ab_s), mode_rounds = BUDGETS[mode]
    rounds = mode_rounds if rounds is None else rounds
    budgets = {"kernel": kernel_s, "mcts": (sims, kernel_s), "alphabeta": ab_s}
    versions = {"new": ROOT}
    result = {"mode": mode, "ids": list(ids), "kinds": list(kinds), "budgets": budgets, "rounds": rounds,
              "commit": _commit(ROOT), "load_before": os.getloadavg()}
    if baseline is not None:
        versions["baseline"], result["baseline_commit"] = baseline_checkout(baseline)
        result["baseline_ref"] = baseline
    workers = {name: Worker(root) for name, root in versions.items()}
    try:
        started = time.perf_counter()
        for name, w in workers.items():  # warm-up: numba compiles (or loads) every loop
            for env_id in ids:
                for kind in kinds:
                    w.measure(kind, env_id, (sims, 0.0) if kind == "mcts" else 0.02, 0)
        result["warmup_seconds"] = time.perf_counter() - started
        samples = {name: {env_id: {kind: [] for kind in kinds} for env_id in ids} for name in workers}
        order = list(workers)
        for r in range(rounds):
            for env_id in ids:
                for kind in kinds:
                    for name in order:
                        samples[name][env_id][kind].append(workers[name].measure(kind, env_id, budgets[kind], 1 + r))
            order.reverse()
    finally:
        for w in workers.values():
            w.close()
    result["load_after"] = os.getloadavg()
    result["figures"] = {}
    for env_id in ids:
        row = {}
        for kind in kinds:
            new = samples["new"][env_id][kind]
            fig = {"new": statistics.median(new), "new_samples": new}
            if "baseline" in samples:
                old = samples["baseline"][env_id][kind]
                fig.update(baseline=statistics.median(old), baseline_samples=old,
                           ratio=statistics.median(a / b for a, b in zip(new, old)))
            row[kind] = fig
        result["figures"][env_id] = row
    return result


def _commit(root: Path) -> str | None:
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True)
    return done.stdout.strip() or None


def _cell(fig: dict, scale: float) -> str:
    text = f"{fig['new'] / scale:8.2f}"
    if "ratio" in fig:
        text += f" ({fig['baseline'] / scale:7.2f}, {fig['ratio']:4.2f}x)"
    return text


def table(result: dict) -> list[str]:
    """The figures as lines of text (new, and with a baseline: baseline and new/baseline)."""
    base = "baseline, new/baseline" if "baseline_commit" in result else ""
    lines = [f"card games, {result['mode']} ({result['rounds']} rounds); load {result['load_before'][0]:.2f} -> "
             f"{result['load_after'][0]:.2f}" + (f"; baseline {result['baseline_commit'][:9]}" if base else ""),
             f"{'id':<24} {'kernel M moves/s':>30} {'MCTS k sims/s':>30} {'alpha-beta k nodes/s':>30}"]
    if base:
        lines.append(f"{'':<24} {'new (' + base + ')':>30}")
    scales = {"kernel": 1e6, "mcts": 1e3, "alphabeta": 1e3}
    for env_id, row in result["figures"].items():
        cells = [_cell(row[kind], scales[kind]) if kind in row else "-" for kind in KINDS]
        lines.append(f"{env_id:<24} " + " ".join(f"{c:>30}" for c in cells))
    if base:
        ratios = [fig["ratio"] for row in result["figures"].values() for fig in row.values()]
        lines.append(f"new/baseline: smallest {min(ratios):.2f}x, median {statistics.median(ratios):.2f}x, "
                     f"largest {max(ratios):.2f}x")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short budgets, 5 rounds (else 7)")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS), help="figures to measure")
    parser.add_argument("--rounds", type=int, help="rounds (alternations of the versions); default: the mode's")
    parser.add_argument("--baseline", help="a git commit/branch/tag to measure in the same run (e.g. main)")
    parser.add_argument("--ids", nargs="+", default=list(CARD_IDS), help="ids to measure (default: every card id)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "cards.json"))
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker()
    if args.rounds is not None and args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    unknown = [i for i in args.ids if i not in CARD_IDS]
    if unknown:
        parser.error(f"--ids: {', '.join(unknown)} not card-game ids; choose from {', '.join(CARD_IDS)}")
    try:
        result = run(args.ids, "quick" if args.quick else "full", args.baseline, args.kinds, args.rounds)
    except BaselineError as err:
        parser.error(f"--baseline: {err}")
    print("\n".join(table(result)))
    sys.path.insert(0, str(ROOT))
    from mancala_envs.core.files import write_text_atomic

    write_text_atomic(args.out, json.dumps(result, indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
