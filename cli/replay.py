"""``mancala replay``: replay a recorded game, check its counts, draw it.

    mancala replay ID FILE [key=value ...] [--json]   a text record in the game's notation
                                                      (Afrika: "1. e G 2. h H ..."); checks counts
    mancala replay FILE [--json]                      a JSON record (records.save_json) of any game
    mancala replay ... --gif OUT.gif [--fps F] [--frames DIR]
                                                      also draw it: an animated GIF, PNG frames
    mancala replay ... --svg OUT.svg [--fps F]        an animated SVG (no pygame needed): every
                                                      position in turn, last moves ringed, looping
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mancala_envs.core.errors import MancalaError, RecordError
from mancala_envs.notation import count_mismatches, parse
from mancala_envs.records import load_json
from mancala_envs.registry import make_game_from_args
from mancala_envs.render import frames_of_game, save_frames, save_gif
from mancala_envs.render.svg import save_animated_svg


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "replay",
        help="replay a recorded game: ID FILE (the game's text notation) or FILE (a JSON record)",
    )
    p.add_argument("first", metavar="ID_OR_FILE", help="an env id followed by a text record, or a JSON record file")
    p.add_argument("file", metavar="FILE", nargs="?", help="the text record (after an id)")
    p.add_argument("--json", action="store_true", help="print plies, scores, result, margin, terminal, mismatches as JSON")
    p.add_argument("--gif", metavar="OUT.gif", help="draw the game as an animated GIF (needs the render extra)")
    p.add_argument("--frames", metavar="DIR", help="draw every position as DIR/frame-000.png, frame-001.png, ...")
    p.add_argument("--svg", metavar="OUT.svg", help="draw the game as an animated SVG (no extra needed)")
    p.add_argument("--fps", type=float, default=2.0, help="GIF and SVG frames per second (default 2)")
    p.set_defaults(func=run)
    return p


def _replay_summary(game, state) -> dict:
    """Plies, scores, result and margin of a replayed position, keyed by the game's seats."""
    seats = game.seat_names
    s0, s1 = state.scores()
    info = game.info(state)
    result = info.get("result")
    if result is None and state.is_terminal():
        r0, r1 = state.returns()
        result = "draw" if r0 == r1 else seats[0 if r0 > r1 else 1].lower()
    return {
        "env_id": game.env_id,
        "plies": state.plies,
        "scores": {seats[0].lower(): s0, seats[1].lower(): s1},
        "result": result,
        "margin": info.get("margin"),
        "terminal": state.is_terminal(),
    }


def _write_pictures(args: argparse.Namespace, game, actions, seed) -> dict:
    """The GIF (``--gif``), PNG frames (``--frames``) and animated SVG (``--svg``) of a replayed
    game; what was written."""
    gif, folder = args.gif, args.frames
    if not gif and not folder and not args.svg:
        return {}
    if not args.fps > 0:
        raise MancalaError(f"--fps must be > 0, got {args.fps}")
    written = {}
    if args.svg:
        save_animated_svg(game, actions, args.svg, seed, fps=args.fps)
        written["svg"] = args.svg
    if not gif and not folder:
        return written
    frames = frames_of_game(game, actions, seed)
    if gif:
        save_gif(frames, gif, fps=args.fps)
        written["gif"] = gif
    if folder:
        save_frames(frames, folder)
        written["frames"] = folder
    return written


def run(args: argparse.Namespace) -> int:
    if args.file is not None and "=" in args.file and not Path(args.file).exists():
        # mancala replay FILE key=value: argparse took the option for the FILE
        args.options = [args.file, *args.options]
        args.file = None
    if args.file is None:  # mancala replay FILE: a JSON record of any game
        path, env_id = args.first, None
    else:
        env_id, path = args.first, args.file
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise RecordError(f"cannot read record {path!r}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise RecordError(f"record {path!r} is not UTF-8 text") from None
    try:  # a text record may also begin with a {comment}: only a JSON object counts as JSON
        is_json = isinstance(json.loads(text), dict)
    except ValueError:
        is_json = False
    mismatches = []
    if env_id is None or is_json:
        if not is_json:
            if text.lstrip().startswith("{"):
                load_json(path)  # says what is wrong with the JSON
            raise RecordError(
                f"{path!r} is not a JSON record; to replay a record in a game's notation give the id first, "
                f"e.g. mancala replay afrika-v0 {path}"
            )
        if args.options:
            raise RecordError(
                f"options ({' '.join(args.options)}) cannot be given for a JSON record; its options are in the record"
            )
        record = load_json(path)
        if env_id is not None and record.env_id != env_id:
            raise RecordError(f"{path!r} is a record of {record.env_id}, not of {env_id}")
        game = record.game()
        state = record.replay()[-1]
        actions, seed = record.actions, record.seed
        source = "JSON record"
    else:
        game = make_game_from_args(env_id, args.options)
        parsed = parse(game, text)
        state = game.new_state()
        for action in parsed.actions:
            state.apply(action)
        actions, seed = parsed.actions, None
        mismatches = count_mismatches(game, parsed)
        source = "text record"
    summary = _replay_summary(game, state)
    summary["mismatches"] = [m.to_dict() for m in mismatches]
    summary.update(_write_pictures(args, game, actions, seed))
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    seats = game.seat_names
    print(f"{game.env_id}: {source} {path}")
    print(state)
    s0, s1 = state.scores()
    scores = f"scores: {seats[0]} {s0}, {seats[1]} {s1}"
    if "adjusted_scores" in (info := game.info(state)):
        a0, a1 = info["adjusted_scores"]["player_0"], info["adjusted_scores"]["player_1"]
        scores += f" (after komi {info['komi']:g}: {seats[0]} {a0:g}, {seats[1]} {a1:g})"
    print(scores)
    result_text = game.result_text(state)
    if result_text is not None:
        print(f"result: {result_text}")
    else:
        result = summary["result"]
        print("result: " + ("game not over" if result is None else result))
    print(f"plies: {state.plies}")
    for key in ("gif", "frames", "svg"):
        if key in summary:
            print(f"wrote {summary[key]} ({len(actions) + 1} frames)")
    if not state.is_terminal():
        print(f"the record stops before the end of the game: replayed as far as it goes ({state.plies} plies)")
    if source == "text record":
        counts = sum(1 for a in parsed.annotations if a.kind == "count")
        if mismatches:
            verb = "disagrees" if len(mismatches) == 1 else "disagree"
            print(f"counts: {counts} checked, {len(mismatches)} {verb} with the replay:")
            for m in mismatches:
                where = f"move {(m.ply - 1) // 2 + 1} {seats[(m.ply - 1) % 2]}"
                print(f"  ply {m.ply} ({where}) {m.move}: recorded +{m.recorded}, actual +{m.actual or 0}")
        else:
            print(f"counts: {counts} checked, all agree")
    return 0
