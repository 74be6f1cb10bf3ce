"""The opening-suite options every evaluating command shares (match, tournament, eval).

    --openings N         distinct openings, each played from both seats (default 100: 200 games
                         per pair); 0 plays from the initial position only, labelled as such
    --opening-plies L-H  random plies that make an opening ("3" for exactly 3; default 2-4,
                         and 0 for a dealt game, whose deal is the opening)
    --balanced D         leave out openings a depth-D alpha-beta search finds decided
    --suite FILE         replay a saved suite (the "openings" of an earlier --json report, or
                         OpeningSuite.to_json) instead of drawing one
    --games G            the same as --openings G/2 (kept for the old habit); with
                         --openings 0, G games from the initial position

and where the games are played (``add_backend_arguments``):

    --backend local|ray  local processes (default), or a Ray cluster (the ray extra;
                         mancala_envs.evaluation.ray_backend), with the same results for a seed
    --address ADDR       the Ray cluster: "auto" (the one `ray start --head` began here), an
                         address, or ray://HOST:10001; default: a local Ray started on demand
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mancala_envs.evaluation.arena import BACKENDS
from mancala_envs.evaluation.openings import DEFAULT_OPENINGS, OpeningSuite, initial_suite, opening_suite
from mancala_envs.core.errors import MancalaError
from mancala_envs.core.extras import require_extra
from mancala_envs.core.game import Game

from .arguments import integer_at_least


def add_suite_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--openings", type=int, default=None, metavar="N",
                        help=f"distinct openings, each played from both seats (default {DEFAULT_OPENINGS}); "
                             "0: the initial position only")
    parser.add_argument("--opening-plies", default=None, metavar="LO-HI",
                        help="random plies that make an opening (default 2-4; dealt games: 0, the deal)")
    parser.add_argument("--balanced", type=integer_at_least(1), default=None, metavar="DEPTH",
                        help="leave out openings a depth-DEPTH alpha-beta search finds already decided")
    parser.add_argument("--suite", default=None, metavar="FILE", help="replay a saved opening suite (JSON)")
    parser.add_argument("--games", type=int, default=None,
                        help="total games: the same as --openings GAMES/2 (with --openings 0: games from the start)")


def suite_from_args(game: Game, args: argparse.Namespace) -> OpeningSuite:
    """The suite the arguments ask for (bad values raise ``MancalaError`` naming the flag)."""
    if args.suite:
        return _load_suite(game, args.suite)
    openings, games = args.openings, args.games
    if games is not None and games < 1:
        raise MancalaError(f"--games must be at least 1, got {games}")
    if games is not None and games % 2:
        raise MancalaError(f"--games must be even: each start is played from both seats, got {games}")
    if openings is not None and openings < 0:
        raise MancalaError(f"--openings must be 0 (the initial position) or more, got {openings}")
    if openings == 0:
        return initial_suite(game, pairs=(games or 2) // 2, seed=args.seed)
    if openings is None:
        openings = DEFAULT_OPENINGS if games is None else games // 2
    elif games is not None and games != 2 * openings:
        raise MancalaError(f"--games {games} and --openings {openings} disagree: each opening is two games")
    plies = None if args.opening_plies is None else parse_plies(args.opening_plies)
    return opening_suite(game, openings, plies, args.seed, balanced=args.balanced)


def parse_plies(text: str) -> tuple[int, int]:
    low, _, high = str(text).partition("-")
    try:
        plies = (int(low), int(high or low))
    except ValueError:
        raise MancalaError(f"--opening-plies must be LO-HI or N, e.g. 2-4, got {text!r}") from None
    return plies


def _load_suite(game: Game, path: str) -> OpeningSuite:
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise MancalaError(f"cannot read the suite {path!r}: {err.strerror}") from None
    except ValueError as err:
        raise MancalaError(f"{path!r} is not JSON: {err}") from None
    if isinstance(payload, dict) and isinstance(payload.get("openings"), dict):
        payload = payload["openings"]  # a whole --json report: its suite
    suite = OpeningSuite.from_json(payload)
    if suite.game != game:
        raise MancalaError(f"{path!r} is a suite of {suite.env_id} {suite.options}, not of {game.env_id} "
                           f"with these options")
    return suite


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help="where the games are played: local processes (default) or a Ray cluster")
    parser.add_argument("--address", default=None, metavar="ADDR",
                        help="Ray cluster address for --backend ray: auto, HOST:PORT or ray://HOST:10001 "
                             "(default: a local Ray started on demand)")


def check_backend_args(args: argparse.Namespace) -> None:
    """``--address`` only with ``--backend ray``, and the ray extra installed for it."""
    if args.address and args.backend != "ray":
        raise MancalaError(f"--address {args.address} names a Ray cluster: give --backend ray with it")
    if args.backend == "ray":
        require_extra("ray", "ray", "--backend ray")
