"""The ``mancala`` command.

    mancala list                                  every registered id with a one-line description
    mancala show ID [key=value ...]               options with defaults, observation and action spaces
    mancala match ID AGENT_A AGENT_B [key=value ...] [--games N] [--seed S] [--json]
                                                  a match with seats swapped every game
    mancala replay ID FILE [key=value ...] [--json]
                                                  replay a text record in the game's notation
                                                  (Afrika: "1. e G 2. h H ..."); checks counts
    mancala replay FILE [--json]                  replay a JSON record (records.save_json) of any game
    mancala replay ... --gif OUT.gif [--fps F] [--frames DIR]
                                                  also draw it: an animated GIF, PNG frames
    mancala play ID [key=value ...] [--opponent SPEC] [--seat 0|1|random] [--window] ...
                                                  play against an agent (agents.play)
    mancala tournament ID --agents SPEC ... [--games N]
                                                  round robin with Elo ratings (agents.tournament)
    mancala solve ID [key=value ...] [--json]     exact value and best move of the start position
    mancala train CONFIG [key=value ...] | --resume RUN_DIR
                                                  self-play training (training.train)
    mancala eval MODEL_OR_RUN_DIR [--against SPEC ...] [--games N]
                                                  a trained model against agents (training.evaluate)

Game options are given as ``key=value`` arguments after the id (``mancala show kalah-v0
pits=4``). Agents are specs such as ``random``, ``greedy``, ``alphabeta:depth=4`` or
``policy:RUN_DIR`` (see ``agents.specs``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from .core.errors import MancalaError
from .core.options import parse_key_values


def _game_from_args(env_id: str, pairs: Sequence[str]):
    from .registry import ENV_OPTIONS, get_entry, make_game

    entry = get_entry(env_id)
    options = parse_key_values(entry.game_options() + ENV_OPTIONS, pairs, env_id)
    options = {k: v for k, v in options.items() if k not in {o.name for o in ENV_OPTIONS}}
    return entry, make_game(env_id, **options)


def cmd_list(args: argparse.Namespace) -> int:
    from .registry import get_entry, list_envs

    ids = list_envs()
    width = max(len(i) for i in ids)
    for env_id in ids:
        print(f"{env_id:<{width}}  {get_entry(env_id).description}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from .registry import ENV_OPTIONS

    entry, game = _game_from_args(args.env_id, args.options)
    print(f"{entry.env_id}: {entry.description}")
    print(f"family: {game.family} ({type(game).__name__}, module {type(game).__module__})")
    print("\noptions (value in use; default of this id; allowed):")
    defaults = entry.defaults()
    for opt in entry.game_options():
        value = game.options[opt.name]
        mark = "" if value == defaults[opt.name] else "   <- overridden"
        print(f"  {opt.name:<24} {value!r:<14} default {defaults[opt.name]!r:<14} {opt.allowed()}{mark}")
        print(f"  {'':<24} {opt.doc}")
    for opt in ENV_OPTIONS:
        print(f"  {opt.name:<24} {opt.default!r:<14} (env option) {opt.allowed()}")
        print(f"  {'':<24} {opt.doc}")
    low, high = game.observation_bounds()
    print(f"\nobservation: Box({low:g}, {high:g}, ({game.observation_size},), float32) plus action_mask int8")
    print(f"actions:     Discrete({game.num_actions})")
    print("agents:      player_0, player_1")
    print(f"ply cap:     {game.max_plies}")
    print("\nstart position:")
    print(game.new_state(0))
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    from agents import make_agent, play_match

    entry, game = _game_from_args(args.env_id, args.options)
    if args.games < 1:
        raise MancalaError(f"--games must be at least 1, got {args.games}")
    agent_a = make_agent(args.agent_a, seed=args.seed)
    agent_b = make_agent(args.agent_b, seed=args.seed + 1)
    result = play_match(game, agent_a, agent_b, games=args.games, seed=args.seed)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(result.summary())
    return 0


def _replay_summary(game, state) -> dict:
    """Plies, scores, result and margin of a replayed position, keyed by the game's seats."""
    seats = getattr(game, "seat_names", ("player_0", "player_1"))
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
    """The GIF (``--gif``) and PNG frames (``--frames``) of a replayed game; what was written."""
    gif, folder = getattr(args, "gif", None), getattr(args, "frames", None)
    if not gif and not folder:
        return {}
    from .render import frames_of_game, save_frames, save_gif

    if not args.fps > 0:
        raise MancalaError(f"--fps must be > 0, got {args.fps}")
    frames = frames_of_game(game, actions, seed)
    written = {}
    if gif:
        save_gif(frames, gif, fps=args.fps)
        written["gif"] = gif
    if folder:
        save_frames(frames, folder)
        written["frames"] = folder
    return written


