"""``mancala play``: a person against an agent, in the terminal (stdin) and in a window (headless)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mancala_envs
from mancala_envs.agents import make_agent

from mancala_envs.cli.play_session import PlaySession
from mancala_envs.cli import build_parser, main
from mancala_envs.cli import play as play_module
from mancala_envs.records import load_json


def run(*args: str, stdin: str = "", cwd=None) -> subprocess.CompletedProcess:
    exe = shutil.which("mancala") or f"{sys.executable} -m mancala_envs.cli"
    return subprocess.run(exe.split() + list(args), input=stdin, capture_output=True, text=True, timeout=300, cwd=cwd)


class Keyboard:
    """A person typing at the prompt: the lines of ``plan`` first (a callable gets the session),
    then a random legal move in the game's notation each time."""

    def __init__(self, plan, seed: int = 0):
        self.plan = list(plan)
        self.rng = np.random.default_rng(seed)
        self.session: PlaySession | None = None
        self.typed: list[str] = []

    def readline(self) -> str:
        session = self.session
        assert session is not None and session.human_to_move, "asked for a move off-turn"
        if self.plan:
            item = self.plan.pop(0)
            line = item(session) if callable(item) else item
        else:
            names = list(session.game.action_names(session.state).values())
            line = str(self.rng.choice(names)) + "\n"
        self.typed.append(line)
        return line


def test_terminal_game_against_random_with_hint_undo_and_save(tmp_path, monkeypatch, capsys):
    marks = {}

    def first_move(session):
        return next(iter(session.game.action_names(session.state).values())) + "\n"

    def remember_then_move(session):
        marks["before"] = session.state.to_json()
        marks["plies"] = len(session.actions)
        return first_move(session)

    def check_undo_then_save(session):
        marks["after_undo"] = session.state.to_json()
        return f"save {tmp_path / 'mid.json'}\n"

    keyboard = Keyboard(["hint\n", "not-a-move\n", first_move, remember_then_move, "undo\n", check_undo_then_save,
                         "board\n", "help\n"], seed=3)
    build = play_module.build_session

    def build_and_watch(args):
        keyboard.session = build(args)
        return keyboard.session

    monkeypatch.setattr(play_module, "build_session", build_and_watch)
    monkeypatch.setattr(sys, "stdin", keyboard)
    final = tmp_path / "final.json"
    code = main(["play", "kalah-v0", "pits=3", "seeds=2", "--opponent", "random", "--seed", "5", "--hint", "greedy",
                 "--save", str(final)])
    out = capsys.readouterr().out
    assert code == 0, out
    session = keyboard.session
    assert session.over and session.state.is_terminal()
    # the board and the legal moves in the game's notation, every turn
    assert "legal moves: 3, 2, 1" in out and "player_0, your move" in out
    assert "hint (greedy): " in out and "not a legal move: kalah-v0: move 'not-a-move' not understood" in out
    assert "undone: back to your previous turn" in out
    assert marks["after_undo"] == marks["before"], "undo goes back to the position before the human's last move"
    assert f"saved {marks['plies']} plies to {tmp_path / 'mid.json'}" in out
    assert "random as player_1 (North) plays" in out
    assert "result: player_0" in out and ("you win" in out or "you lose" in out or "a draw" in out)
    # help lists the commands
    assert "undo" in out and "save FILE" in out
    # both records replay: the middle one to the position it was saved at, the final one to the end
    mid = load_json(tmp_path / "mid.json")
    assert mid.replay()[-1].to_json() == marks["before"]
    record = load_json(final)
    positions = record.replay()
    assert record.actions == session.actions and positions[-1].is_terminal()
    assert record.seed == 5 and record.options == {"pits": 3, "seeds": 2}


