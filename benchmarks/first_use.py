#!/usr/bin/env python
"""What a newcomer waits for: each game family's first use, from empty caches and from warm ones.

    .venv/bin/python benchmarks/first_use.py [--cases kalah-v0,solve,warm-solve,...] [--warm N] [--repeats N]
                                             [--top K] [--out FILE]

A case is what a new user does first, in one new Python process:

* a family (``kalah-v0``, ``afrika-v0``, ``progressive-v0``, ``rondell-v0``, ``widdershins-v0``):
  ``mancala_envs.make(ID)``, ``reset``, one step, the first ``alphabeta:depth=4`` move and the
  first ``mcts:sims=200`` move (both from the start position);
* ``solve``: ``mancala solve kalah-irving2000-v0 pits=4 seeds=3``, its endgame database included.

and what a returning user waits for, a *warm process*: a new ``mancala`` process with every cache
already filled (numba's, the package's, and Python's bytecode):

* ``warm-solve``: ``mancala solve kalah-irving2000-v0 pits=4 seeds=1`` to its end;
* ``warm-play``: ``mancala play kalah-v0`` to its first prompt (its first line of input is
  ``quit``, so the process ends right after the prompt; the prompt's time is recorded too).

Each runs once to fill its caches (in new folders of its own: ``NUMBA_CACHE_DIR``,
``MANCALA_ENVS_CACHE``, ``PYTHONPYCACHEPREFIX``; ``PYTHONDONTWRITEBYTECODE`` is dropped, so the
bytecode is cached as on a user's machine), then ``--repeats`` times timed. Beside the whole
process, the same number of new processes time the interpreter alone (``python -c pass``) and
the command's imports alone (``import mancala_envs.cli.solve``): the import time. The target is
wall seconds on a quiet machine; the load average is recorded beside it.

Every case runs first with empty caches (``NUMBA_CACHE_DIR`` and ``MANCALA_ENVS_CACHE`` pointed at
new empty folders of its own, so nothing compiled by another case helps), then ``--warm`` more
times with the caches the first run filled. The figure is CPU seconds (user + system, from
``resource.getrusage(RUSAGE_CHILDREN)`` around the process: interpreter start and imports
included); wall seconds are recorded beside them, and on a shared machine they are the CPU
seconds stretched by the load. Inside the process each step's CPU seconds are recorded, and
every function numba compiles (``numba.core.event``'s ``numba:compile`` events, which fire only
when a function is compiled, not when it is loaded from the cache): its CPU seconds with the
functions it compiled in the meantime (``seconds``) and without them (``own_seconds``). The
lines the package printed on stderr to announce a compile or a database build are recorded
as ``announced``.

Prints a table (CPU and wall seconds per case, cold and warm, the steps, the costliest
compiled functions; the warm processes) and writes ``benchmarks/results/first_use.json`` (or ``--out``) atomically.
The CPU seconds of each announced compile (from empty caches) go to
``mancala_envs/core/compile_seconds.json`` (merged into what is there; not with ``--out``), whence
the announcement's "about N s" (``mancala_envs.core.announce``).
Timings are never asserted; the targets are reported beside them.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

DEFAULT_OUT = ROOT / "benchmarks" / "results" / "first_use.json"
ESTIMATES = ROOT / "mancala_envs" / "core" / "compile_seconds.json"  # core.announce reads it
SCHEMA = "first-use-1"  # scripts/gen_results_pages.py renders files of this schema
FAMILIES = ("kalah-v0", "afrika-v0", "progressive-v0", "rondell-v0", "widdershins-v0")
SOLVE_ARGS = ("solve", "kalah-irving2000-v0", "pits=4", "seeds=3")
AGENTS = ("alphabeta:depth=4", "mcts:sims=200")
# Targets of the issue, in CPU seconds from empty caches. Reported, never asserted.
TARGETS = {"family": 15.0, "solve": 20.0}
# A warm process: (the mancala command's words, the module it imports, its first line of input).
WARM_PROCESS = {
    "warm-solve": (("solve", "kalah-irving2000-v0", "pits=4", "seeds=1"), "solve", None),
    "warm-play": (("play", "kalah-v0", "--seed", "0"), "play", "quit\n"),
}
WARM_PROCESS_TARGET = 1.5  # wall seconds on a quiet machine, import time included
PLAY_PROMPT = "your move"  # the start of the first prompt's question in `mancala play`

# Run in the new process: argv[1] is the case. Prints one JSON object as its last line.
_CHILD = r"""
import json, resource, sys, time
started = time.perf_counter()

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

from numba.core import event