def cmd_replay(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .records import RecordError, count_mismatches, load_json, parse

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
        _, game = _game_from_args(env_id, args.options)
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
    seats = getattr(game, "seat_names", ("player_0", "player_1"))
    print(f"{game.env_id}: {source} {path}")
    print(state)
    s0, s1 = state.scores()
    scores = f"scores: {seats[0]} {s0}, {seats[1]} {s1}"
    if "adjusted_scores" in (info := game.info(state)):
        a0, a1 = info["adjusted_scores"]["player_0"], info["adjusted_scores"]["player_1"]
        scores += f" (after komi {info['komi']:g}: {seats[0]} {a0:g}, {seats[1]} {a1:g})"
    print(scores)
    if hasattr(game, "result_text"):
        print(f"result: {game.result_text(state)}")
    else:
        result = summary["result"]
        print("result: " + ("game not over" if result is None else result))
    print(f"plies: {state.plies}")
    for key in ("gif", "frames"):
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mancala", description="Mancala games as RL environments.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("list", help="registered env ids")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", help="options, spaces and start position of an id")
    p.add_argument("env_id", metavar="ID", help="an env id; game options follow as key=value")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("match", help="play two agents against each other, seats swapped every game")
    p.add_argument("env_id", metavar="ID")
    p.add_argument("agent_a", metavar="AGENT_A", help="agent spec, e.g. random, greedy")
    p.add_argument("agent_b", metavar="AGENT_B")
    p.add_argument("--games", type=int, default=20, help="number of games (default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed of the games and the agents (default 0)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_match)

    p = sub.add_parser(
        "replay",
        help="replay a recorded game: ID FILE (the game's text notation) or FILE (a JSON record)",
    )
    p.add_argument("first", metavar="ID_OR_FILE", help="an env id followed by a text record, or a JSON record file")
    p.add_argument("file", metavar="FILE", nargs="?", help="the text record (after an id)")
    p.add_argument("--json", action="store_true", help="print plies, scores, result, margin, terminal, mismatches as JSON")
    p.add_argument("--gif", metavar="OUT.gif", help="draw the game as an animated GIF (needs mancala-envs[render])")
    p.add_argument("--frames", metavar="DIR", help="draw every position as DIR/frame-000.png, frame-001.png, ...")
    p.add_argument("--fps", type=float, default=2.0, help="GIF frames per second (default 2)")
    p.set_defaults(func=cmd_replay)

    # Search, tournaments, play, training and evaluation live with their packages.
    from agents.cli_commands import add_solve_parser, add_tournament_parser
    from agents.play import add_play_parser
    from training.evaluate import add_eval_parser
    from training.train import add_train_parser

    add_tournament_parser(sub)
    add_solve_parser(sub)
    add_play_parser(sub)
    add_train_parser(sub)
    add_eval_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    # Game options are key=value words anywhere after the subcommand's positionals.
    args, extra = parser.parse_known_args(argv)
    stray = [word for word in extra if "=" not in word or word.startswith("-")]
    if stray:
        parser.error(f"unrecognized arguments: {' '.join(stray)}")
    args.options = extra
    try:
        return args.func(args)
    except MancalaError as err:
        print(f"mancala: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
