"""The measured-results pages, built from ``benchmarks/results/*.json`` and nothing else.

* ``performance.md``: speed against the targets and the peers (``benchmarks/run.py``'s
  ``latest.json``), the card games, first use (cold start; ``benchmarks/first_use.py``'s
  ``first_use.json``), and every other speed file;
* ``solver.md``: the solved boards (``benchmarks/solve.py``'s ``solve*.json``), the solver's
  recorded tables (endgame databases, changes tried);
* ``strength.md``: the agents' strength over opening suites (``benchmarks/strength.py``'s
  ``strength*.json``), oracle accuracy, training runs.

Every figure on these pages is read from a results file: a benchmark that reruns rewrites its
file, and this script rewrites the pages from it. The text of this script holds no figure.

Files are recognised by their content: a script's own schema (``run.py``, ``solve.py``,
``strength.py``), or the *recorded table* schema for tables that no script writes (measured
by hand, or transcribed from an earlier run whose file was not kept)::

    {"schema": "recorded-table-1", "page": "performance" | "solver" | "strength",
     "order": 10,                       # position on the page, after the script files
     "title": "...", "command": "the command that measured it", "commit": "abc1234" | null,
     "measured_at": "ISO date or range", "machine": {"cores": 2, "note": "...", ...},
     "columns": ["...", ...], "rows": [["...", ...], ...], "notes": "...", "source": "..."}

Any other JSON file is shown on the performance page as a flat list of its values.

The pages are committed (``docs/performance.md``, ``docs/solver.md``, ``docs/strength.md``), so
they read on the repository's web view as in the site, and a test checks that they and the
README block equal what this script makes of the committed results. After a benchmark rerun::

    python scripts/gen_results_pages.py            # rewrite the three pages and the README's block
    python scripts/gen_results_pages.py --check    # exit 1, naming the files, if any is out of date
    python scripts/gen_results_pages.py --out DIR --readme FILE    # elsewhere

The README block is the text between the lines ``<!-- headline-results:begin -->`` and
``<!-- headline-results:end -->``: a short table whose every row links to its page.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from mancala_envs.core.files import write_text_atomic

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
PAGES = {"performance": "Performance", "solver": "Solver", "strength": "Strength"}
RECORDED = "recorded-table-1"
FIRST_USE = "first-use-1"  # benchmarks/first_use.py's schema
RAY_TRAINING = "ray-training-1"  # benchmarks/ray_training.py's schema
BEGIN, END = "<!-- headline-results:begin -->", "<!-- headline-results:end -->"
DOCS_LINK = "docs/{page}.md"  # where the README's rows point (the page's source path in the site)


class ResultsError(ValueError):
    """A results file or the README block that cannot be read as expected."""


# -- reading -------------------------------------------------------------------------------
def load_results(folder: Path = RESULTS) -> dict[str, dict]:
    """Every ``*.json`` of ``folder`` by file name, in name order."""
    out = {}
    for path in sorted(folder.glob("*.json")):
        try:
            out[path.name] = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as err:
            raise ResultsError(f"{path}: not valid JSON ({err})") from err
    return out


def kind_of(data: dict) -> str:
    """Which renderer reads ``data``: ``recorded``, ``first_use``, ``speed``, ``boards``, ``midgame``,
    ``strength`` or ``other``."""
    if data.get("schema") == RECORDED:
        return "recorded"
    if data.get("schema") == FIRST_USE:
        return "first_use"
    if data.get("schema") == RAY_TRAINING:
        return "ray_training"
    if "targets" in data and "figures" in data:
        return "speed"
    if "boards" in data:
        return "boards"
    if "positions" in data and "total_nodes" in data:
        return "midgame"
    if "setting" in data and "rows" in data:
        return "strength"
    return "other"


SETTING_ORDER = {"main": 0, "default": 1, "irving": 2}  # strength.py's settings, in the order the page shows them
PAGE_OF_KIND = {"speed": "performance", "first_use": "performance", "ray_training": "performance", "boards": "solver",
                "midgame": "solver", "strength": "strength", "other": "performance"}


# -- formatting ----------------------------------------------------------------------------
def rate(value: float | None, unit: str = "") -> str:
    """``20100000.0, "moves/s"`` -> ``20.1 M moves/s``."""
    if value is None:
        return "-"
    for size, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g} {prefix} {unit}".rstrip()
    return f"{value:.3g} {unit}".rstrip()


def ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}x"


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g} s" if value < 100 else f"{value:,.0f} s"


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def interval(ci: list | None) -> str:
    return "" if not ci else f" ({100 * ci[0]:.1f}-{100 * ci[1]:.1f}%)"


def count(value: int | None) -> str:
    return "-" if value is None else rate(value) if value >= 1e6 else f"{value:,}"


def cell(value: Any) -> str:
    text = "-" if value is None or value == "" else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def md_table(columns: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def provenance(data: dict, name: str) -> str:
    """One line: where the figures come from (command, commit, time, machine, load)."""
    prov = data.get("provenance") or {}
    parts = [f"File `benchmarks/results/{name}`"]
    command = data.get("command") if kind_of(data) == "recorded" else prov.get("command")
    if command:
        parts.append(f"measured by `{command}`")
    commit = data.get("commit") or prov.get("commit")
    if commit:
        parts.append(f"on commit `{commit}`")
    when = data.get("measured_at") or prov.get("measured_at") or data.get("created")
    if when:
        parts.append(f"at {when}")
    machine = data.get("machine")
    if isinstance(machine, dict):
        parts.append("machine: " + ", ".join(f"{k} {v}" for k, v in machine.items()))
    elif machine:
        parts.append(f"machine: {machine}")
    load = data.get("load_average")
    if load:
        parts.append(f"load average {load['start'][0]} at the start, {load['end'][0]} at the end")
    if prov.get("load"):
        parts.append(f"load {prov['load']}")
    text = "; ".join(parts) + "."
    for key in ("note", "source"):
        if prov.get(key) or (kind_of(data) == "recorded" and key == "source" and data.get(key)):
            text += f" {(prov.get(key) or data.get(key))[0].upper()}{(prov.get(key) or data.get(key))[1:]}."
    return text


# -- speed (benchmarks/run.py) ---------------------------------------------------------------
def _fig(figures: dict, *path: str) -> dict:
    node: Any = figures
    for key in path:
        node = node.get(key, {}) if isinstance(node, dict) else {}
    return node if isinstance(node, dict) else {}


SPEED_ROWS: list[tuple[str, tuple[str, ...]]] = [
    ("kernel: `random_playouts` of kalah-v0, one core", ("kernel",)),
    ("the same, generic, alternated with the Kalah-only loop", ("kernel_limit", "generic")),
    ("the same, `specialise=True`, alternated with the Kalah-only loop", ("kernel_limit", "specialised")),
    ("the Kalah-only numba loop (`benchmarks/kalah_only.py`)", ("kernel_limit", "kalah_only")),
    ("OpenSpiel `mancala`, lean Python loop", ("openspiel",)),
    ("plain Python Kalah", ("plain_python",)),
    ("`BatchEnv`, B = 1024, threads chosen per step", ("batch",)),
    ("`BatchEnv(..., specialise=True)`, chosen step", ("batch_modes", "chosen")),
    ("the same, every step serial", ("batch_modes", "serial")),
    ("the same, every step parallel", ("batch_modes", "parallel")),
    ("the same with one core busy: chosen", ("batch_modes", "busy_core_chosen")),
    ("the same with one core busy: serial", ("batch_modes", "busy_core_serial")),
    ("the same with one core busy: parallel", ("batch_modes", "busy_core_parallel")),
    ("MCTS from the start of kalah-v0", ("mcts",)),
    ("OpenSpiel's C++ `MCTSBot`", ("openspiel_mcts",)),
    ("AEC env loop (interleaved rounds)", ("aec_vs_tictactoe_rounds", "aec")),
    ("PettingZoo `tictactoe_v3` (interleaved rounds)", ("aec_vs_tictactoe_rounds", "tictactoe")),
    ("MaskablePPO self-play", ("ppo_selfplay",)),
]

RATIO_ROWS = [
    ("kernel / OpenSpiel's Python loop", "kernel_vs_openspiel_moves"),
    ("kernel, generic / Kalah-only loop", "kernel_vs_kalah_only"),
    ("kernel, specialised / Kalah-only loop", "kernel_specialised_vs_kalah_only"),
    ("OpenSpiel / plain Python", "openspiel_vs_plain_python_moves"),
    ("BatchEnv / OpenSpiel (minutes apart)", "batch_vs_openspiel_moves"),
    ("BatchEnv specialised / OpenSpiel (minutes apart)", "batch_specialised_vs_openspiel_moves"),
    ("BatchEnv specialised / OpenSpiel, median of interleaved rounds", "batch_vs_openspiel_interleaved"),
    ("AEC env / tictactoe_v3, median of interleaved rounds", "aec_vs_tictactoe_interleaved"),
    ("MCTS / OpenSpiel's MCTSBot", "mcts_vs_openspiel_sims"),
    ("MaskablePPO self-play / a trivial env", "ppo_selfplay_vs_trivial_env"),
]


def speed_section(name: str, data: dict) -> str:
    figures, ratios = data["figures"], data.get("ratios", {})
    out = [f"## Speed and targets ({data.get('mode', '')} run)", "", provenance(data, name), ""]
    targets = [[t.get("text"), _target_value(t), _target_value({**t, "measured": t.get("value")}),
                {True: "met", False: "NOT met"}.get(t.get("met"), "-")] for t in data["targets"].values()]
    out += ["### Targets", "", md_table(["target", "measured", "target value", "verdict"], targets), ""]
    rows = []
    for label, path in SPEED_ROWS:
        fig = _fig(figures, *path)
        if fig.get("status") == "ok" and fig.get("value") is not None:
            share = fig.get("parallel_share")
            extra = "" if share is None else f"{100 * share:.2g}% of its steps parallel"
            rows.append([label, rate(fig["value"], fig.get("unit", "")), extra])
    out += ["### Figures", "", md_table(["figure", "median", "note"], rows), ""]
    rows = [[label, ratio(ratios.get(key))] for label, key in RATIO_ROWS if ratios.get(key) is not None]
    by_envs = ratios.get("ppo_selfplay_vs_trivial_env_by_envs") or {}
    if by_envs:
        rows.append(["MaskablePPO / trivial env by games: " + ", ".join(by_envs), " / ".join(ratio(v) for v in by_envs.values())])
    out += ["### Against peers", "", md_table(["ratio", "value"], rows), ""]
    for key, title in (("batch_vs_openspiel_rounds", "BatchEnv against OpenSpiel"),
                       ("aec_vs_tictactoe_rounds", "AEC env against tictactoe_v3")):
        fig = _fig(figures, key)
        if fig.get("status") == "ok":
            out += [f"{title} in interleaved rounds: median {ratio(fig['value'])} over {fig.get('rounds')} rounds "
                    f"(min {ratio(fig.get('worst'))}, max {ratio(fig.get('best'))}).", ""]
    out += cards_section(_fig(figures, "cards"))
    out += cold_start_section(_fig(figures, "cold_start"))
    return "\n".join(out)


def _target_value(target: dict) -> str:
    value = target.get("measured")
    if value is None:
        return "-"
    text = target.get("text", "")
    if "seconds" in text or target.get("lower_is_better"):
        return seconds(value)
    return rate(value) if value >= 1000 else ratio(value)


def cards_section(cards: dict, title: str = "### Card games") -> list[str]:
    if cards.get("status", "ok") != "ok" or not cards.get("figures"):
        return []
    baseline = cards.get("baseline")
    columns = ["id", "kernel moves/s", "MCTS simulations/s", "alpha-beta nodes/s"]
    rows = []
    for env_id, row in cards["figures"].items():
        rows.append([f"`{env_id}`"] + [
            rate(row.get(k, {}).get("new")) + (f" ({ratio(row[k]['ratio'])})" if "ratio" in row.get(k, {}) else "")
            for k in ("kernel", "mcts", "alphabeta")])
    head = f"{title}" + (f" (ratios against commit `{baseline}` in the same run)" if baseline else "")
    out = [head, "", md_table(columns, rows), ""]
    if cards.get("min_ratio") is not None:
        out += [f"Smallest ratio: {ratio(cards['min_ratio'])}.", ""]
    return out


def cold_start_section(cold: dict) -> list[str]:
    if cold.get("status") != "ok":
        return []
    rows = []
    for spec, agent in cold.get("agents", {}).items():
        warm, first = agent.get("warm", {}), agent.get("first_ever", {})
        rows.append([f"`{spec}`", seconds(warm.get("launch_to_move_seconds")), seconds(warm.get("import_seconds")),
                     seconds(warm.get("first_move_seconds")), seconds(first.get("launch_to_move_seconds"))])
    return ["### First use", "",
            "A new Python process, from its launch to its first search move on "
            f"`{cold.get('env_id', '')}`:", "",
            md_table(["agent", "launch to move, warm caches", "import", "the move", "empty numba cache"], rows), ""]


def first_use_section(name: str, data: dict) -> str:
    """``benchmarks/first_use.py``: each case's CPU seconds from empty caches and warm, and where they went."""
    rows, compiled = [], []
    for case in data["cases"]:
        cold, warm = case.get("empty_caches", {}), case.get("warm") or {}
        verdict = {True: "met", False: "NOT met"}[bool(case.get("met"))]
        rows.append([f"`{case['case']}`", seconds(cold.get("cpu_seconds")), seconds(cold.get("wall_seconds")),
                     seconds(cold.get("compiled_total_seconds")), seconds(warm.get("cpu_seconds")),
                     seconds(warm.get("wall_seconds")), f"{seconds(case.get('target_cpu_seconds'))}: {verdict}"])
        for c in cold.get("top_compiled", [])[:3]:
            compiled.append([f"`{case['case']}`", f"`{c['function']}`", seconds(c.get("own_seconds")),
                             c.get("signatures")])
    agents = ", ".join(f"`{a}`" for a in data.get("agents", []))
    return "\n".join([
        "## First use, per family", "", provenance(data, name), "",
        f"One new process per case. A family: `make(ID)`, `reset`, a step, the first move of {agents}. "
        f"`solve`: `mancala {data.get('solve', '')}`, its endgame database included. Empty caches: "
        "`NUMBA_CACHE_DIR` and `MANCALA_ENVS_CACHE` in new empty folders; warm: the same again with "
        "the caches that run filled. CPU: user + system time of the whole process; compiling: the CPU "
        "time of numba's compiles in it.", "",
        md_table(["case", "empty caches: CPU", "wall", "compiling", "warm: CPU", "wall", "target (CPU)"], rows), "",
        "The costliest compiled functions of each case (CPU seconds of their own compile, without the "
        "functions they compiled meanwhile; signatures compiled):", "",
        md_table(["case", "function", "CPU", "signatures"], compiled), "", *warm_process_part(data)])


