"""Golden game records: every registered id replays its recorded games position by position.

The records in ``tests/golden/<env_id>.json`` are written by ``scripts/regen_golden.py``.
A failure here means the behaviour of a registered id changed (its rules, its preset, its
notation or its JSON). If the change is intended, regenerate with
``python scripts/regen_golden.py`` and review the diff of the records.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mancala_envs

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
REGEN = "run `python scripts/regen_golden.py` (and review the diff) if the change is intended"
ENV_IDS = mancala_envs.list_envs()


def _plain(payload):
    return json.loads(json.dumps(payload))


def _load(env_id: str) -> dict:
    path = GOLDEN_DIR / f"{env_id}.json"
    if not path.exists():
        pytest.fail(f"{env_id} is registered but has no golden record {path.name}; run `python scripts/regen_golden.py`")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_registered_id_has_a_golden_record(env_id):
    record = _load(env_id)
    assert record["env_id"] == env_id
    assert len(record["games"]) >= 1


def test_no_golden_record_without_a_registered_id():
    orphans = sorted(p.stem for p in GOLDEN_DIR.glob("*.json") if p.stem not in ENV_IDS)
    assert not orphans, f"golden records for ids that are not registered: {orphans}; delete them if the ids are gone"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_preset_unchanged(env_id):
    record = _load(env_id)
    current = _plain(mancala_envs.make_game(env_id).options)
    assert current == record["options"], (
        f"{env_id}: the resolved options differ from the golden record's; a registered id must not change "
        f"behaviour. {REGEN}"
    )


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_golden_replay(env_id):
    record = _load(env_id)
    game = mancala_envs.make_game(env_id, **record["options"])
    for number, rec in enumerate(record["games"]):
        where = f"{env_id} golden game {number} (seed {rec['seed']})"
        assert len(rec["actions"]) == len(rec["positions"]) == len(rec["notation"]) == rec["plies"]
        state = game.new_state(rec["seed"])
        assert _plain(state.to_json()) == rec["initial"], f"{where}: start position differs. {REGEN}"
        for ply, (action, name, expected) in enumerate(zip(rec["actions"], rec["notation"], rec["positions"])):
            assert state.is_legal(action), (
                f"{where}, ply {ply}: recorded action {action} ({name}) is no longer legal; "
                f"legal now: {state.legal_actions()}. {REGEN}"
            )
            assert game.action_to_string(state, action) == name, (
                f"{where}, ply {ply}: action {action} is now written "
                f"{game.action_to_string(state, action)!r}, recorded {name!r}. {REGEN}"
            )
            assert game.string_to_action(state, name) == action, f"{where}, ply {ply}: {name!r} no longer parses to {action}"
            state.apply(action)
            got = _plain(state.to_json())
            assert got == expected, (
                f"{where}, after ply {ply} (action {action}, {name}):\n  got      {got}\n  recorded {expected}\n{REGEN}"
            )
            assert game.state_from_json(expected) == state, f"{where}, ply {ply}: the recorded position does not load back"
        assert state.is_terminal() == rec["terminal"], f"{where}: terminal is {state.is_terminal()}, recorded {rec['terminal']}"
        assert state.returns() == rec["returns"], f"{where}: returns {state.returns()}, recorded {rec['returns']}"
        assert state.scores() == rec["scores"], f"{where}: scores {state.scores()}, recorded {rec['scores']}"
        if rec["capped"]:
            assert rec["plies"] == record["max_plies_recorded"] and not rec["terminal"]

