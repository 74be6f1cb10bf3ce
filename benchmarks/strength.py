"""Strength table: agents with a learned evaluation (and their bare networks) against the baselines.

    .venv/bin/python benchmarks/strength.py --setting main              # trains configs/kalah-v0-quick.yaml
    .venv/bin/python benchmarks/strength.py --setting default           # trains configs/kalah-v0-value.yaml
    .venv/bin/python benchmarks/strength.py --setting families          # one value config per other family
    .venv/bin/python benchmarks/strength.py --setting irving            # Irving's rules against depth 10 and 12
    .venv/bin/python benchmarks/strength.py --setting main --run RUN_DIR   # measure an existing run folder
    .venv/bin/python benchmarks/strength.py --setting main --openings 100 --out FILE
    .venv/bin/python benchmarks/strength.py --setting main --run RUN_DIR --solved 0   # without the oracle row
    .venv/bin/python benchmarks/strength.py --setting main --run RUN_DIR --rates-only  # only the oracle row
    .venv/bin/python benchmarks/strength.py --setting main --run RUN_DIR --solved 200 --max-board 24
    .venv/bin/python benchmarks/strength.py --setting families --env afrika-v0 --run RUN_DIR  # one family
    .venv/bin/python benchmarks/strength.py --setting families --env afrika-v0 --seeds 0 1 2  # three trained seeds
    .venv/bin/python benchmarks/strength.py --setting families --env afrika-v0 --run R0 --run R1 --run R2

For each setting it trains the setting's config(s) (``mancala train CONFIG``, in this
process; or takes ``--run`` folders, one per config, in order), then plays every row of
the setting: agent A (``RUN`` stands for the run folder) against agent B over an opening
suite of ``--openings`` openings (default 100), each opening from both seats (200 games),
on every core (``play_match(..., workers=None)``), or on a Ray cluster with ``--backend ray
[--address ADDR]`` (same games, same results; docs/scale-out.md). Each row gets the score of A (win 1,
draw 1/2) with its 95% interval bootstrapped over openings, the distinct games, the issue's
target and whether it is met (by the score itself; the interval is printed beside it), and
the command that replays it (``mancala match ID A B --openings N --seed S --workers 0``
plays the same suite with the same agent seeds).

The table is printed as Markdown and written as JSON to ``benchmarks/results/strength.json``
(or ``--out``) through a temporary file. Nothing here is asserted: the targets are measured,
not tested.

Several training seeds: ``--seeds 0 1 2`` trains every config once per seed (the override
``seed=S``), and several ``--run`` folders per config (``--run`` count a multiple of the
configs: config ``k`` takes the ``k``-th group, in order) measure existing runs, each run's
seed read from its ``config.yaml``. Every run's rows are measured over the same opening
suite (``--seed``) and printed with the run's training seed, each with its interval and
distinct games; a second table gives every row over the seeds: each seed's score, their
mean, min and max, and whether every seed meets the target. One lucky seed is not a
result: the spread from seed to seed (several points on the family configs) is often as
large as the margin over a target. Timings (training seconds) depend on the machine's load; the JSON
records ``os.getloadavg()`` at the start and end.

``--move-times N`` (default 200; 0 for none): every agent of the setting's rows and its
``ORACLE_EXTRA`` (with the first run's evaluation) timed on the same ``N`` positions of ``alphabeta:depth=3`` self-play
(every stage of the game), mean CPU milliseconds a move (JSON key ``move_ms``).

The oracle row (Kalah settings; ``--solved N``, default 500, ``0`` for none): every agent of
the setting (both sides of its rows, and the setting's ``ORACLE_EXTRA``) against perfect
play on the same ``N`` distinct positions of real games, ``alphabeta:depth=3`` against
itself after two random plies (a player no setting trains against or is judged by), each
with at most ``--max-board`` stones left on the board (default 36), every legal move of each
valued exactly by the endgame database or the solver (``mancala_envs.evaluation.analysis.solved_positions``, solved once per
game). For each agent: the optimal-move rate, the rate of moves that keep the result (win,
draw or loss under perfect play), and the mean stones lost a move, each with a 95% interval
bootstrapped over the positions (``analysis.oracle_accuracy``), its CPU time a move, and the
issue's optimal-move target (``ORACLE_TARGETS``). The JSON key is ``optimal_move_rate``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from mancala_envs.agents import make_agent  # noqa: E402
from mancala_envs.evaluation import play_match
from mancala_envs.evaluation.analysis import oracle_accuracy, sample_positions, solved_positions  # noqa: E402
from mancala_envs.evaluation.openings import opening_suite  # noqa: E402
from mancala_envs.cli.suite_options import add_backend_arguments, check_backend_args  # noqa: E402
from mancala_envs.core.errors import MancalaError  # noqa: E402
from mancala_envs.core.files import write_text_atomic  # noqa: E402
from mancala_envs.registry import make_game  # noqa: E402

# setting -> [(config file, env id, [(agent A, agent B, target score or None), ...]), ...]
SETTINGS = {
    "main": [("configs/kalah-v0-quick.yaml", "kalah-v0", [
        ("alphabeta:depth=4,eval=RUN", "alphabeta:depth=6", 0.65),
        ("alphabeta:depth=4,eval=RUN", "alphabeta:depth=4", 0.60),
        ("policy:RUN", "alphabeta:depth=4", 0.50),
        ("policy:RUN", "random", 0.97),
        ("policy:RUN", "greedy", None),
        ("policy:RUN", "alphabeta:depth=2", None),
    ])],
    "default": [("configs/kalah-v0-value.yaml", "kalah-v0", [
        ("alphabeta:depth=6,eval=RUN", "alphabeta:depth=6", 0.75),
        ("alphabeta:depth=6,eval=RUN", "alphabeta:depth=8", 0.60),
        ("alphabeta:depth=6,eval=RUN", "random", 0.99),
        ("policy:RUN", "alphabeta:depth=2", 0.60),
        ("policy:RUN", "alphabeta:depth=4", 0.40),
        ("mcts:sims=800,eval=RUN", "alphabeta:depth=6", None),
    ])],
    # Irving's rules (empty capture); the search agent must take no more time a move than plain depth 12
    "irving": [("configs/kalah-irving2000-quick.yaml", "kalah-irving2000-v0", [
        ("mcts:sims=800,eval=RUN", "alphabeta:depth=10", 0.70),
        ("mcts:sims=800,eval=RUN", "alphabeta:depth=12", 0.60),
        ("alphabeta:depth=6,eval=RUN", "alphabeta:depth=10", None),
    ])],
    "families": [
        (f"configs/{env}-value.yaml", env, [
            (f"alphabeta:depth={depth},eval=RUN", f"alphabeta:depth={depth}", 0.60),
            ("policy:RUN", "random", 0.95),
        ])
        for env, depth in (("afrika-v0", 4), ("progressive-v0", 4), ("rondell-v0", 3), ("widdershins-v0", 3))
    ],
}


def train(config: str, seed: int | None = None) -> Path:
    """Train ``config`` (with ``seed=S`` when ``seed`` is given) in a run folder under runs/; returns the folder."""
    from mancala_envs.training.config import load_config
    from mancala_envs.training.checkpoint import RunState
    from mancala_envs.training.run_folder import start_run
    from mancala_envs.training.train import make_trainer

    overrides = [] if seed is None else [f"seed={seed}"]
    cfg = load_config(ROOT / config, overrides)
    run_dir = start_run(cfg, " ".join(["mancala train", config, *overrides]))
    print(f"training {config} in {run_dir}", flush=True)
    make_trainer(cfg, run_dir, RunState(), echo=lambda text: print("  " + text, flush=True)).run()
    return run_dir


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished child processes (the trainer's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure_row(env_id: str, spec_a: str, spec_b: str, run_dir: Path, openings: int, seed: int,
                backend: str = "local", address: str | None = None) -> dict:
    game = make_game(env_id)
    a = spec_a.replace("RUN", str(run_dir))
    suite = opening_suite(game, openings, None, seed)
    started = time.perf_counter()
    result = play_match(game, make_agent(a, seed=seed), make_agent(spec_b, seed=seed + 1), suite, workers=None,
                        backend=backend, address=address)
    where = "" if backend == "local" else " --backend ray" + (f" --address {address}" if address else "")
    report = result.report()
    return {
        "env_id": env_id, "agent_a": spec_a, "agent_b": spec_b, "run_dir": str(run_dir),
        "games": result.counts()[0], "distinct_games": report["distinct_games"],
        "score": report["score"], "score_ci": list(report["score_ci"]), "suite": suite.label(),
        "by_seat": [seat["score"] for seat in report["by_seat"]],  # A's score as player_0, as player_1
        "seconds": round(time.perf_counter() - started, 1),
        "command": f"mancala match {env_id} '{a}' '{spec_b}' --openings {openings} --seed {seed} --workers 0{where}",
    }


# more agents in the oracle row of a setting (beyond both sides of its match rows): deeper searches with
# the run's evaluation (the target is for a search agent at <= 30 ms a move) and plain anchors
# and the exact solve within 20 ms a move with the learned search to fall back on (agents.hybrid)
ORACLE_EXTRA = {"main": ["alphabeta:depth=10,eval=RUN", "mcts:sims=800,eval=RUN", "hybrid:solve=0.02,eval=RUN",
                         "hybrid:solve=0.02,then=alphabeta,depth=6,eval=RUN", "alphabeta:depth=10",
                         "alphabeta:depth=12"]}
# the oracle row's targets: a search agent with the learned evaluation, the bare network
ORACLE_TARGETS = {"eval=RUN": 0.92, "policy:RUN": 0.75}
ORACLE_PLAYERS = "alphabeta:depth=3"  # plays the oracle's games: no setting trains against it or is judged by it


def solved_sample(env_id: str, positions: int, seed: int, max_board: int, players: str = ORACLE_PLAYERS) -> dict:
    """The oracle's sample: ``positions`` distinct positions of ``players`` against itself (two random plies
    first, then a random ply of the game; ``analysis.solved_positions``) with at most ``max_board`` stones
    left on the board, every legal move valued exactly; solved once, then every agent is measured on it."""
    pair = (make_agent(players, seed=seed), make_agent(players, seed=seed + 1))
    started, cpu = time.perf_counter(), time.process_time()

    def progress(done: int, total: int) -> None:
        if done % 100 == 0 or done == total:
            print(f"  oracle: {done}/{total} positions solved", flush=True)

    solved = solved_positions(env_id, positions, seed=seed, max_board=max_board, players=pair, progress=progress)
    if len(solved) < positions:
        print(f"note: only {len(solved)} distinct positions with at most {max_board} stones found", flush=True)
    return {"positions": solved, "seconds": round(time.perf_counter() - started, 1),
            "cpu_seconds": round(time.process_time() - cpu, 1),
            "sample": f"{len(solved)} distinct positions of {players} self-play after 2 random plies, with at most "
                      f"{max_board} stones left on the board (seed {seed})"}


def oracle_rows(env_id: str, specs: list[str], run_dir: str, sample: dict, seed: int, max_board: int) -> dict[str, dict]:
    """Every agent's oracle row on the solved ``sample``: the optimal-move rate, the rate of moves that keep
    the result, the mean stones lost a move, each with its 95% interval bootstrapped over the positions
    (``analysis.oracle_accuracy``), and the agent's mean CPU time a move."""
    rows = {}
    for spec in specs:
        agent = make_agent(spec.replace("RUN", run_dir), seed=seed)
        agent.act(sample["positions"][0].state.clone())  # compiled before the clock starts
        cpu = time.process_time()
        acc = oracle_accuracy(agent, sample["positions"], seed)
        rows[spec] = {"env_id": env_id, "agent": spec, "positions": acc.positions,
                      "rate": acc.optimal, "rate_ci": acc.optimal_ci, "kept": acc.kept, "kept_ci": acc.kept_ci,
                      "mean_loss": acc.mean_loss, "mean_loss_ci": acc.mean_loss_ci, "max_board": max_board,
                      "seed": seed, "ms_per_move": round(1000 * (time.process_time() - cpu) / acc.positions, 2),
                      "sample": sample["sample"], "target": oracle_target(spec)}
        print(f"oracle, {env_id}, {spec}: optimal {acc.optimal:.1%} ({acc.optimal_ci[0]:.1%}-{acc.optimal_ci[1]:.1%}), "
              f"result kept {acc.kept:.1%} ({acc.kept_ci[0]:.1%}-{acc.kept_ci[1]:.1%}), stones lost "
              f"{acc.mean_loss:.2f} ({acc.mean_loss_ci[0]:.2f}-{acc.mean_loss_ci[1]:.2f}) on {acc.positions} "
              f"positions", flush=True)
    return rows


