"""Pictures: frames of every id, the env's render modes, click targets, replay GIFs, no pygame.

The window parts run headless (``SDL_VIDEODRIVER=dummy``); ``mancala play --window`` is
tested in ``test_play.py``.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import subprocess
import sys
import textwrap

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np  # noqa: E402
import pygame  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402
from pettingzoo.test import render_test  # noqa: E402

import mancala_envs  # noqa: E402
import mancala_envs.env  # noqa: E402
from mancala_envs.agents import RandomAgent  # noqa: E402
from mancala_envs.evaluation import play_game
from mancala_envs import MancalaError, make  # noqa: E402
from mancala_envs import notation  # noqa: E402
from mancala_envs.cli import main  # noqa: E402
from mancala_envs.core.extras import install_command  # noqa: E402
from mancala_envs.records import GameRecord, save_json  # noqa: E402
from mancala_envs.render import FRAME_SIZES, describe_move, frame_size, layout_of, render_frame  # noqa: E402
from mancala_envs.render.draw import HEADER_H, LAST_COLOUR, draw_state  # noqa: E402
from mancala_envs.render.window import action_at, action_boxes  # noqa: E402

ENV_IDS = mancala_envs.list_envs()
# the documented sizes (env.py's Rendering section), per family: (width, height)
DOCUMENTED = {"kalah": (800, 360), "afrika": (800, 360), "progressive": (960, 320), "rondell": (800, 720),
              "widdershins": (960, 720)}


def family(env_id: str) -> str:
    return env_id.split("-")[0]


@pytest.fixture
def fast_window(monkeypatch):
    """The human mode waits 1/render_fps s per frame; tests need not watch."""
    monkeypatch.setattr("mancala_envs.render.RENDER_FPS", 10_000)


def random_positions(env_id: str, games: int = 2, seed: int = 0, most: int = 80):
    """Positions (with the move that led there) of a few random games of ``env_id``."""
    game = mancala_envs.make_game(env_id)
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = game.new_state(seed + g)
        yield state.clone(), None
        for _ in range(most):
            if state.is_terminal():
                break
            action = int(rng.choice(state.legal_actions()))
            last = describe_move(state, action)
            state.apply(action)
            yield state.clone(), last


# -- the env's render modes ---------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_pettingzoo_render_test(env_id, fast_window):
    width, height = DOCUMENTED[family(env_id)]
    render_test(
        lambda render_mode=None: make(env_id, render_mode=render_mode),
        custom_tests={
            "rgb_array": lambda frame: frame.shape == (height, width, 3) and frame.dtype == np.uint8,
            "ansi": lambda text: env_id in text,
        },
    )
    assert not pygame.display.get_init(), "close() must close the window"


def test_documented_sizes_are_the_sizes_in_use():
    doc = mancala_envs.env.__doc__
    for env_id in ENV_IDS:
        game = mancala_envs.make_game(env_id)
        width, height = DOCUMENTED[family(env_id)]
        assert frame_size(game) == (width, height) == FRAME_SIZES[layout_of(game)]
        assert f"{width} x {height}" in doc, f"env.py's Rendering section must give {env_id}'s size"
        module_doc = sys.modules[type(game).__module__].__doc__
        assert f"{width} x {height}" in module_doc, f"{type(game).__module__}'s docstring must give the size"
    # options change the board, not the frame
    assert render_frame(mancala_envs.make_game("kalah-v0", pits=16).new_state()).shape == (360, 800, 3)
    assert render_frame(mancala_envs.make_game("progressive-v0", holes=25).new_state()).shape == (320, 960, 3)
    for piles, red, blue in ((2, 1, 2), (32, 23, 25)):
        rondell = mancala_envs.make_game("rondell-v0", piles=piles, cards_per_pile=3, red_pairs=red, blue_pairs=blue)
        assert render_frame(rondell.new_state(0)).shape == (720, 800, 3)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_frame_changes_when_the_position_changes(env_id):
    env = make(env_id, render_mode="rgb_array")
    env.reset(seed=3)
    before = env.render()
    width, height = DOCUMENTED[family(env_id)]
    assert before.shape == (height, width, 3) and before.dtype == np.uint8
    state = env.unwrapped.game_state
    env.step(state.legal_actions()[-1])
    after = env.render()
    # the board itself (below the status header) shows the move, not only the text
    assert not np.array_equal(before[HEADER_H:], after[HEADER_H:])
    # the same position gives the same picture
    assert np.array_equal(after, env.render())


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_last_move_is_ringed_where_it_was_played(env_id):
    """Two different moves from one position: each frame rings its own move's cell, not the other's."""
    for state, _ in random_positions(env_id, games=3, seed=11):
        cells = {}
        for action in state.legal_actions():
            cell, _ = state.game.action_cell(state, action)
            if cell is not None:
                cells.setdefault(cell, action)
        if len(cells) >= 2:
            break
    else:
        pytest.fail(f"{env_id}: no position with two moves on different cells")
    (cell_a, a), (cell_b, b) = list(cells.items())[:2]
    _, layout = draw_state(state)
    frames = {}
    for action in (a, b):
        frames[action] = render_frame(state, last=describe_move(state, action))
    assert not np.array_equal(frames[a], frames[b])

    def orange(frame, cell):
        rect = layout.cells[cell]
        patch = frame[rect.top:rect.bottom, rect.left:rect.right]
        return int(np.all(patch == LAST_COLOUR, axis=-1).sum())

    assert orange(frames[a], cell_a) > 100 and orange(frames[b], cell_b) > 100
    assert orange(frames[a], cell_b) < orange(frames[b], cell_b)
    assert orange(frames[b], cell_a) < orange(frames[a], cell_a)


def test_turned_board_puts_the_players_row_nearest():
    game = mancala_envs.make_game("kalah-v0", pits=4)
    state = game.new_state()
    _, plain = draw_state(state)
    _, turned = draw_state(state, near_seat=1)
    assert plain.near == {f"p0.{i}" for i in range(4)}
    assert turned.near == {f"p1.{i}" for i in range(4)}
    # player_1's hole 0 (farthest from their store) is at the near row's left end when turned
    assert turned.cells["p1.0"].left < turned.cells["p1.3"].left
    assert turned.cells["p1.0"].top > turned.cells["p0.0"].top
    assert turned.cells["store1"].left > turned.cells["store0"].left


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_legal_action_has_its_own_click_target(env_id):
    """For positions of random games, each legal action's box centre maps back to that action."""
    checked = 0
    for state, _ in random_positions(env_id, games=2, seed=5, most=60):
        if state.is_terminal():
            continue
        _, layout = draw_state(state)
        view = state.game.board_view(state)
        off_board = [a for a in state.legal_actions() if state.game.action_cell(state, a)[0] is None]
        buttons = {a: pygame.Rect(10 + 40 * k, 900, 36, 30) for k, a in enumerate(off_board)}
        boxes = action_boxes(state, layout, buttons)
        assert sorted(boxes) == state.legal_actions()
        for action, rect in boxes.items():
            cell, _ = state.game.action_cell(state, action)
            assert cell is None or cell in view["cells"]
            assert action_at(boxes, rect.center) == action, (env_id, state.game.action_to_string(state, action))
        checked += 1
    assert checked >= 20


