"""Exact values of Kalah(m, n) boards: what ``mancala solve`` reaches on this machine.

    .venv/bin/python benchmarks/solve.py [--timeout S] [--max-pits M] [--max-seeds N] [--out FILE]

For ``kalah-irving2000-v0`` and ``kalah-v0``, every board of ``pits`` = 1..M holes a side and
``seeds`` = 1..N seeds a hole is solved by the command a user would run,
``mancala solve ID pits=m seeds=n --json --key obs --tt-bits 24``, in its own process with
a time limit (``--timeout``, default 120 s). A board that runs out of time ends its row
(more seeds only take longer). The table prints the value (first player minus second under
perfect play), the nodes and the seconds; the JSON goes to ``benchmarks/results/solve.json``
(or ``--out``), written atomically.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mancala_envs.core.files import write_text_atomic  # noqa: E402

IDS = ("kalah-irving2000-v0", "kalah-v0")


def solve_board(env_id: str, pits: int, seeds: int, timeout: float) -> dict:
    command = [sys.executable, "-m", "mancala_envs.cli", "solve", env_id, f"pits={pits}", f"seeds={seeds}",
               "--json", "--key", "obs", "--tt-bits", "24"]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"id": env_id, "pits": pits, "seeds": seeds, "status": f"over {timeout:g} s"}
    if done.returncode != 0:
        return {"id": env_id, "pits": pits, "seeds": seeds, "status": "error", "stderr": done.stderr.strip()[-500:]}
    result = json.loads(done.stdout)
    return {"id": env_id, "pits": pits, "seeds": seeds, "status": "solved",
            "process_seconds": time.perf_counter() - start, **result}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per board (default 120)")
    parser.add_argument("--max-pits", type=int, default=6)
    parser.add_argument("--max-seeds", type=int, default=6)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "solve.json")
    args = parser.parse_args(argv)
    rows = []
    print(f"{'id':<22}{'board':>7}{'value':>7}{'nodes':>14}{'seconds':>10}")
    for env_id in IDS:
        for pits in range(1, args.max_pits + 1):
            for seeds in range(1, args.max_seeds + 1):
                row = solve_board(env_id, pits, seeds, args.timeout)
                rows.append(row)
                if row["status"] == "solved":
                    print(f"{env_id:<22}{f'{pits}x{seeds}':>7}{row['value']:>7}{row['nodes']:>14,}{row['seconds']:>10.2f}",
                          flush=True)
                else:
                    print(f"{env_id:<22}{f'{pits}x{seeds}':>7}  {row['status']}", flush=True)
                    break
    report = {"machine": platform.platform(), "python": platform.python_version(), "timeout": args.timeout,
              "command": "mancala solve ID pits=m seeds=n --json --key obs --tt-bits 24", "boards": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(args.out, json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
