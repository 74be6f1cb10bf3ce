"""Afrika's notation and text records (``mancala_envs.notation.parse`` / ``format``), and the
``mancala replay`` command run as a user runs it (a subprocess of the installed script)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mancala_envs
from mancala_envs.core.errors import RecordError
from mancala_envs.core.notation import Annotation
from mancala_envs.notation import CountMismatch, count_mismatches, format, parse
from mancala_envs.records import GameRecord, save_json
from mancala_envs.cli import main

RULE_TEXT_OPENING = "1. e G 2. h H 3. g E 4. h xd (+11) 5. xA (+13) F"
OPENING_ACTIONS = [4, 6, 7, 7, 6, 4, 7, 4, 7, 5]

# A whole game as somebody might type it from their notes: a comment line, missing and
# doubled spaces, "x e" with a space, a comment in braces, odd line breaks, a result at the
# end, and one wrong count (33. xF took 4 stones, not 5).
HAND_TYPED = """\
# Afrika, casual game, typed from my notes
1.f G  2.a  xb(+10)
3. xH (+9)   E 4. d E 5. f C 6. h A
7. b D 8. e D 9. a x e (+1) 10. xH (+6) A 11. b xe (+1)
12. xG (+7) xh (+2) 13. c B 14. h B {a sacrifice} 15. xA (+3) xg (+19)
16. d G 17. xE (+9) xb (+3) 18. c xd (+1) 19. xF (+20) B 20. f C 21. h xf (+1) 22. xA (+3) D
23. g xe (+5) 24. xB (+2) G 25. h xb (+3) 26. xA (+2) E 27. xG (+1) xd (+1) 28. a xd (+1)
29. xH (+8) xf (+1) 30. e xb (+1) 31. f xg (+2) 32. c xe (+1)
33. xF (+5)
    xd (+1)