def warm_process_part(data: dict) -> list[str]:
    """``first_use.json``'s warm processes: a new ``mancala`` process with every cache filled."""
    rows = []
    for case in data.get("warm_process", []):
        if case.get("status") != "ok":
            rows.append([f"`{case['command']}`", case.get("status"), "", "", "", "", ""])
            continue
        imports, interpreter = case.get("imports", {}), case.get("interpreter", {})
        verdict = {True: "met", False: "NOT met"}[bool(case.get("met"))]
        rows.append([f"`{case['command']}`", seconds(case.get("wall_seconds")), seconds(case.get("cpu_seconds")),
                     seconds(imports.get("wall_seconds")), seconds(imports.get("cpu_seconds")),
                     seconds(interpreter.get("wall_seconds")), f"{seconds(case.get('target_wall_seconds'))}: {verdict}"])
    if not rows:
        return []
    return [
        "### A warm new process", "",
        "A new `mancala` process with every cache already filled (numba's, the package's, Python's "
        "bytecode): `solve` to its end, `play` to its first prompt. Medians of the runs; imports: a "
        "new process that only imports the command's module; interpreter: `python -c pass`. The "
        "target is wall time on a quiet machine, so under the load recorded above the CPU time is "
        "the closer figure.", "",
        md_table(["command", "wall", "CPU", "imports: wall", "CPU", "interpreter: wall", "target (wall)"], rows), ""]