def move_times(env_id: str, specs: list[str], run_dir: str, seed: int, positions: int = 200) -> dict[str, float]:
    """Every agent's mean CPU milliseconds a move on the same ``positions`` positions of ``ORACLE_PLAYERS``'
    games (every stage of the game, no stone limit), each agent compiled and warmed up first: the issue
    bounds a search agent's time a move by plain alpha-beta's."""
    pair = (make_agent(ORACLE_PLAYERS, seed=seed), make_agent(ORACLE_PLAYERS, seed=seed + 1))
    states = sample_positions(env_id, positions, seed=seed, players=pair)
    times = {}
    for spec in specs:
        agent = make_agent(spec.replace("RUN", run_dir), seed=seed)
        agent.act(states[0].clone())
        cpu = time.process_time()
        for state in states:
            agent.reset(seed=seed)
            agent.act(state.clone())
        times[spec] = round(1000 * (time.process_time() - cpu) / len(states), 2)
        print(f"  {env_id}, {spec}: {times[spec]} CPU ms a move over {len(states)} positions", flush=True)
    return times


def oracle_target(spec: str) -> float | None:
    """The issue's optimal-move target of an agent (``ORACLE_TARGETS``), None for a baseline."""
    return next((target for key, target in ORACLE_TARGETS.items() if key in spec), None)