class CompileTimes(event.Listener):
    # Each numba:compile event: CPU seconds with what it compiled meanwhile, and without.
    def __init__(self):
        self.open = []
        self.done = []

    def on_start(self, ev):
        self.open.append([ev.data["dispatcher"], cpu(), 0.0])

    def on_end(self, ev):
        dispatcher, start, nested = self.open.pop()
        seconds = cpu() - start
        if self.open:
            self.open[-1][2] += seconds
        self.done.append((dispatcher, tuple(ev.data["args"]), seconds, seconds - nested))

    def rows(self):
        # numba adds its timers (the LLVM share: "llvm_lock") once compile() has returned
        out = []
        for dispatcher, args, seconds, own in self.done:
            py_func = dispatcher.py_func
            overload = dispatcher.overloads.get(args)
            timers = overload.metadata.get("timers", {}) if overload is not None and overload.metadata else {}
            out.append({"function": f"{py_func.__module__}.{py_func.__qualname__}", "args": str(args)[:200],
                        "seconds": seconds, "own_seconds": own, "llvm_seconds": timers.get("llvm_lock", 0.0)})
        return out

times = CompileTimes()
event.register("numba:compile", times)
steps = {}
mark = [cpu()]

def step(name):
    now = cpu()
    steps[name] = now - mark[0]
    mark[0] = now

case = sys.argv[1]
if case == "solve":
    import contextlib, io
    from mancala_envs.cli import main
    step("import")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(sys.argv[2:] + ["--json", "--quiet"])
    step("solve")
    extra = {"exit_code": code, "solve": json.loads(out.getvalue())}
else:
    import mancala_envs
    from mancala_envs.agents.specs import make_agent
    step("import")
    env = mancala_envs.make(case)
    step("make")
    env.reset(seed=0)
    step("reset")
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(mask.nonzero()[0][0]))
    step("step")
    state = mancala_envs.make_game(case).new_state(0)
    for spec in sys.argv[2:]:
        make_agent(spec, seed=0).act(state)
        step(spec)
    extra = {}
from mancala_envs.core.announce import measured
print(json.dumps({"steps": steps, "cpu_seconds_in_process": cpu(), "compiled": times.rows(),
                  "announced_seconds": measured(), **extra}), flush=True)