def test_a_two_way_cell_is_split_the_way_the_seeds_go():
    game = mancala_envs.make_game("kalah-bidirectional-v0")
    state = game.new_state()
    _, layout = draw_state(state)
    boxes = action_boxes(state, layout, {})
    # player_0 (near row): counterclockwise (R, action i) goes right, clockwise (L, action 6+i) left
    for i in range(6):
        assert boxes[i].left > boxes[6 + i].left
        assert game.action_to_string(state, i).endswith("R") and game.action_to_string(state, 6 + i).endswith("L")


# -- the other envs and modes ---------------------------------------------------------------------
def test_human_mode_opens_a_window_and_close_closes_it(fast_window):
    env = make("afrika-v0", render_mode="human")
    assert not pygame.display.get_init(), "no window before the first reset"
    env.reset(seed=0)
    assert pygame.display.get_init() and pygame.display.get_surface().get_size() == (800, 360)
    env.step(env.unwrapped.game_state.legal_actions()[0])
    assert env.render() is None
    twin = copy.deepcopy(env)
    clone = pickle.loads(pickle.dumps(env))
    assert twin.unwrapped.game_state == env.unwrapped.game_state == clone.unwrapped.game_state
    assert clone.unwrapped._painter.window is None and clone.unwrapped._painter.last == env.unwrapped._painter.last
    env.close()
    assert not pygame.display.get_init()