def rates_table(rates: dict[str, dict]) -> str:
    lines = ["| game | agent | optimal moves (95% CI) | result kept (95% CI) | stones lost a move (95% CI) | "
             "CPU ms a move | positions | optimal target | met |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rates.values():
        target = "-" if r["target"] is None else f">= {r['target']:.0%}"
        lines.append(f"| {r['env_id']} | `{r['agent']}` | {r['rate']:.1%} ({r['rate_ci'][0]:.1%}-{r['rate_ci'][1]:.1%}) "
                     f"| {r['kept']:.1%} ({r['kept_ci'][0]:.1%}-{r['kept_ci'][1]:.1%}) | {r['mean_loss']:.2f} "
                     f"({r['mean_loss_ci'][0]:.2f}-{r['mean_loss_ci'][1]:.2f}) | {r['ms_per_move']} | {r['positions']} "
                     f"| {target} "
                     f"| {met_text(r['rate'], r['target'])} |")
    return "\n".join(lines)


def run_seed(run_dir: Path) -> int | None:
    """The training seed recorded in a run folder's ``config.yaml`` (None without one)."""
    import yaml

    path = Path(run_dir) / "config.yaml"
    if not path.is_file():
        return None
    data = yaml.safe_load(path.read_text()) or {}
    return data.get("seed") if isinstance(data, dict) else None


def runs_per_config(runs: list[str], seeds: list[int], configs: int) -> list[list[tuple[str | None, int | None]]]:
    """Each config's runs as (run folder or None to train, training seed or None for the config's own).

    ``runs`` (folders) and ``seeds`` (training seeds) exclude each other; the folders come in one
    group per config, in order, so their count must be a multiple of ``configs``."""
    if runs and seeds:
        raise ValueError("give either --seeds (train one run per seed) or --run folders, not both")
    if runs:
        if len(runs) % configs:
            raise ValueError(f"{len(runs)} --run folder(s) for {configs} config(s): give the same number of runs "
                             "per config, grouped by config in the setting's order")
        per = len(runs) // configs
        return [[(run, None) for run in runs[k * per:(k + 1) * per]] for k in range(configs)]
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"--seeds {' '.join(map(str, seeds))}: a seed is repeated")
    return [[(None, seed) for seed in seeds] or [(None, None)] for _ in range(configs)]