def ray_training_section(name: str, data: dict) -> str:
    """``benchmarks/ray_training.py``: the search-bootstrap trainer's self-play on Ray against the local backend."""
    rows = [[row["setup"], row["cpus"], rate(row["games_per_s_per_cpu"]), ratio(row.get("vs_local")),
             seconds(row["iteration_s"]), percent(row["driver_share"]), percent(row["shares"]["fit"]),
             percent(row["shares"]["broadcast"]), percent(row["shares"]["checkpoint"])] for row in data["rows"]]
    work = data["workload"]
    speedup = ", ".join(f"x{value} at {cpus} CPUs" for cpus, value in data["projected_speedup"].items())
    return "\n".join([
        "## Search-bootstrap self-play on Ray", "", provenance(data, name), "",
        f"`{work['config']}`, {work['games_per_iteration']} self-play games per iteration at depth {work['depth']}, "
        f"{work['iterations']} iterations per setup, the first {work['untimed_iterations']} untimed. Ray/local: "
        "games per second per CPU on Ray over the local backend's with as many CPUs. Driver: the share of an "
        "iteration spent outside the games.", "",
        md_table(["setup", "CPUs", "games/s per CPU", "Ray/local", "iteration", "driver", "fit", "broadcast",
                  "checkpoint"], rows), "",
        f"Amdahl's law from the driver's share with one actor: {speedup}. Same networks in every setup: "
        f"{'yes' if data['same_networks'] else 'NO'}.", "",
        "Assumptions: " + "; ".join(data["assumptions"]) + ".", ""])