def test_gym_env_renders_both_sides_moves():
    env = mancala_envs.MancalaGymEnv("kalah-v0", learner_seat=1, render_mode="rgb_array", pits=4)
    env.reset(seed=2)
    first = env.render()
    assert first.shape == (360, 800, 3)
    assert env.unwrapped._painter.last.player == 0, "the opponent's opening move is the last move"
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert env.render().shape == (360, 800, 3)
    env.close()


def test_unknown_render_mode_names_the_modes():
    with pytest.raises(MancalaError, match=r"render_mode='rgb' is not supported; use one of \['ansi', 'rgb_array', 'human'\]"):
        make("kalah-v0", render_mode="rgb")


def test_an_illegal_action_does_not_become_the_last_move():
    env = make("kalah-v0", render_mode="rgb_array", pits=3, seeds=2)
    env.reset(seed=0)
    env.step(0)
    painter = env.unwrapped._painter
    last = painter.last
    assert last.action == 0 and last.name == "3" and last.cell == "p0.0"
    for bad in (99, 1.5):
        with pytest.raises(mancala_envs.IllegalActionError):
            env.step(bad)
        assert painter.last == last
    env.reset(seed=0)
    assert painter.last is None


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_board_view_is_plain_data_naming_its_own_cells(env_id):
    for state, _ in random_positions(env_id, games=1, seed=2, most=40):
        game = state.game
        view = game.board_view(state)
        json.dumps(view)  # plain data only
        cells = view["cells"]
        named = [k for row in view["rows"] for k in row] + list(view["focus"]) + list(view["marks"])
        named += [k for k in (view.get("stores") or []) + (view.get("row_ends") or []) + [view.get("goal")] if k]
        assert set(named) <= set(cells)
        assert view["scores"] == state.scores() and view["to_move"] == state.current_player
        assert view["status"] == game.status_text(state) and view["status"] in str(state)
        if view["layout"] != "ring":
            assert len(set(k for row in view["rows"] for k in row)) == sum(len(r) for r in view["rows"])
        total = game.conserved_total(state)
        if env_id.startswith(("kalah", "afrika", "progressive")) and total is not None:  # stones on view
            captured = sum(view["scores"]) if view["layout"] == "one_row" else 0  # Progressive: off the board
            assert sum(c["count"] for c in cells.values()) + captured == total
        for cell in cells.values():
            assert "cards" not in cell or len(cell["cards"]) == cell["count"]


def test_env_without_pictures_does_no_drawing_work():
    for mode in (None, "ansi"):
        env = make("kalah-v0", render_mode=mode)
        env.reset(seed=0)
        env.step(0)
        assert env.unwrapped._painter is None