def met_text(score: float, target: float | None) -> str:
    if target is None:
        return "-"
    return "yes" if score >= target else f"no (by {target - score:.1%})"


def seed_label(seed: int | None) -> str:
    return "?" if seed is None else str(seed)


def table(rows: list[dict]) -> str:
    lines = ["| game | training seed | agent A | agent B | games (distinct) | A's score (95% CI) | target | met |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        low, high = r["score_ci"]
        target = "-" if r["target"] is None else f">= {r['target']:.0%}"
        lines.append(f"| {r['env_id']} | {seed_label(r.get('train_seed'))} | `{r['agent_a']}` | `{r['agent_b']}` "
                     f"| {r['games']} ({r['distinct_games']}) | {r['score']:.1%} ({low:.1%}-{high:.1%}) | {target} "
                     f"| {met_text(r['score'], r['target'])} |")
    lines.append("")
    lines.append("Commands (RUN = the run folder):")
    lines += [f"    {r['command']}" for r in rows]
    return "\n".join(lines)


def over_seeds(rows: list[dict]) -> list[dict]:
    """Every row (game, agent A, agent B) over the runs measured: each run's score and its
    training seed, the mean, min and max of the scores, and whether every run meets the target."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["env_id"], r["agent_a"], r["agent_b"]), []).append(r)
    summary = []
    for (env_id, a, b), group in groups.items():
        scores = [r["score"] for r in group]
        target = group[0]["target"]
        summary.append({
            "env_id": env_id, "agent_a": a, "agent_b": b, "runs": len(group),
            "train_seeds": [r.get("train_seed") for r in group], "scores": scores,
            "score_ci": [r["score_ci"] for r in group], "distinct_games": [r["distinct_games"] for r in group],
            "mean": float(np.mean(scores)), "min": min(scores), "max": max(scores), "target": target,
            "every_run_met": None if target is None else all(s >= target for s in scores),
        })
    return summary


def summary_table(summary: list[dict]) -> str:
    lines = ["| game | agent A | agent B | A's score per training seed (distinct games) | mean | min | max | target "
             "| met by every seed |", "|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        per_seed = ", ".join(f"{seed_label(seed)}: {score:.1%} ({distinct})" for seed, score, distinct
                             in zip(s["train_seeds"], s["scores"], s["distinct_games"]))
        target = "-" if s["target"] is None else f">= {s['target']:.0%}"
        met = "-" if s["target"] is None else ("yes" if s["every_run_met"] else
                                               f"no (min short by {s['target'] - s['min']:.1%})")
        lines.append(f"| {s['env_id']} | `{s['agent_a']}` | `{s['agent_b']}` | {per_seed} | {s['mean']:.1%} "
                     f"| {s['min']:.1%} | {s['max']:.1%} | {target} | {met} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setting", choices=sorted(SETTINGS), default="main")
    parser.add_argument("--run", action="append", default=[],
                        help="use this run folder (repeatable: the same number of runs per config, grouped by config in order)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[],
                        help="train every config once per training seed (override seed=S) and report each and over seeds")
    parser.add_argument("--openings", type=int, default=100, help="openings per row, each from both seats (default 100)")
    parser.add_argument("--env", action="append", default=[],
                        help="only this setting's configs of this id (repeatable), e.g. --setting families --env afrika-v0")
    parser.add_argument("--seed", type=int, default=12345, help="seed of the suites and agents")
    add_backend_arguments(parser)  # --backend ray: the rows' games on a Ray cluster (same results)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "strength.json"))
    parser.add_argument("--solved", type=int, default=500,
                        help="the oracle row: every agent against perfect play on this many solved positions "
                             "(Kalah settings; default 500; 0: none)")
    parser.add_argument("--move-times", type=int, default=200,
                        help="every agent's CPU time a move on this many positions of real games (0: none)")
    parser.add_argument("--rates-only", action="store_true",
                        help="with --run: only the oracle row, not the match rows")
    parser.add_argument("--max-board", type=int, default=36,
                        help="at most this many stones left on the board in those positions (default 36)")
    args = parser.parse_args(argv)
    try:
        check_backend_args(args)
    except MancalaError as err:
        parser.error(str(err))
    if args.openings < 100:
        print("note: fewer than 100 openings (200 games) per row is below the issue's protocol", flush=True)
    load_before = os.getloadavg()
    entries = [e for e in SETTINGS[args.setting] if not args.env or e[1] in args.env]
    if not entries:
        parser.error(f"--env {' '.join(args.env)}: no config of setting {args.setting} plays it")
    if args.rates_only and not (args.solved and args.run):
        parser.error("--rates-only needs --solved N > 0 and the --run folders")
    try:
        plan = runs_per_config(args.run, args.seeds, len(entries))
    except ValueError as err:
        parser.error(str(err))
    rows, training = [], []
    for (config, env_id, specs), runs in zip(entries, plan):
        for given, seed in runs:
            started, cpu, load = time.perf_counter(), cpu_seconds(), os.getloadavg()
            run_dir = Path(given) if given else train(config, seed)
            seed = run_seed(run_dir) if seed is None else seed
            training.append({"config": config, "env_id": env_id, "run_dir": str(run_dir), "train_seed": seed,
                             "seconds": None if given else round(time.perf_counter() - started, 1),
                             "cpu_seconds": None if given else round(cpu_seconds() - cpu, 1),
                             "load_before": None if given else load, "load_after": None if given else os.getloadavg()})
            for spec_a, spec_b, target in [] if args.rates_only else specs:
                row = measure_row(env_id, spec_a, spec_b, run_dir, args.openings, args.seed, args.backend, args.address)
                row.update(target=target, train_seed=seed)
                rows.append(row)
                print(f"  {env_id} (training seed {seed_label(seed)}): {spec_a} vs {spec_b}: {row['score']:.1%} "
                      f"over {row['games']} games", flush=True)
    timing = {}
    for run in training[:1] if args.move_times else []:  # the first run's agents: the times hardly vary by run
        specs = next(specs for config, _, specs in entries if config == run["config"])
        agents = list(dict.fromkeys([s for a, b, _ in specs for s in (a, b)] + ORACLE_EXTRA.get(args.setting, [])))
        timing[run["env_id"]] = move_times(run["env_id"], agents, run["run_dir"], args.seed, args.move_times)
    print(table(rows))
    summary = over_seeds(rows)
    if any(s["runs"] > 1 for s in summary):
        print("\nOver the training seeds (each seed's row above, the same opening suite):\n")
        print(summary_table(summary))
    rates, samples = {}, {}
    if args.solved:
        several = any(len(runs) > 1 for runs in plan)
        for run in training:
            if not run["env_id"].startswith("kalah"):
                continue  # the other families' positions are not solved within a useful time
            if run["env_id"] not in samples:  # one solved sample per game, every run's agents on it
                samples[run["env_id"]] = solved_sample(run["env_id"], args.solved, args.seed, args.max_board)
            specs = next(specs for config, _, specs in entries if config == run["config"])
            agents = list(dict.fromkeys([s for a, b, _ in specs for s in (a, b)] + ORACLE_EXTRA.get(args.setting, [])))
            prefix = run["env_id"] + (f" seed {seed_label(run['train_seed'])}" if several else "")
            rates.update({f"{prefix} {spec}": dict(r, train_seed=run["train_seed"]) for spec, r in oracle_rows(
                run["env_id"], agents, run["run_dir"], samples[run["env_id"]], args.seed, args.max_board).items()})
        print("\n".join(f"oracle sample, {env}: {sample['sample']}" for env, sample in samples.items()))
        print(rates_table(rates))
    provenance = {"command": " ".join(["python benchmarks/strength.py", *(sys.argv[1:] if argv is None else argv)]),
                  "measured_at": time.strftime("%Y-%m-%d", time.gmtime()), "machine": f"{os.cpu_count()} cores"}
    results = {"setting": args.setting, "seed": args.seed, "provenance": provenance, "rows": rows, "over_seeds": summary, "training": training,
               "openings": args.openings, "move_ms": timing, "optimal_move_rate": rates,
               "oracle_sample": {env: {k: v for k, v in sample.items() if k != "positions"} for env, sample in samples.items()}, "load_before": load_before,
               "load_after": os.getloadavg()}
    write_text_atomic(args.out, json.dumps(results, indent=1) + "\n")
    print(f"\nwritten to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
