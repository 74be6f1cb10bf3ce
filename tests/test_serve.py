"""``mancala serve``'s API without a browser: every request checked, games per session, 127.0.0.1.

The page itself is driven in headless Chromium by ``test_serve_browser.py``.
"""

from __future__ import annotations

import json
import threading
import tomllib
import urllib.request
from fnmatch import fnmatch
from pathlib import Path

import pytest

pytest.importorskip("flask", reason="the web extra (Flask) is not installed: bash scripts/setup.sh web")

from mancala_envs.cli import build_parser  # noqa: E402
from mancala_envs.cli.serve import DEFAULT_HOST, make_server  # noqa: E402
from mancala_envs.cli.web_app import WEB_FOLDER, create_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def app():
    return create_app("greedy")


@pytest.fixture
def client(app):
    return app.test_client()


def start(client, **fields):
    answer = client.post("/api/new", json={"env_id": "kalah-v0", "seat": 0, "seed": 7, **fields})
    assert answer.status_code == 200, answer.json
    return answer.json


def refused(answer, *words: str) -> str:
    assert answer.status_code == 400
    error = answer.json["error"]
    for word in words:
        assert word in error, error
    return error


def test_bad_ids_specs_seats_and_bodies_get_the_packages_errors(client):
    refused(client.post("/api/new", json={"env_id": "kalah-v9"}), "unknown env id 'kalah-v9'", "kalah-v0")
    refused(client.post("/api/new", json={"env_id": "kalah-v0", "options": {"pits": 99}}), "pits")
    refused(client.post("/api/new", json={"env_id": "kalah-v0", "options": "pits=x"}), "pits")
    refused(client.post("/api/new", json={"env_id": "kalah-v0", "options": "colour=red"}), "colour")
    refused(client.post("/api/new", json={"opponent": "bogus"}), "unknown agent 'bogus'", "alphabeta")
    refused(client.post("/api/new", json={"opponent": "human"}), "opponent must be an agent spec")
    refused(client.post("/api/new", json={"seat": 2}), "seat must be 0 or 1, got 2")
    refused(client.post("/api/new", json={"seed": "abc"}), "seed must be a non-negative integer")
    refused(client.post("/api/new", data="not json"), "must be a JSON object")
    refused(client.get("/api/state"), "no game in this browser session")


def test_an_illegal_move_is_refused_and_not_applied(client):
    view = start(client)
    before = view["svg"]
    refused(client.post("/api/move", json={"cell": "p1.0"}), "is not a legal move here; legal moves: 6, 5, 4, 3, 2, 1")
    refused(client.post("/api/move", json={"action": 99}), "99")
    refused(client.post("/api/move", json={"action": "2"}), "action must be an integer")
    refused(client.post("/api/move", json={}), "a move is")
    after = client.get("/api/state").json
    assert after["svg"] == before and after["moves"] == [] and after["plies"] == 0


def test_a_move_gets_the_agents_reply_and_undo_takes_both_back(client):
    start(client)
    view = client.post("/api/move", json={"cell": "p0.0"}).json  # hole 6: no extra turn
    assert [m["player"] for m in view["moves"]][:2] == [0, 1] and view["your_turn"]
    assert "greedy played" in view["message"]
    view = client.post("/api/undo").json
    assert view["moves"] == [] and view["plies"] == 0


@pytest.mark.slow  # one second of alpha-beta, compiled on first use
def test_a_hint_rings_a_legal_move_in_green(client):
    from mancala_envs.render.picture import HINT_COLOUR

    ring = 'stroke="#%02x%02x%02x" stroke-width="4"' % HINT_COLOUR
    view = start(client, options={"pits": 3, "seeds": 2})
    assert ring not in view["svg"]
    view = client.post("/api/hint").json
    assert ring in view["svg"] and view["message"].startswith("hint (")
    assert view["message"].rsplit(": ", 1)[1] in {m["name"] for m in view["legal"]}
    view = client.post("/api/move", json={"action": view["legal"][0]["action"]}).json
    assert ring not in view["svg"]  # a hint lasts until the position changes