# -- solver (benchmarks/solve.py) ------------------------------------------------------------
def boards_section(name: str, data: dict) -> str:
    rows = []
    for b in data["boards"]:
        solved = b.get("status") == "solved"
        value = f"{b['value']:+d}" if solved else f"[{b.get('lower')}, {b.get('upper')}]"
        database = seconds(b.get("endgame_seconds")) + (f" (N = {b['endgame_seeds']})" if b.get("endgame_seeds") else "")
        rows.append([f"`{b['id']}`", f"{b['pits']}x{b['seeds']}", b.get("status"), value, b.get("best_move"),
                     count(b.get("nodes")), count(b.get("endgame_hits")), percent(b.get("first_move_cut_rate")),
                     seconds(b.get("seconds")), database, b.get("cache"), seconds(b.get("cold_start_seconds")),
                     seconds(b.get("cpu_seconds")), b.get("load"), b.get("commit"), b.get("measured_at")])
    columns = ["id", "board", "status", "value", "best move", "nodes", "database hits", "first-move cuts",
               "search", "database (N)", "cache", "wall", "CPU", "load", "commit", "measured at"]
    notes = [b["note"] for b in data["boards"] if b.get("note")]
    return "\n".join(["## Solved boards", "", provenance(data, name), "",
                      "Value: the final score difference, first player minus second, under perfect play. "
                      "Search: the solve alone; database: building (cold cache) or loading (warm cache) the "
                      "endgame database; wall: the whole process from its launch; CPU: the process's CPU time.", "",
                      md_table(columns, rows), ""] + [f"- {n}" for n in notes] + [""])


