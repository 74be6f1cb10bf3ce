"""SVG pictures: every id draws itself as valid SVG, with the raster frames' layout, and no pygame.

``render.picture`` holds the one layout; ``render.svg`` paints it as SVG, ``render.draw`` with
pygame. These tests parse the SVG with ``xml.etree``, compare its cells with the pygame
layout, and check the animated replay (``mancala replay --svg``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import mancala_envs
from mancala_envs import MancalaError
from mancala_envs.cli import main
from mancala_envs.records import GameRecord, save_json
from mancala_envs.render import frame_size, moves_of_game
from mancala_envs.render.picture import LAST_COLOUR, draw_picture
from mancala_envs.render.svg import SvgCanvas, animated_svg, game_svg

SVG = "{http://www.w3.org/2000/svg}"
ENV_IDS = mancala_envs.list_envs()


def random_game(env_id: str, plies: int = 12, seed: int = 0) -> tuple[list, list]:
    """Positions and moves of a short random game of ``env_id`` (stops early at the end)."""
    game = mancala_envs.make_game(env_id)
    state = game.new_state(seed)
    rng = np.random.default_rng(seed)
    actions = []
    while len(actions) < plies and not state.is_terminal():
        action = int(rng.choice(state.legal_actions()))
        actions.append(action)
        state.apply(action)
    return moves_of_game(game, actions, seed)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_repr_svg_is_valid_svg_for_every_id(env_id):
    positions, moves = random_game(env_id)
    for state, last in ((positions[0], None), (positions[-1], moves[-1] if moves else None)):
        svg = state._repr_svg_() if last is None else state.to_svg(last)
        root = ET.fromstring(svg)
        assert root.tag == f"{SVG}svg"
        assert (int(root.get("width")), int(root.get("height"))) == frame_size(state.game)
        assert root.find(f"{SVG}title").text == f"{env_id}, ply {state.plies}"
        texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
        assert state.game.status_text(state) in texts
    # the last move is ringed in the raster frames' orange
    ring = 'stroke="#%02x%02x%02x" stroke-width="4"' % LAST_COLOUR
    if moves:
        assert (ring in positions[-1].to_svg(moves[-1])) == (moves[-1].cell is not None)
    assert ring not in positions[-1].to_svg()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_svg_and_pygame_share_one_layout(env_id):
    """The cells sit where the pygame frame puts them: both painters run the same layout."""
    pytest.importorskip("pygame")
    from mancala_envs.render.draw import draw_state

    positions, moves = random_game(env_id)
    state, last = positions[-1], moves[-1] if moves else None
    for seat in (0, 1):
        _, raster = draw_state(state, last, near_seat=seat)
        vector = draw_picture(SvgCanvas(), state, last, near_seat=seat)
        assert {k: tuple(r) for k, r in vector.cells.items()} == {k: tuple(r) for k, r in raster.cells.items()}
        assert vector.near == raster.near


def test_clickable_cells_name_every_cell_of_the_view():
    state = mancala_envs.make_game("kalah-v0").new_state(0)
    root = ET.fromstring(mancala_envs.render.svg.state_svg(state, clickable=True))
    cells = {r.get("data-cell"): r.get("data-near") for r in root.iter(f"{SVG}rect") if r.get("class") == "cell"}
    assert set(cells) == set(state.game.board_view(state)["cells"])
    assert {k for k, near in cells.items() if near} == {f"p0.{i}" for i in range(6)}


def test_svg_needs_no_pygame(tmp_path):
    """With pygame unimportable, positions and envs still draw themselves as SVG."""
    code = textwrap.dedent(f"""
        import sys
        sys.modules["pygame"] = None  # import pygame fails
        import mancala_envs
        env = mancala_envs.make("widdershins-v0")
        env.reset(seed=1)
        env.step(env.last()[0]["action_mask"].argmax())
        assert "ply 1" in env._repr_svg_()
        state = env.unwrapped.game_state
        state.save_svg({str(tmp_path / "x.svg")!r})
        print(len(state.to_svg()))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) > 1000
    ET.parse(tmp_path / "x.svg")


def test_envs_show_their_position_in_a_notebook():
    import gymnasium

    env = mancala_envs.make("kalah-v0")
    env.reset(seed=0)
    env.step(2)
    assert "kalah-v0, ply 1" in env._repr_svg_()
    gym_env = gymnasium.make("mancala/kalah-v0", opponent="greedy")
    gym_env.reset(seed=0)
    gym_env.step(int(np.flatnonzero(gym_env.unwrapped.action_masks())[0]))
    assert ET.fromstring(gym_env.unwrapped._repr_svg_()).tag == f"{SVG}svg"


def test_animated_svg_shows_each_position_in_turn():
    positions, moves = random_game("progressive-v0", plies=6)
    root = ET.fromstring(animated_svg(positions, moves, fps=4))
    frames = [g for g in root.iter(f"{SVG}g") if g.get("class") == "frame"]
    assert len(frames) == len(positions)
    assert [f.get("display") for f in frames] == [None] + ["none"] * (len(positions) - 1)
    timings = [f.find(f"{SVG}animate") for f in frames]
    assert all(a.get("repeatCount") == "indefinite" and a.get("calcMode") == "discrete" for a in timings)
    total = len(positions) / 4 - 0.25 + 2.0  # the last frame held 2 s
    assert timings[0].get("dur") == f"{total:g}s"
    assert timings[1].get("values") == "none;inline;none"
    assert float(timings[1].get("keyTimes").split(";")[1]) == pytest.approx(0.25 / total, abs=1e-6)


def test_animated_svg_refuses_bad_input():
    positions, moves = random_game("kalah-v0", plies=3)
    with pytest.raises(MancalaError, match="4 positions need 3 moves, got 1"):
        animated_svg(positions, moves[:1])
    with pytest.raises(MancalaError, match="fps must be > 0"):
        animated_svg(positions, moves, fps=0)
    with pytest.raises(MancalaError, match="no positions"):
        animated_svg([])
    other = mancala_envs.make_game("rondell-v0").new_state(0)
    with pytest.raises(MancalaError, match="one game"):
        animated_svg([positions[0], other])


def test_replay_svg_writes_an_animation(tmp_path, capsys):
    game = mancala_envs.make_game("afrika-v0")
    _, moves = random_game("afrika-v0", plies=5, seed=3)
    record = GameRecord.from_game(game, [m.action for m in moves], seed=3)
    save_json(record, tmp_path / "game.json")
    out = tmp_path / "game.svg"
    assert main(["replay", str(tmp_path / "game.json"), "--svg", str(out), "--fps", "3"]) == 0
    assert f"wrote {out} (6 frames)" in capsys.readouterr().out
    root = ET.parse(out).getroot()
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class") == "frame"]) == 6
    assert len(list(root.iter(f"{SVG}animate"))) == 6
    assert out.read_text(encoding="utf-8") == game_svg(game, record.actions, 3, fps=3)
    assert main(["replay", str(tmp_path / "game.json"), "--svg", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["svg"] == str(out)
