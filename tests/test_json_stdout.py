"""With ``--json``, stdout holds only the JSON, whatever Ray or a library prints meanwhile.

``mancala_envs.cli.output.only_json_on_stdout`` points the process's stdout at stderr while a
run goes (the file descriptor, so C code and child processes follow), shuts Ray down before
giving stdout back, and the command prints its JSON after. The fast test writes on stdout
every way a library can; the Ray tests run a tournament on a local Ray and lose a worker
mid-match, which makes Ray's driver print a ``(raylet)`` line.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_script(script: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, stdin=subprocess.DEVNULL)


def test_everything_written_to_stdout_during_the_run_goes_to_stderr():
    out = run_script("""
        import json, os, subprocess, sys
        from mancala_envs.cli.output import only_json_on_stdout
        with only_json_on_stdout(True):
            print("a library's print")
            os.write(1, b"C code writing to fd 1\\n")
            subprocess.run(["echo", "a child process"], check=True)
        print(json.dumps({"ok": True}))
    """)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"ok": True}
    for noise in ("a library's print", "C code writing to fd 1", "a child process"):
        assert noise in out.stderr and noise not in out.stdout


def test_without_json_stdout_is_left_alone():
    out = run_script("""
        from mancala_envs.cli.output import only_json_on_stdout
        with only_json_on_stdout(False):
            print("table")
    """)
    assert out.stdout == "table\n"


@pytest.mark.slow  # starts a local Ray
def test_tournament_json_on_ray_parses(tmp_path):
    pytest.importorskip("ray")
    out = subprocess.run([sys.executable, "-m", "mancala_envs.cli", "tournament", "kalah-v0", "pits=3", "seeds=2",
                          "--agents", "random", "greedy", "--openings", "2", "--backend", "ray", "--json",
                          "--no-progress", "--no-plot", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=600, cwd=ROOT, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["agents"] == ["random", "greedy"]


@pytest.mark.slow  # starts a local Ray and loses one of its workers
def test_json_parses_after_a_ray_worker_is_lost(tmp_path):
    """Ray's driver prints a ``(raylet)`` line for the lost worker: on stderr, never in the JSON."""
    pytest.importorskip("ray")
    marker = tmp_path / "died"
    out = run_script("""
        import json, os, sys
        from pathlib import Path
        import mancala_envs
        from mancala_envs.agents import make_agent
        from mancala_envs.cli.output import only_json_on_stdout
        from mancala_envs.evaluation import play_match
        from mancala_envs.evaluation.arena import agent_seeds
        from mancala_envs.evaluation.openings import opening_suite

        class DiesOnce:
            name = "dies-once"

            def __init__(self, marker, victim_seed):
                self.marker, self.victim_seed, self.inner, self.seed = marker, victim_seed, make_agent("random"), None

            def reset(self, seed=None):
                self.seed = seed
                self.inner.reset(seed=seed)

            def warmup(self, game):
                pass

            def act(self, state):
                if self.seed == self.victim_seed and not os.path.exists(self.marker):
                    Path(self.marker).write_text(str(os.getpid()))
                    os._exit(1)  # the whole worker process, mid-chunk
                return self.inner.act(state)

        game = mancala_envs.make_game("kalah-v0")
        suite = opening_suite(game, 8, seed=4)
        victim = int(agent_seeds(suite)[9, 0])
        with only_json_on_stdout(True):
            result = play_match(game, DiesOnce(sys.argv[1], victim), "greedy", suite, backend="ray", workers=2)
        print(json.dumps(result.report()))
    """, str(marker))
    assert out.returncode == 0, out.stderr
    assert marker.exists(), "the worker was never lost"
    assert json.loads(out.stdout)["games"] == 16