def midgame_section(name: str, data: dict) -> str:
    rows = [[p.get("opening"), p.get("plies"), p.get("seeds_on_board"), p.get("value"), count(p.get("nodes"))]
            for p in data["positions"]]
    return "\n".join([f"## Openings solved (`{name}`)", "", provenance(data, name), "",
                      md_table(["opening", "plies", "seeds on the board", "value", "nodes"], rows), "",
                      f"Total nodes: {count(data['total_nodes'])}.", ""])


# -- strength (benchmarks/strength.py) -------------------------------------------------------
def _met(score: float | None, target: float | None) -> str:
    if target is None or score is None:
        return "-"
    return "yes" if score >= target else "no"


def strength_section(name: str, data: dict) -> str:
    rows = data["rows"]
    games = sorted({r["env_id"] for r in rows})
    out = [f"## Setting `{data['setting']}`: {', '.join(f'`{g}`' for g in games)}", "", provenance(data, name), ""]
    table = [[f"`{r['agent_a']}` vs `{r['agent_b']}`", r.get("train_seed"),
              percent(r["score"]) + interval(r.get("score_ci")),
              " / ".join(percent(x) for x in r["by_seat"]) if r.get("by_seat") else "-", r.get("distinct_games"),
              "-" if r.get("target") is None else f">= {percent(r['target'])}", _met(r["score"], r.get("target"))]
             for r in rows]
    out += [md_table(["row", "training seed", "score (95% CI)", "as player_0 / player_1", "distinct games", "target",
                      "met"], table), ""]
    summary = data.get("over_seeds") or []
    if summary:
        table = [[f"`{s['agent_a']}` vs `{s['agent_b']}`", " / ".join(percent(x) for x in s["scores"]),
                  percent(s["mean"]), percent(s["min"]), percent(s["max"]),
                  {True: "every seed", False: "not every seed"}.get(s.get("every_run_met"), "-")]
                 for s in summary]
        out += ["Over the training seeds:", "",
                md_table(["row", "scores by seed", "mean", "min", "max", "target met"], table), ""]
    for env_id, times in (data.get("move_ms") or {}).items():
        out += [f"CPU time a move on `{env_id}` (positions of `alphabeta:depth=3` self-play, every stage):", "",
                md_table(["agent", "CPU ms a move"], [[f"`{spec}`", f"{ms:.2f}"] for spec, ms in times.items()]), ""]
    out += _oracle_rows(data)
    training = data.get("training") or []
    if training:
        table = [[f"`{t['config']}`", t.get("train_seed"), seconds(t.get("seconds")), seconds(t.get("cpu_seconds")),
                  t.get("load") or _load(t), t.get("note")] for t in training]
        out += ["Training:", "", md_table(["config", "seed", "training time", "CPU time", "load", "note"], table), ""]
    return "\n".join(out)