def test_terminal_play_through_the_installed_command(tmp_path):
    """Plain stdin to the real command: enough moves that one is always legal, then the game ends."""
    record = tmp_path / "g.json"
    moves = "3\n2\n1\n" * 40
    out = run("play", "kalah-v0", "pits=3", "seeds=2", "--opponent", "random", "--seed", "2", "--hint", "greedy",
              "--seat", "1", "--save", str(record), stdin="hint\n" + moves[:6] + "undo\n" + moves)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "you are player_1 (North)" in text
    assert text.index("random as player_0 (South) plays") < text.index("player_1, your move"), "the opponent opens"
    assert "hint (greedy):" in text and "undone: back to your previous turn" in text and "result:" in text
    replayed = load_json(record).replay()
    assert replayed[-1].is_terminal()
    assert f"saved {len(replayed) - 1} plies to {record}" in text


def test_quit_and_end_of_input_stop_the_game(tmp_path):
    out = run("play", "afrika-v0", "--opponent", "random", "--seed", "1", "--save", str(tmp_path / "q.json"),
              stdin="e\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "you left the game at ply 2" in out.stdout
    assert len(load_json(tmp_path / "q.json").actions) == 2
    out = run("play", "kalah-v0", "--opponent", "random", "--seed", "1", stdin="")
    assert out.returncode == 1 and "end of input: the game stops at ply 0" in out.stdout


def test_window_without_a_display_says_so():
    env = dict(os.environ, SDL_VIDEODRIVER="no-such-driver")
    exe = shutil.which("mancala") or f"{sys.executable} -m mancala_envs.cli"
    out = subprocess.run(exe.split() + ["play", "kalah-v0", "--opponent", "random", "--window"], capture_output=True,
                         text=True, timeout=300, env=env)
    assert out.returncode == 2 and "cannot open a window" in out.stderr and "Traceback" not in out.stderr


def test_session_undo_returns_to_the_humans_decision_through_extra_turns():
    game = mancala_envs.make_game("kalah-v0", pits=3, seeds=2)
    session = PlaySession(game, 0, make_agent("random", seed=0), make_agent("greedy"), seed=None)
    assert session.undo() is False
    start = session.state.to_json()
    session.play(game.string_to_action(session.state, "2"))  # 2 seeds from hole 2: the last lands in the store
    assert session.human_to_move, "an extra turn"
    extra = session.state.to_json()
    session.play(game.string_to_action(session.state, "3"))
    while not session.human_to_move and not session.over:
        session.opponent_move()
    assert session.undo() is True
    assert session.state.to_json() == extra, "back to the human's latest decision, the extra turn"
    assert session.undo() is True and session.state.to_json() == start
    assert session.actions == [] and session.last is None


@pytest.mark.parametrize(
    "args, message",
    [
        (["play", "kalah-v0", "--seat", "2"], "--seat must be 0, 1 or random"),
        (["play", "kalah-v0", "--opponent", "wizard"], "unknown agent 'wizard'"),
        (["play", "kalah-v0", "--opponent", "human"], "'human' cannot be the opponent"),
        (["play", "kalah-v0", "pits=0"], "pits must be an integer from 1 to 16"),
        (["play", "kalah-v7"], "unknown env id 'kalah-v7'"),
    ],
)
def test_bad_play_input_exits_2_with_a_message(args, message):
    out = run(*args)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


def test_seat_random_is_drawn_from_the_seed():
    seats = set()
    for seed in range(8):
        args = build_parser().parse_args(["play", "kalah-v0", "--seat", "random", "--seed", str(seed),
                                          "--opponent", "random"])
        args.options = []
        seats.add(play_module.build_session(args).seat)
        assert play_module.build_session(args).seat == play_module.build_session(args).seat
    assert seats == {0, 1}


WINDOW_DRIVER = textwrap.dedent("""
    import json, os, sys
    os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
    import numpy as np
    import pygame
    from mancala_envs.cli import main, play_window as window

    def click(pos):
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1))

    def key(k):
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k))

    original = window.PlayWindow.tick
    results = []

    def driven(self):
        d = self.driver
        session = self.session
        d["ticks"] += 1
        expected = None
        if d["ticks"] > 4000:
            pygame.event.post(pygame.event.Event(pygame.QUIT))
        elif session.over:
            if not d["saved"]:
                key(pygame.K_s)
                d["saved"] = True
            else:
                key(pygame.K_q)
        elif self.action_boxes():
            boxes = self.action_boxes()
            if d["stage"] == "hint":
                key(pygame.K_h)
                d["stage"] = "follow hint"
            elif d["stage"] == "follow hint":
                d["hint_ok"] = self.hint_action in boxes and self.message.startswith("Hint (greedy): ")
                expected = self.hint_action
                d["stage"] = "undo"
            elif d["stage"] == "undo" and session.actions:
                d["before_undo"] = [s.to_json() for s in session.positions]
                click(self.controls["undo"].center)
                d["stage"] = "check undo"
            else:
                if d["stage"] == "check undo":
                    human = max(i for i, m in enumerate(d["movers"]) if m == session.seat)
                    d["undo_ok"] = session.state.to_json() == d["before_undo"][human]
                    d["stage"] = "play"
                expected = sorted(boxes)[int(d["rng"].integers(len(boxes)))]
            if expected is not None:
                click(boxes[expected].center)
                d["clicks"] += 1
                d["off_board"] += session.game.action_cell(session.state, expected)[0] is None
        ply = len(session.actions)
        d["movers"] = list(session.movers)
        going = original(self)
        if expected is not None and (len(session.actions) <= ply or session.actions[ply] != expected):
            d["mismatches"] += 1
        return going

    def init_driver(self, *a, **k):
        self.driver = {"ticks": 0, "stage": "hint", "clicks": 0, "off_board": 0, "mismatches": 0, "saved": False,
                       "hint_ok": False, "undo_ok": False, "movers": [], "rng": np.random.default_rng(1)}
        results.append((self, self.driver))
        init(self, *a, **k)

    init = window.PlayWindow.__init__
    window.PlayWindow.__init__ = init_driver
    window.PlayWindow.tick = driven
    summary = []
    for env_id, options, seat in json.loads(sys.argv[1]):
        code = main(["play", env_id, *options, "--opponent", "random", "--hint", "greedy", "--seed", "2",
                     "--seat", seat, "--window", "--delay", "0", "--save", env_id + ".json"])
        win, d = results[-1]
        s = win.session
        summary.append({"env_id": env_id, "code": code, "over": s.over, "terminal": s.state.is_terminal(),
                        "plies": len(s.actions), "actions": s.actions, "seat": s.seat,
                        **{k: v for k, v in d.items() if k not in ("rng", "movers", "before_undo")}})
    print(json.dumps(summary))
""")


@pytest.mark.slow
def test_window_plays_full_games_by_clicks_headless(tmp_path):
    games = [
        ("kalah-v0", ["pits=3", "seeds=2"], "0"),
        ("kalah-bidirectional-v0", ["pits=3", "seeds=2"], "1"),  # split cells, a turned board
        ("kalah-chosen-start-v0", ["pits=2", "max_setup_seeds=3"], "0"),  # setup counts and side choice: buttons
        ("afrika-v0", ["holes=4", "stones=2"], "1"),
        ("progressive-v0", ["holes=5", "stones=2"], "0"),
        ("rondell-reservation-v0", [], "0"),  # reservations, "r-" is a button
        ("widdershins-parlett-v0", [], "1"),  # pass and resign buttons, lone Aces split
    ]
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1")
    out = subprocess.run([sys.executable, "-c", WINDOW_DRIVER, json.dumps(games)], capture_output=True, text=True,
                         timeout=600, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert [s["env_id"] for s in summary] == [g[0] for g in games]
    for s in summary:
        name = s["env_id"]
        assert s["code"] == 0 and s["over"] and s["terminal"], s
        assert s["clicks"] >= 2 and s["mismatches"] == 0, s
        assert s["hint_ok"] and s["undo_ok"], s
        record = load_json(tmp_path / f"{name}.json")  # --save at the end
        assert record.actions == s["actions"] and record.replay()[-1].is_terminal()
        pressed = [p for p in tmp_path.glob(f"mancala-{name}-*.json")]  # the S key, no --save path needed
        assert len(pressed) == 1 and load_json(pressed[0]).actions == s["actions"]
    setup = summary[2]
    assert setup["off_board"] >= 4, "the chosen-start setup and side choice are played with buttons"
