"""Your own agent in match, eval and tournament: an object, a function, or a ``module:callable`` spec."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mancala_envs.agents import AgentSpecError, make_agent
from mancala_envs.evaluation import play_match
from mancala_envs.agents.specs import CustomAgent
from mancala_envs.evaluation.tournament import round_robin

MODULE = textwrap.dedent("""
    class Cautious:
        name = "cautious"

        def __init__(self):
            self.resets = []

        def act(self, state):
            return min(state.legal_actions())

        def reset(self, seed=None):
            self.resets.append(seed)


    def seeded(seed=None):
        return Cautious() if seed is None else Cautious()


    not_callable = 3
""")


@pytest.fixture
def my_agents(tmp_path, monkeypatch):
    (tmp_path / "my_agents_mod.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


class Lowest:
    name = "lowest"

    def act(self, state):
        return min(state.legal_actions())


def test_play_match_takes_objects_and_functions():
    result = play_match("kalah-v0", Lowest(), lambda state: max(state.legal_actions()), openings=3, pits=3)
    report = result.report()
    assert report["games"] == 6 and result.agent_a == "lowest" and result.agent_b == "<lambda>"


def test_a_module_callable_spec(my_agents):
    agent = make_agent("my_agents_mod:Cautious", seed=3)
    assert isinstance(agent, CustomAgent) and agent.name == "my_agents_mod:Cautious"
    result = play_match("kalah-v0", agent, make_agent("greedy"), openings=2, pits=3)
    assert result.report()["games"] == 4
    assert len(agent.inner.resets) == 4, "reset before every game, with the game's seed"
    assert make_agent("my_agents_mod:seeded", seed=1).name == "my_agents_mod:seeded"


@pytest.mark.parametrize("spec, message", [
    ("no_such_module_q:Agent", "cannot import 'no_such_module_q'"),
    ("my_agents_mod:Missing", "my_agents_mod has no callable 'Missing'"),
    ("my_agents_mod:not_callable", "has no callable 'not_callable'"),
    ("wizard", "unknown agent 'wizard'; known agents: .*, or module:callable for your own"),
])
def test_bad_module_specs_are_clear(my_agents, spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def test_an_object_without_act_is_refused():
    with pytest.raises(AgentSpecError, match="an object with act"):
        make_agent(object())


def test_round_robin_takes_objects_and_specs(tmp_path):
    result = round_robin("kalah-v0", [Lowest(), "random", "greedy"], openings=2, workers=1, pits=3)
    assert sorted(result.agents) == ["greedy", "lowest", "random"]
    assert json.loads(json.dumps(result.to_dict(), default=str))["agents"] == ["lowest", "random", "greedy"]
    with pytest.raises(ValueError, match="agent names must be distinct"):
        round_robin("kalah-v0", [Lowest(), Lowest()], openings=1, workers=1)


def test_evaluation_takes_objects():
    pytest.importorskip("yaml")
    from mancala_envs.evaluation.openings import opening_suite
    from mancala_envs.registry import make_game
    from mancala_envs.training.evaluation import evaluate

    game = make_game("kalah-v0", pits=3)
    rows, _ = evaluate(game, make_agent("greedy"), ["random", Lowest()], opening_suite(game, 2), step=0,
                       pool=["lowest"])
    assert [(r["opponent"], r["in_training_pool"], r["games"]) for r in rows] == [
        ("random", False, 4), ("lowest", True, 4)]


def test_the_command_line_finds_a_module_in_the_current_folder(tmp_path):
    (tmp_path / "my_agents_cli.py").write_text(MODULE)
    # the installed script, whose import path does not start with the current folder
    command = [shutil.which("mancala") or str(Path(sys.executable).parent / "mancala")]
    match = subprocess.run(command + ["match", "kalah-v0", "my_agents_cli:Cautious", "greedy", "pits=3", "--openings",
                                      "2", "--json"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert match.returncode == 0, match.stderr
    assert json.loads(match.stdout)["games"] == 4
    tournament = subprocess.run(command + ["tournament", "kalah-v0", "--agents", "my_agents_cli:Cautious", "random",
                                           "--openings", "1", "--no-plot", "--no-progress", "--json"],
                                capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert tournament.returncode == 0, tournament.stderr
    assert json.loads(tournament.stdout)["agents"] == ["my_agents_cli:Cautious", "random"]