# -- replay pictures ------------------------------------------------------------------------------
def test_replay_json_record_as_gif_and_png_frames(tmp_path, capsys):
    game = mancala_envs.make_game("kalah-v0", pits=4, seeds=3)
    actions = play_game(game, (RandomAgent(1), RandomAgent(2)), seed=4).actions
    record_path = tmp_path / "game.json"
    save_json(GameRecord.from_game(game, actions, seed=4), record_path)
    gif, frames = tmp_path / "game.gif", tmp_path / "frames"
    assert main(["replay", str(record_path), "--gif", str(gif), "--frames", str(frames), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["gif"] == str(gif) and summary["plies"] == len(actions)
    image = Image.open(gif)
    assert image.format == "GIF" and image.size == (800, 360) and image.n_frames == len(actions) + 1
    pngs = sorted(frames.iterdir())
    assert len(pngs) == len(actions) + 1 and pngs[0].name == "frame-000.png"
    # each PNG is the position it names: the last one is the final position with the last move ringed
    positions = GameRecord.from_game(game, actions, seed=4).replay()
    last = describe_move(positions[-2], actions[-1])
    assert np.array_equal(np.asarray(Image.open(pngs[-1]).convert("RGB")), render_frame(positions[-1], last))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frames", "game.gif", "game.json"], "no temporary files"


def test_replay_text_record_as_gif(tmp_path, capsys):
    game = mancala_envs.make_game("afrika-v0", holes=4, stones=2)
    actions = play_game(game, (RandomAgent(3), RandomAgent(4)), seed=None).actions
    text_path = tmp_path / "game.txt"
    text_path.write_text(notation.format(game, actions))
    gif = tmp_path / "out.gif"
    assert main(["replay", "afrika-v0", str(text_path), "holes=4", "stones=2", "--gif", str(gif)]) == 0
    assert f"wrote {gif} ({len(actions) + 1} frames)" in capsys.readouterr().out
    assert Image.open(gif).n_frames == len(actions) + 1


def test_replay_gif_bad_fps(tmp_path, capsys):
    game = mancala_envs.make_game("kalah-v0", pits=2, seeds=1)
    path = tmp_path / "g.json"
    save_json(GameRecord.from_game(game, [], seed=None), path)
    assert main(["replay", str(path), "--gif", str(tmp_path / "x.gif"), "--fps", "0"]) == 2
    assert "--fps must be > 0" in capsys.readouterr().err
    assert not (tmp_path / "x.gif").exists()


# -- the package without pygame ---------------------------------------------------------------------
def test_rules_and_envs_never_import_pygame():
    out = subprocess.run(
        [sys.executable, "-c", "import sys, mancala_envs, mancala_envs.agents, mancala_envs.cli\n"
         "for i in mancala_envs.list_envs():\n"
         "    env = mancala_envs.make(i, render_mode='ansi'); env.reset(seed=0); env.render()\n"
         "print('pygame' in sys.modules)"],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_package_works_without_pygame(tmp_path):
    game = mancala_envs.make_game("kalah-v0", pits=3, seeds=2)
    record = tmp_path / "g.json"
    save_json(GameRecord.from_game(game, [0], seed=None), record)
    script = textwrap.dedent(f"""
        import sys
        sys.modules["pygame"] = None  # as if it were not installed
        import numpy as np
        import mancala_envs
        from mancala_envs import make, MancalaGymEnv, MancalaError
        from mancala_envs.render import RenderUnavailableError
        for env_id in mancala_envs.list_envs():
            for mode in (None, "ansi"):
                env = make(env_id, render_mode=mode)
                env.reset(seed=1)
                for _ in range(5):
                    state = env.unwrapped.game_state
                    if state.is_terminal():
                        break
                    env.step(state.legal_actions()[0])
                if mode == "ansi":
                    assert env_id in env.render()
        MancalaGymEnv("kalah-v0", render_mode="ansi").reset(seed=0)
        messages = []
        for build in (lambda: make("kalah-v0", render_mode="rgb_array"),
                      lambda: make("rondell-v0", render_mode="human"),
                      lambda: MancalaGymEnv("kalah-v0", render_mode="rgb_array").render()):  # plays without pygame; frames refused
            try:
                build()
            except RenderUnavailableError as err:
                assert isinstance(err, MancalaError)
                messages.append(str(err))
        assert len(messages) == 3, messages
        print(messages[0])
        from mancala_envs.cli import main
        code = main(["replay", {str(record)!r}, "--gif", {str(tmp_path / "x.gif")!r}])
        code2 = main(["play", "kalah-v0", "--opponent", "random", "--window", "--seed", "1"])
        print("exit codes", code, code2)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert 'pictures need pygame, which is not installed' in out.stdout
    hint = install_command("render")  # the command that fits this install (core.extras)
    assert hint in out.stdout
    assert "exit codes 2 2" in out.stdout
    assert out.stderr.count(hint) == 2
    assert not (tmp_path / "x.gif").exists()