def _oracle_rows(data: dict) -> list[str]:
    """The oracle row of a strength file (``optimal_move_rate``): each agent against perfect play."""
    rates = list((data.get("optimal_move_rate") or {}).values())
    if not rates:
        return []

    def ci(r: dict, key: str, fmt: Callable[[float], str]) -> str:
        low_high = r.get(key + "_ci")
        return "" if not low_high else f" ({fmt(low_high[0])}-{fmt(low_high[1])})"

    def stones(x: float) -> str:
        return f"{x:.2f}"

    table = [[f"`{r['agent']}`", r.get("train_seed"),
              percent(r["rate"]) + ci(r, "rate", percent),
              "-" if r.get("kept") is None else percent(r["kept"]) + ci(r, "kept", percent),
              stones(r["mean_loss"]) + ci(r, "mean_loss", stones),
              "-" if r.get("ms_per_move") is None else f"{r['ms_per_move']:.2f}",
              "-" if r.get("target") is None else f">= {percent(r['target'])}", _met(r["rate"], r.get("target"))]
             for r in rates]
    head = ["agent", "training seed", "optimal moves (95% CI)", "result kept (95% CI)", "stones lost a move (95% CI)",
            "CPU ms a move", "optimal target", "met"]
    return [f"Against perfect play: {rates[0]['sample']}; every legal move valued exactly (endgame database, "
            "else the solver); intervals bootstrapped over the positions.", "", md_table(head, table), ""]


def _load(training: dict) -> str | None:
    before, after = training.get("load_before"), training.get("load_after")
    return None if before is None else f"{before[0]:.1f} -> {after[0]:.1f}"


# -- recorded tables and anything else -------------------------------------------------------
def recorded_section(name: str, data: dict) -> str:
    out = [f"## {data['title']}", "", provenance(data, name), "", md_table(data["columns"], data["rows"]), ""]
    if data.get("notes"):
        out += [data["notes"], ""]
    return "\n".join(out)