def test_options_come_as_words_or_an_object(client):
    assert start(client, options="pits=4 seeds=3")["legal"][-1]["action"] == 3
    assert len(start(client, options={"pits": 5})["legal"]) == 5


def test_the_agent_moves_first_when_the_human_takes_seat_1(client):
    view = start(client, seat=1)
    assert view["your_turn"] and view["moves"][0]["player"] == 0


def test_each_browser_session_has_its_own_game(app):
    first, second = app.test_client(), app.test_client()
    start(first)
    start(second, env_id="rondell-v0")
    first.post("/api/move", json={"cell": "p0.0"})
    assert first.get("/api/state").json["env_id"] == "kalah-v0"
    assert second.get("/api/state").json["plies"] == 0


def test_a_cell_with_a_move_each_way_takes_the_half_clicked(client):
    view = start(client, env_id="kalah-bidirectional-v0")
    both = {}
    for move in view["legal"]:
        both.setdefault(move["cell"], []).append(move)
    cell, moves = next((c, m) for c, m in both.items() if len(m) == 2)
    refused(client.post("/api/move", json={"cell": cell}), "has a move each way")
    # on the near row counterclockwise sows rightward (as the window's action_boxes)
    view = client.post("/api/move", json={"cell": cell, "side": "right"}).json
    ccw = next(m["name"] for m in moves if m["way"] == "ccw")
    assert view["moves"][0]["name"] == ccw


def test_save_load_and_step_through_a_record(client):
    start(client)
    client.post("/api/move", json={"cell": "p0.0"})
    record = client.get("/api/record")
    assert "attachment" in record.headers["Content-Disposition"]
    payload = record.json
    view = client.post("/api/load", json={"record": payload}).json
    assert view["review"] and view["index"] == 0 and view["length"] == len(payload["actions"])
    view = client.post("/api/step", json={"index": 1}).json
    assert view["plies"] == 1 and view["index"] == 1
    refused(client.post("/api/step", json={"index": 99}), f"from 0 to {len(payload['actions'])}")
    refused(client.post("/api/move", json={"cell": "p0.1"}), "a saved record is on the board")
    refused(client.post("/api/load", json={"record": {**payload, "actions": [99]}}), "99")
    refused(client.post("/api/load", json={"record": "x"}), "must be a JSON object")


@pytest.mark.slow  # the first solve of a process compiles the solver (or loads it from numba's cache)
def test_the_oracle_values_a_small_kalah_board_exactly(client):
    start(client, options={"pits": 3, "seeds": 2})
    answer = client.post("/api/evaluate").json
    assert answer["exact"] and isinstance(answer["value"], int)
    assert "perfect play ends" in answer["text"]


def test_serve_binds_to_127_0_0_1_by_default_and_answers():
    args = build_parser().parse_args(["serve"])
    assert args.host == DEFAULT_HOST == "127.0.0.1"
    server = make_server(args.host, 0, "random")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.port}"
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
        page = direct.open(base + "/", timeout=10).read().decode()
        assert '<script src="/static/app.js">' in page
        assert "http://" not in page and "https://" not in page  # nothing from elsewhere: works offline
        games = json.loads(direct.open(base + "/api/games", timeout=10).read())
        assert {g["id"] for g in games["games"]} >= {"kalah-v0", "widdershins-v0"}
        assert games["default_opponent"] == "random"
    finally:
        server.shutdown()
        server.server_close()


def test_a_bad_default_opponent_fails_before_serving():
    with pytest.raises(Exception, match="unknown agent 'nobody'"):
        make_server("127.0.0.1", 0, "nobody")


def test_the_page_ships_as_package_data():
    """Every file of cli/web matches pyproject's package-data, so a wheel carries the page."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["mancala_envs.cli"]
    files = [p.relative_to(WEB_FOLDER.parent).as_posix() for p in WEB_FOLDER.iterdir()]
    assert {"web/index.html", "web/app.js", "web/style.css"} <= set(files)
    assert all(any(fnmatch(f, pattern) for pattern in patterns) for f in files), (files, patterns)