"""

# The start of the lines the package prints on stderr before a long compile or database build.
ANNOUNCE_PREFIX = "mancala_envs: "


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_case(case: str, numba_cache: str, data_cache: str) -> dict[str, Any]:
    """One new process running ``case`` with these cache folders: its CPU and wall seconds and what it recorded."""
    args = list(SOLVE_ARGS) if case == "solve" else list(AGENTS)
    env = {**os.environ, "NUMBA_CACHE_DIR": numba_cache, "MANCALA_ENVS_CACHE": data_cache}
    cpu_before, start = _children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD, case, *args], env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu_before
    if done.returncode != 0:
        return {"status": "error", "detail": done.stderr.strip()[-2000:], "cpu_seconds": cpu, "wall_seconds": wall}
    child = json.loads(done.stdout.strip().splitlines()[-1])
    announced = [line for line in done.stderr.splitlines() if line.startswith(ANNOUNCE_PREFIX)]
    return {"status": "ok", "cpu_seconds": cpu, "wall_seconds": wall, "announced": announced, **child}


def top_compiled(compiled: list[dict[str, Any]], top: int) -> list[dict[str, Any]]:
    """The ``top`` functions of most own compile seconds, with the number of signatures compiled."""
    by_function: dict[str, dict[str, Any]] = {}
    for one in compiled:
        row = by_function.setdefault(one["function"], {"function": one["function"], "own_seconds": 0.0,
                                                       "seconds": 0.0, "llvm_seconds": 0.0, "signatures": 0})
        for key in ("own_seconds", "seconds", "llvm_seconds"):
            row[key] += one[key]
        row["signatures"] += 1
    return sorted(by_function.values(), key=lambda r: -r["own_seconds"])[:top]


def measure(case: str, warm: int, top: int) -> dict[str, Any]:
    """``case`` from empty caches, then ``warm`` times with the caches it filled."""
    with tempfile.TemporaryDirectory(prefix="mancala-first-use-") as folder:
        numba_cache, data_cache = os.path.join(folder, "numba"), os.path.join(folder, "data")
        os.makedirs(numba_cache)
        os.makedirs(data_cache)
        cold = run_case(case, numba_cache, data_cache)
        warm_runs = [run_case(case, numba_cache, data_cache) for _ in range(warm)]
    if cold["status"] == "ok":
        cold["compiled_total_seconds"] = sum(c["own_seconds"] for c in cold["compiled"])
        cold["top_compiled"] = top_compiled(cold.pop("compiled"), top)
    for run in warm_runs:
        run.pop("compiled", None)
    ok = [w for w in warm_runs if w["status"] == "ok"]
    target = TARGETS["solve" if case == "solve" else "family"]
    return {
        "case": case,
        "target_cpu_seconds": target,
        "met": cold["status"] == "ok" and cold["cpu_seconds"] <= target,
        "empty_caches": cold,
        "warm": {key: statistics.median(w[key] for w in ok) for key in ("cpu_seconds", "wall_seconds")} if ok else None,
        "warm_runs": warm_runs,
    }


def mancala_command() -> list[str]:
    """The installed ``mancala`` script beside this interpreter, else ``python -m mancala_envs.cli``."""
    script = Path(sys.executable).with_name("mancala")
    return [str(script)] if script.exists() else [sys.executable, "-m", "mancala_envs.cli"]


def timed_process(args: list[str], env: dict[str, str], stdin_text: str | None = None,
                  prompt: str | None = None) -> dict[str, Any]:
    """A new process: its CPU and wall seconds, and the wall seconds until ``prompt`` was on its stdout."""
    with tempfile.TemporaryFile() as errors:
        cpu_before, start = _children_cpu(), time.perf_counter()
        child = subprocess.Popen(args, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
        child.stdin.write((stdin_text or "").encode())
        child.stdin.close()
        out, prompt_seconds = b"", None
        while chunk := os.read(child.stdout.fileno(), 65536):
            out += chunk
            if prompt_seconds is None and prompt is not None and prompt.encode() in out:
                prompt_seconds = time.perf_counter() - start
        child.stdout.close()
        code = child.wait()
        wall, cpu = time.perf_counter() - start, _children_cpu() - cpu_before
        errors.seek(0)
        detail = errors.read().decode(errors="replace").strip()[-2000:]
    if code != 0 or (prompt is not None and prompt_seconds is None):
        return {"status": "error", "detail": detail or out.decode(errors="replace")[-2000:], "exit_code": code}
    return {"status": "ok", "cpu_seconds": cpu, "wall_seconds": wall, "prompt_seconds": prompt_seconds}


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    keys = [k for k in ("cpu_seconds", "wall_seconds", "prompt_seconds") if runs and runs[0].get(k) is not None]
    return {k: statistics.median(r[k] for r in runs) for k in keys}


def measure_warm_process(case: str, repeats: int) -> dict[str, Any]:
    """``case`` of ``WARM_PROCESS`` once to fill its caches, then ``repeats`` times timed (wall and CPU).

    Each repeat also times the interpreter alone and the command's imports alone, interleaved
    with the whole command, so that a change of load touches the three alike.
    """
    words, module, stdin_text = WARM_PROCESS[case]
    command = [*mancala_command(), *words]
    prompt = PLAY_PROMPT if stdin_text else None
    probes = {"process": (command, stdin_text, prompt),
              "imports": ([sys.executable, "-c", f"import mancala_envs.cli.{module}"], None, None),
              "interpreter": ([sys.executable, "-c", "pass"], None, None)}
    with tempfile.TemporaryDirectory(prefix="mancala-first-use-") as folder:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(NUMBA_CACHE_DIR=os.path.join(folder, "numba"), MANCALA_ENVS_CACHE=os.path.join(folder, "data"),
                   PYTHONPYCACHEPREFIX=os.path.join(folder, "bytecode"))
        fill = timed_process(command, env, stdin_text, prompt)  # compiles, builds, writes bytecode
        runs: dict[str, list] = {name: [] for name in probes}
        if fill["status"] == "ok":
            for _ in range(repeats):
                for name, (args, text, wait_for) in probes.items():
                    runs[name].append(timed_process(args, env, text, wait_for))
    failed = [r for one in runs.values() for r in one if r["status"] != "ok"]
    status = fill if fill["status"] != "ok" else failed[0] if failed else {"status": "ok"}
    figures = {name: _medians([r for r in one if r["status"] == "ok"]) for name, one in runs.items()}
    # the figure: to the first prompt for `play`, to the process's end for the rest
    wall = figures["process"].get("prompt_seconds" if prompt else "wall_seconds")
    return {
        "case": case, "command": "mancala " + " ".join(words), **status,
        "stdin": stdin_text, "repeats": repeats, "target_wall_seconds": WARM_PROCESS_TARGET,
        "wall_seconds": wall, "cpu_seconds": figures["process"].get("cpu_seconds"),
        "met": status["status"] == "ok" and wall is not None and wall <= WARM_PROCESS_TARGET,
        "imports": figures["imports"], "interpreter": figures["interpreter"],
        "fill": {k: fill.get(k) for k in ("cpu_seconds", "wall_seconds")},
        "runs": runs,
    }


def warm_process_table(results: list[dict[str, Any]]) -> list[str]:
    lines = ["", f"{'warm process':<12} {'wall s':>7} {'CPU s':>6} {'imports: wall':>14} {'CPU':>5} "
             f"{'interpreter: wall':>18}  target, command"]
    for r in results:
        if r["status"] != "ok":
            lines.append(f"{r['case']:<12} {r['status']}: {r.get('detail', '')}")
            continue
        imports, interpreter = r["imports"], r["interpreter"]
        lines.append(f"{r['case']:<12} {r['wall_seconds']:>7.2f} {r['cpu_seconds']:>6.2f} "
                     f"{imports['wall_seconds']:>14.2f} {imports['cpu_seconds']:>5.2f} "
                     f"{interpreter['wall_seconds']:>18.2f}  <= {r['target_wall_seconds']} s wall: "
                     f"{'met' if r['met'] else 'missed'}; {r['command']}")
    return lines


def write_estimates(results: list[dict[str, Any]], path: Path = ESTIMATES) -> None:
    """Merge the CPU seconds of the announced compiles of ``results`` (empty caches) into ``path``."""
    from mancala_envs.core.files import write_text_atomic

    estimates = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    for r in results:
        estimates.update({k: round(v, 1) for k, v in r["empty_caches"].get("announced_seconds", {}).items()})
    write_text_atomic(path, json.dumps(dict(sorted(estimates.items())), indent=2) + "\n")
    print(f"wrote {path}")


def table(results: list[dict[str, Any]]) -> list[str]:
    lines = [f"{'case':<16} {'empty caches: CPU s':>20} {'wall s':>8} {'warm: CPU s':>12} {'wall s':>8}  target"]
    for r in results:
        cold, warm = r["empty_caches"], r["warm"] or {}
        lines.append(f"{r['case']:<16} {cold['cpu_seconds']:>20.1f} {cold['wall_seconds']:>8.1f} "
                     f"{warm.get('cpu_seconds', float('nan')):>12.1f} {warm.get('wall_seconds', float('nan')):>8.1f}  "
                     f"<= {r['target_cpu_seconds']:.0f} CPU s: {'met' if r['met'] else 'missed'}")
    for r in results:
        cold = r["empty_caches"]
        lines.append("")
        if cold["status"] != "ok":
            lines.append(f"{r['case']}: {cold['status']}: {cold.get('detail', '')}")
            continue
        steps = ", ".join(f"{name} {seconds:.1f}" for name, seconds in cold["steps"].items())
        lines.append(f"{r['case']}, empty caches, CPU s per step: {steps}; "
                     f"compiling {cold['compiled_total_seconds']:.1f}")
        for c in cold["top_compiled"]:
            lines.append(f"    {c['own_seconds']:6.1f} own {c['seconds']:6.1f} with callees "
                         f"{c['llvm_seconds']:6.1f} in LLVM  x{c['signatures']}  {c['function']}")
        for line in cold["announced"]:
            lines.append(f"    stderr: {line}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(FAMILIES + ("solve", *WARM_PROCESS)),
                        help="comma-separated: family ids, 'solve', 'warm-solve', 'warm-play' (default: all)")
    parser.add_argument("--warm", type=int, default=2, help="warm processes per case (default 2)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per warm-process case (default 5)")
    parser.add_argument("--top", type=int, default=8, help="compiled functions listed per case (default 8)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results file (JSON)")
    args = parser.parse_args(argv)
    from mancala_envs.core.files import write_text_atomic

    load_at_start = os.getloadavg()
    cases = args.cases.split(",")
    results = [measure(case, args.warm, args.top) for case in cases if case not in WARM_PROCESS]
    warm_process = [measure_warm_process(case, args.repeats) for case in cases if case in WARM_PROCESS]
    print("\n".join(table(results) + warm_process_table(warm_process)))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    report = {
        "schema": SCHEMA,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "provenance": {"command": "python benchmarks/first_use.py " + " ".join(argv if argv is not None else sys.argv[1:]),
                       "commit": commit.stdout.strip() or None},
        "machine": {"cores": os.cpu_count()},
        "agents": list(AGENTS), "solve": " ".join(SOLVE_ARGS),
        "load_average": {"start": [round(x, 2) for x in load_at_start],
                         "end": [round(x, 2) for x in os.getloadavg()]},
        "cases": results,
        "warm_process": warm_process,
    }
    write_text_atomic(args.out, json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    if args.out == DEFAULT_OUT:
        write_estimates(results)
    failed = any(r["empty_caches"]["status"] != "ok" for r in results) or any(r["status"] != "ok" for r in warm_process)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
