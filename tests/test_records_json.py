"""The generic JSON game record: every id saves, loads and replays; bad records are refused."""

from __future__ import annotations

import pytest

import mancala_envs
from mancala_envs.agents import RandomAgent
from mancala_envs.evaluation import play_game
from mancala_envs.records import GameRecord, RecordError, load_json, save_json

@pytest.mark.parametrize("env_id", mancala_envs.list_envs())
def test_record_round_trip_for_every_id(env_id, tmp_path):
    game = mancala_envs.make_game(env_id)
    actions = play_game(game, (RandomAgent(1), RandomAgent(2)), seed=9).actions
    record = GameRecord.from_game(game, actions, seed=9)
    assert record.result["terminal"] is True and record.result["plies"] == len(actions)
    path = tmp_path / "game.json"
    save_json(record, path)
    loaded = load_json(path)
    assert loaded == record
    positions = loaded.replay()
    assert len(positions) == len(actions) + 1
    final = game.new_state(9)
    for a in actions:
        final.apply(a)
    assert positions[-1].to_json() == final.to_json()
    assert list(tmp_path.iterdir()) == [path], "no temporary file may be left behind"

def test_options_are_kept_as_overrides_of_the_preset():
    game = mancala_envs.make_game("kalah-bidirectional-v0", pits=4, seeds=3)
    record = GameRecord.from_game(game, [], seed=None)
    assert record.options == {"pits": 4, "seeds": 3}
    assert record.game() == game

def _payload(**changes):
    payload = {"format": "mancala-envs/record", "version": 1, "env_id": "kalah-v0", "options": {},
               "seed": None, "actions": [2, 5]}
    payload.update(changes)
    return payload

@pytest.mark.parametrize(
    "payload, pattern",
    [
        ([1, 2], "must be a JSON object"),
        (_payload(format="pgn"), "not a mancala-envs record"),
        (_payload(version=7), "version 7 is not supported"),
        (_payload(moves=[1]), r"unknown record keys \['moves'\]"),
        (_payload(env_id=3), "needs 'env_id'"),
        (_payload(actions="2 5"), "needs 'actions'"),
        (_payload(actions=[2, "x"]), "ply 2: action 'x' is not an integer"),
        (_payload(seed=-4), "'seed' must be a non-negative integer"),
        (_payload(options=[1]), "'options' must be an object"),
    ],
)
def test_malformed_record(payload, pattern):
    with pytest.raises(RecordError, match=pattern):
        GameRecord.from_json(payload)

def test_unknown_id_or_option_in_a_record():
    with pytest.raises(mancala_envs.UnknownEnvError, match="kalah-v9"):
        GameRecord.from_json(_payload(env_id="kalah-v9"))
    with pytest.raises(mancala_envs.InvalidOptionError, match="pits"):
        GameRecord.from_json(_payload(options={"pits": 0}))

def test_illegal_action_names_the_ply_and_the_legal_moves():
    # ply 1 plays hole 4 (action 2): extra turn; ply 2 plays the now empty hole again
    record = GameRecord.from_json(_payload(actions=[2, 2]))
    with pytest.raises(RecordError, match=r"ply 2: action 2 is not legal for player 0; legal actions: 0 \(6\), 1 \(5\)"):
        record.replay()

def test_action_after_the_end_and_wrong_result():
    game = mancala_envs.make_game("kalah-v0", pits=1, seeds=1)
    record = GameRecord.from_game(game, [0], seed=None)  # one seed into the store ends the game
    assert record.result["scores"] == [1, 1]
    with pytest.raises(RecordError, match="ply 2 .* after the end"):
        GameRecord(record.env_id, [0, 0], record.options).replay()
    forged = GameRecord.from_json({**record.to_json(), "result": {"scores": [2, 0]}})
    with pytest.raises(RecordError, match=r"recorded result says scores=\[2, 0\], the replay gives \[1, 1\]"):
        forged.replay()

def test_load_errors_name_the_file(tmp_path):
    missing = tmp_path / "none.json"
    with pytest.raises(RecordError, match="cannot read record .*none.json"):
        load_json(missing)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(RecordError, match="bad.json' is not JSON: .* line 1"):
        load_json(bad)