def _flatten(data: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(data, dict):
        return [item for key, value in data.items() if not str(key).endswith("samples")
                for item in _flatten(value, f"{prefix}.{key}" if prefix else str(key))]
    if isinstance(data, list) and data and all(isinstance(v, (dict, list)) for v in data):
        return [item for i, value in enumerate(data) for item in _flatten(value, f"{prefix}[{i}]")]
    return [(prefix, data)]


def other_section(name: str, data: dict) -> str:
    rows = [[f"`{key}`", json.dumps(value) if isinstance(value, list) else value] for key, value in _flatten(data)]
    return "\n".join([f"## `{name}`", "", provenance(data, name), "", md_table(["field", "value"], rows), ""])


RENDERERS: dict[str, Callable[[str, dict], str]] = {
    "speed": speed_section, "first_use": first_use_section, "ray_training": ray_training_section, "boards": boards_section, "midgame": midgame_section,
    "strength": strength_section, "recorded": recorded_section, "other": other_section}

INTROS = {
    "performance": "Speed of the environments, the batched engine and the searches, against the peers "
                   "(PettingZoo, OpenSpiel) and against the project's speed targets, and the time a new process takes "
                   "to its first move.",
    "solver": "Exact values of Kalah boards from the solver (`mancala solve`), the endgame databases, "
              "and the solver's design choices as measured.",
    "strength": "Agents' strength over opening suites (each opening played from both seats, intervals "
                "bootstrapped over openings), the oracle's accuracy, and training runs.",
}


def build_pages(results: dict[str, dict]) -> dict[str, str]:
    """Page name (``performance``, ``solver``, ``strength``) -> Markdown."""
    sections: dict[str, list[tuple[tuple, str]]] = {page: [] for page in PAGES}
    for name, data in results.items():
        kind = kind_of(data)
        page = data.get("page") if kind == "recorded" else PAGE_OF_KIND[kind]
        if page not in PAGES:
            raise ResultsError(f"benchmarks/results/{name}: page {page!r} is not one of {sorted(PAGES)}")
        if kind in ("recorded", "other"):
            order = (1, data.get("order", 0), name)
        elif kind in ("first_use", "ray_training"):  # after the speed figures
            order = (0, len(SETTING_ORDER) + 1, name)
        else:  # the script files first; the main job's and the default setting's strength first
            order = (0, SETTING_ORDER.get(data.get("setting"), len(SETTING_ORDER)), name)
        sections[page].append((order, RENDERERS[kind](name, data)))
    pages = {}
    for page, title in PAGES.items():
        body = [text for _, text in sorted(sections[page], key=lambda item: item[0])]
        head = [f"# {title}", "", INTROS[page], "",
                "This page is generated by `scripts/gen_results_pages.py` from `benchmarks/results/*.json`; "
                "the scripts that write those files are described in `benchmarks/README.md`.", ""]
        if not body:
            body = ["No results file for this page yet."]
        pages[page] = "\n".join(head + body).rstrip() + "\n"
    return pages


# -- the README's headline table ---------------------------------------------------------------
def _of_kind(results: dict[str, dict], kind: str) -> list[tuple[str, dict]]:
    return [(name, data) for name, data in results.items() if kind_of(data) == kind]


def _oracle_headline(strength: list[tuple[str, dict]]) -> list[tuple[str, str, str]]:
    """The main setting's oracle row: the best agent with the learned evaluation and the bare network, each
    as its lowest optimal-move rate over the training seeds measured (the file of the best agent)."""
    by_agent: dict[tuple[str, str], list[dict]] = {}
    for name, data in strength:
        if data["setting"] != "main":
            continue
        for entry in data.get("optimal_move_rate", {}).values():
            by_agent.setdefault((name, entry["agent"]), []).append(entry)
    lowest = {key: min(entries, key=lambda e: e["rate"]) for key, entries in by_agent.items()}
    rows = []
    for label, wanted in (("best agent", lambda agent: "eval=RUN" in agent), ("bare network", lambda agent: agent == "policy:RUN")):
        chosen = [(entry["rate"], key[1], entry, len(by_agent[key])) for key, entry in lowest.items() if wanted(key[1])]
        if chosen:
            rate_, agent, entry, seeds = max(chosen, key=lambda c: c[0])
            rows.append((f"Against perfect play (`{entry['env_id']}`, {entry['positions']} positions), {label}: `{agent}`",
                         f"{percent(rate_)}{interval(entry.get('rate_ci'))} optimal moves (the lowest of {seeds} "
                         f"training seeds), {entry.get('ms_per_move', 0):.1f} CPU ms a move on them", "strength"))
    return rows


def headline_rows(results: dict[str, dict]) -> list[tuple[str, str, str]]:
    """(what, result, page) for the README: speed, first use, strength, the solver."""
    rows = []
    for _, data in _of_kind(results, "speed")[:1]:
        figures, ratios = data["figures"], data.get("ratios", {})
        kernel, batch = _fig(figures, "kernel"), _fig(figures, "batch_modes", "chosen")
        if kernel.get("value") is not None:
            rows.append(("Kernel random playouts, one core", f"{rate(kernel['value'], kernel.get('unit', ''))}, "
                         f"{ratio(ratios.get('kernel_vs_openspiel_moves'))} OpenSpiel's Python loop", "performance"))
        if batch.get("value") is not None:
            rows.append(("`BatchEnv`, B = 1024", f"{rate(batch['value'], batch.get('unit', ''))}, "
                         f"{ratio(ratios.get('batch_vs_openspiel_interleaved'))} OpenSpiel", "performance"))
        if ratios.get("mcts_vs_openspiel_sims") is not None:
            rows.append(("MCTS against OpenSpiel's C++ `MCTSBot`",
                         f"{rate(_fig(figures, 'mcts').get('value'), 'simulations/s')}, "
                         f"{ratio(ratios['mcts_vs_openspiel_sims'])}", "performance"))
        cold = _fig(figures, "cold_start")
        if cold.get("value") is not None:
            firsts = [run["first_ever"]["launch_to_move_seconds"] for run in cold.get("agents", {}).values()
                      if "launch_to_move_seconds" in run.get("first_ever", {})]
            empty = f"; {seconds(max(firsts))} with an empty numba cache" if firsts else ""
            rows.append((f"A new process to its first search move on `{cold.get('env_id', '')}`",
                         f"{seconds(cold['value'])} with warm caches{empty}", "performance"))
    strength = [(n, d) for n, d in _of_kind(results, "strength")]
    main = [r for _, d in strength if d["setting"] == "main" for r in d["rows"]]
    if main:
        r = main[0]
        rows.append((f"Main job (`{r['env_id']}`): `{r['agent_a']}` vs `{r['agent_b']}`",
                     percent(r["score"]) + interval(r.get("score_ci")), "strength"))
    searched = [r for _, d in strength for r in d["rows"]
                if "eval=" in r["agent_a"] and r["agent_b"] != "random" and r["env_id"] == "kalah-v0"]
    if searched:
        r = max(searched, key=lambda row: row["score"])
        rows.append((f"Best search with a learned evaluation (`{r['env_id']}`): `{r['agent_a']}` vs `{r['agent_b']}`",
                     percent(r["score"]) + interval(r.get("score_ci")), "strength"))
    rows.extend(_oracle_headline(strength))
    solved = [b for _, d in _of_kind(results, "boards") for b in d["boards"] if b.get("status") == "solved"]
    if solved:
        b = max(solved, key=lambda board: (board["pits"] * board["seeds"], -board.get("cold_start_seconds", 0)))
        rows.append((f"Solver, largest board solved: `{b['id']}` {b['pits']}x{b['seeds']}",
                     f"{b['value']:+d} in {seconds(b.get('cold_start_seconds'))}"
                     + (" (its endgame database loaded from the cache)" if b.get("cache") == "warm" else ""), "solver"))
    return rows


def headline_block(results: dict[str, dict], link: str = DOCS_LINK) -> str:
    rows = [[what, result, f"[{PAGES[page]}]({link.format(page=page)})"]
            for what, result, page in headline_rows(results)]
    return "\n".join([BEGIN, md_table(["measured", "result", "details"], rows), END])


def rewrite_readme(text: str, block: str) -> str:
    """``text`` with the lines between the two markers (the markers included) replaced by ``block``."""
    lines = text.split("\n")
    try:
        start, stop = lines.index(BEGIN), lines.index(END)
    except ValueError as err:
        raise ResultsError(f"the README has no line {BEGIN!r} followed by a line {END!r}") from err
    if stop < start:
        raise ResultsError(f"the README's {END!r} comes before {BEGIN!r}")
    return "\n".join(lines[:start] + block.split("\n") + lines[stop + 1:])


# -- entry points -------------------------------------------------------------------------------
def generated_files(results: dict[str, dict], out: Path, readme: Path, link: str) -> dict[Path, str]:
    """``{path: text}`` of every file this script writes: the three pages and the README."""
    files = {out / f"{page}.md": text for page, text in build_pages(results).items()}
    files[readme] = rewrite_readme(readme.read_text(encoding="utf-8"), headline_block(results, link))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help="folder of the results files")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md",
                        help="the README whose headline block is rewritten (default: the repository's)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs",
                        help="where performance.md, solver.md and strength.md go (default: docs/)")
    parser.add_argument("--link", default=DOCS_LINK, help="the README rows' link, {page} for the page name")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is out of date")
    args = parser.parse_args(argv)
    try:
        files = generated_files(load_results(args.results), args.out, args.readme, args.link)
        stale = [path for path, text in files.items()
                 if not path.exists() or path.read_text(encoding="utf-8") != text]
        if args.check:
            for path in stale:
                print(f"out of date: {path} (run python scripts/gen_results_pages.py)", file=sys.stderr)
            return 1 if stale else 0
        args.out.mkdir(parents=True, exist_ok=True)
        for path in stale:
            write_text_atomic(path, files[path])
    except (ResultsError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