North wins 74:54
"""


def afrika(**options):
    return mancala_envs.make_game("afrika-v0", **options)


def random_game(game, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    state = game.new_state()
    actions = []
    while not state.is_terminal():
        legal = state.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        actions.append(action)
        state.apply(action)
    return actions


def replayed(game, actions):
    state = game.new_state()
    for a in actions:
        state.apply(a)
    return state


# --------------------------------------------------------------------------------------
# parse and format
# --------------------------------------------------------------------------------------


def test_the_rule_texts_record_parses_with_its_counts():
    game = afrika()
    actions, annotations = parse(game, RULE_TEXT_OPENING)
    assert actions == OPENING_ACTIONS
    assert annotations == [
        Annotation(ply=8, move_number=4, move="xd", kind="count", value=11),
        Annotation(ply=9, move_number=5, move="xA", kind="count", value=13),
    ]
    assert count_mismatches(game, parse(game, RULE_TEXT_OPENING)) == []


def test_format_writes_the_rule_texts_record():
    assert format(afrika(), OPENING_ACTIONS) == RULE_TEXT_OPENING + "\n"


@pytest.mark.parametrize("seed", range(6))
def test_a_played_game_formats_parses_and_replays_to_the_same_position(seed):
    game = afrika() if seed < 4 else afrika(holes=5, stones=4, komi=0)
    actions = random_game(game, seed)
    text = format(game, actions)
    parsed = parse(game, text)
    assert parsed.actions == actions
    final = replayed(game, parsed.actions)
    assert final.to_json() == replayed(game, actions).to_json() and final.is_terminal()
    counts = [a for a in parsed.annotations if a.kind == "count"]
    captures = sum(1 for line in text.split() if line.startswith("x"))
    assert len(counts) == captures > 0
    assert sum(a.value for a in counts) == sum(final.scores())  # every stone was taken by a counted capture
    assert count_mismatches(game, parsed) == []
    comment = parsed.annotations[-1]
    assert comment.kind == "comment" and comment.ply == len(actions)
    north, south = final.scores()
    assert comment.value == f"North {north}, South {south}: {game.result_text(final)}"


def test_format_of_an_unfinished_game_has_no_result():
    game = afrika()
    text = format(game, OPENING_ACTIONS[:3])
    assert text == "1. e G 2. h\n"
    assert parse(game, text).actions == OPENING_ACTIONS[:3]


def test_long_records_are_broken_into_lines_of_ten_moves():
    game = afrika()
    actions = random_game(game, 1)
    lines = format(game, actions).splitlines()
    assert lines[0].startswith("1. ") and lines[1].startswith("11. ")
    assert lines[-1].startswith("{North ")


def test_the_hand_typed_record_with_noise():
    game = afrika()
    parsed = parse(game, HAND_TYPED)
    final = replayed(game, parsed.actions)
    assert len(parsed.actions) == 66 and final.is_terminal() and final.scores() == [74, 54]
    comments = [a for a in parsed.annotations if a.kind == "comment"]
    assert [c.value for c in comments] == ["Afrika, casual game, typed from my notes", "a sacrifice", "North wins 74:54"]
    assert comments[1].ply == 28 and comments[1].move_number == 14
    assert count_mismatches(game, parsed) == [CountMismatch(ply=65, move="xF", recorded=5, actual=4)]


@pytest.mark.parametrize(
    "text",
    [
        "1.e G 2.h H",
        "1 e G 2 h H",
        "e G h H",
        "1. e\nG\n\n2. h   H\t",
        "1. e, G, 2. h, H",
        "1. e 1... G 2. h H",
        "1. e G {komi 2.5} 2. h H 1-0",
        "1. e G 2. h H *",
        "1. e G 2. h H  Result: unfinished",
        "1. e G 2. h H ½-½",
    ],
)
def test_noise_is_tolerated(text):
    assert parse(afrika(), text).actions == [4, 6, 7, 7]


@pytest.mark.parametrize(
    "text, message",
    [
        ("1. e G 2. G", "move 2 (North) 'G': not your hole: North is to move and sows from a-h"),
        ("1. xA", "move 1 (North) 'xA': capture not available: North has no empty hole facing a non-empty one"),
        ("1. f C 2. f", "move 2 (North) 'f': empty hole: f holds no stones to sow"),
        ("1. h G 2. b H 3. h xa", "move 3 (South) 'xa': not the smallest capture: a holds 10 stones, but South must "
                                  "take the smallest count, 1: xb"),
        ("1. e G 2. h H 3. g E 4. h E", "move 4 (South) 'E': sow while a capture is compulsory: South must capture xd"),
        ("1. e G 2. h H 3. g E 4. h xD", "move 4 (South) 'xD': not your opponent's hole"),
        ("1. e G 2. hh H", "move 2 (North) 'hh': not a move"),
        ("1. e G 2. q H", "move 2 (North) 'q': there is no hole q"),
        ("1. e G 3. h H", "move number '3.' is out of sequence: move 2 comes next"),
        ("1. e 2. h", "move number '2.': South's move of move 1 is missing"),
        ("1... e", "move number '1...': '...' marks South's move, but North is to move (move 1)"),
        ("1. e G 2. h 3... H", "move number '3...' is out of sequence: this is move 2"),
        ("1. e (+3) G", "move 1 (North) 'e': a count in brackets belongs to a capture, and 'e' captured nothing"),
        ("(+3) 1. e", "the count '(+3)' comes before any move"),
        ("1. e G 2. h H 3. g E 4. h xd (+11) (+11)", "move 4 (South) 'xd': two counts after one move"),
        ("1. e G 2. h H 3. g E 4. h xd (eleven)", "'(eleven)' is not a count"),
        ("1. e G {a comment that never ends", "the comment '{' is never closed"),
        ("1. e G 2. h @", "move 2 (South): unexpected character '@'"),
        ("1. e G 2. x", "move 2 (North) 'x': a capture mark needs a hole letter after it"),
        ("1. e G 2. x 3.", "move 2 (North) 'x': a capture mark needs a hole letter after it"),
    ],
)
def test_malformed_records_name_the_move_the_token_and_why(text, message):
    with pytest.raises(RecordError) as err:
        parse(afrika(), text)
    assert message in str(err.value)


def test_moves_after_the_end_are_refused():
    game = afrika()
    text = format(game, random_game(game, 2)).replace("{", "99. a {")
    with pytest.raises(RecordError, match=r"move number '99\.': the game is already over after ply \d+"):
        parse(game, text)
    body = format(game, random_game(game, 2)).splitlines()[:-1]  # without the result comment
    with pytest.raises(RecordError, match=r"\(\w+\) 'a': the game is already over after ply \d+ \(North \d+, South"):
        parse(game, " ".join(body) + " a")


def test_parse_and_format_refuse_what_is_not_a_record():
    with pytest.raises(RecordError, match="must be a string"):
        parse(afrika(), [4, 6])
    with pytest.raises(RecordError, match=r"ply 3: action 5 is not legal here; legal actions: 0 \(a\), 1 \(b\)"):
        format(afrika(), [5, 2, 5])  # 1. f C 2. f: f is empty
    with pytest.raises(RecordError, match="kalah-v0 has no text record format; save and replay its games as JSON"):
        parse(mancala_envs.make_game("kalah-v0"), "1. 3 4")
    with pytest.raises(RecordError, match="kalah-v0 has no text record format"):
        format(mancala_envs.make_game("kalah-v0"), [0])


def test_options_change_what_a_record_means():
    # In Give-away Afrika the same opening is parsed alike; the result comment follows the variant.
    game = afrika(giveaway=True)
    actions = random_game(game, 3)
    text = format(game, actions)
    assert "(give-away)" in text.splitlines()[-1]
    assert parse(game, text).actions == actions


# --------------------------------------------------------------------------------------
# mancala replay (subprocess)
# --------------------------------------------------------------------------------------


def run(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("mancala") or f"{sys.executable} -m mancala_envs.cli"
    return subprocess.run(exe.split() + list(args), capture_output=True, text=True, timeout=300)


def test_replay_a_hand_typed_record(tmp_path, capsys):
    path = tmp_path / "game.txt"
    path.write_text(HAND_TYPED, encoding="utf-8")
    out = run("replay", "afrika-v0", str(path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"afrika-v0: text record {path}"
    assert "North  [ 0][ 0][ 0][ 0][ 0][ 0][ 0][ 0]   captured 74" in lines
    assert "scores: North 74, South 54 (after komi 2.5: North 71.5, South 56.5)" in lines
    assert "result: North wins by 7.5 (komi 2.5)" in lines
    assert "plies: 66" in lines
    assert "counts: 29 checked, 1 disagrees with the replay:" in lines
    assert "  ply 65 (move 33 North) xF: recorded +5, actual +4" in lines
    assert "stops before the end" not in out.stdout

    assert main(["replay", "afrika-v0", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "env_id": "afrika-v0",
        "plies": 66,
        "scores": {"north": 74, "south": 54},
        "result": "north",
        "margin": 7.5,
        "terminal": True,
        "mismatches": [{"ply": 65, "move": "xF", "recorded": 5, "actual": 4}],
    }


def test_replay_a_record_that_stops_before_the_end(tmp_path, capsys):
    path = tmp_path / "opening.txt"
    path.write_text(RULE_TEXT_OPENING + "\n", encoding="utf-8")
    out = run("replay", "afrika-v0", str(path))
    assert out.returncode == 0, out.stderr
    assert "the record stops before the end of the game: replayed as far as it goes (10 plies)" in out.stdout
    assert "result: game not over" in out.stdout and "counts: 2 checked, all agree" in out.stdout
    assert main(["replay", "afrika-v0", str(path), "--json", "komi=0"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary == {
        "env_id": "afrika-v0",
        "plies": 10,
        "scores": {"north": 13, "south": 11},
        "result": None,
        "margin": None,
        "terminal": False,
        "mismatches": [],
    }


def test_a_text_record_may_begin_with_a_brace_comment(tmp_path, capsys):
    path = tmp_path / "game.txt"
    path.write_text("{Gering - De Leo, 2005}\n" + RULE_TEXT_OPENING + " {unfinished}\n", encoding="utf-8")
    assert main(["replay", "afrika-v0", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["plies"] == 10


def test_replay_json_records_of_any_game(tmp_path, capsys):
    for env_id, options in (("afrika-v0", {"komi": 0.5}), ("kalah-v0", {"pits": 4})):
        game = mancala_envs.make_game(env_id, **options)
        from mancala_envs.agents import RandomAgent
        from mancala_envs.evaluation import play_game

        actions = play_game(game, (RandomAgent(1), RandomAgent(2)), seed=4).actions
        path = tmp_path / f"{env_id}.json"
        save_json(GameRecord.from_game(game, actions, seed=4), path)
        final = GameRecord.from_game(game, actions, seed=4).replay()[-1]
        out = run("replay", str(path), "--json")
        assert out.returncode == 0, out.stderr
        summary = json.loads(out.stdout)
        seats = ("north", "south") if env_id == "afrika-v0" else ("player_0", "player_1")
        assert summary["scores"] == dict(zip(seats, final.scores()))
        assert summary["plies"] == len(actions) and summary["terminal"] is True
        r0, r1 = final.returns()
        assert summary["result"] == ("draw" if r0 == r1 else seats[0 if r0 > r1 else 1])
        assert summary["mismatches"] == []
        assert main(["replay", str(path)]) == 0
        text = capsys.readouterr().out
        assert f"{env_id}: JSON record {path}" in text and f"plies: {len(actions)}" in text
    # a JSON record given with its id is accepted too
    assert main(["replay", "kalah-v0", str(tmp_path / "kalah-v0.json"), "--json"]) == 0


@pytest.mark.parametrize(
    "args, content, message",
    [
        (["afrika-v0"], "1. e G 2. h H 3. g E 4. h E\n", "move 4 (South) 'E': sow while a capture is compulsory"),
        (["afrika-v0"], "1. e G 2. hh H\n", "move 2 (North) 'hh': not a move"),
        ([], "1. e G\n", "is not a JSON record; to replay a record in a game's notation give the id first"),
        ([], '{"env_id": "afrika-v0", "actions": [4]', "is not JSON: Expecting ',' delimiter at line 1"),
        (["afrika-v7"], "1. e G\n", "unknown env id 'afrika-v7'"),
        (["afrika-v0", "komi=0.3"], "1. e G\n", "komi comes in half points"),
        (["kalah-v0"], "1. 3 4\n", "kalah-v0 has no text record format"),
        ([], '{"env_id": "afrika-v0", "actions": [5, 2, 5]}', "ply 3: action 5 is not legal"),
        (["kalah-v0"], '{"env_id": "afrika-v0", "actions": [4]}', "is a record of afrika-v0, not of kalah-v0"),
        (["komi=0"], '{"env_id": "afrika-v0", "actions": [4]}', "cannot be given for a JSON record"),
    ],
)
def test_replay_errors_exit_2_with_a_message(tmp_path, capsys, args, content, message):
    # in-process for speed (each subprocess pays the package import); the same main() as the script
    path = tmp_path / "record.txt"
    path.write_text(content, encoding="utf-8")
    positional = [a for a in args if "=" not in a]
    options = [a for a in args if "=" in a]
    assert main(["replay", *positional, str(path), *options]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("mancala: error: ")


def test_replay_errors_from_the_installed_script(tmp_path):
    out = run("replay", "afrika-v0", str(tmp_path / "nothing.txt"))
    assert out.returncode == 2 and "cannot read record" in out.stderr and "No such file" in out.stderr
    path = tmp_path / "bad.txt"
    path.write_text("1. e G\n2. h H 3. g E\n4. h xe (+11)\n", encoding="utf-8")
    out = run("replay", "afrika-v0", str(path), "--json")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (
        "mancala: error: move 4 (South) 'xe': capture not available: e faces South's hole D, which is not empty; "
        "South must capture xd\n"
    )
