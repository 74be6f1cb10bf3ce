"""``mancala serve``: play any game against any agent in a browser, and step through records.

    mancala serve [--port P] [--host H] [--opponent SPEC] [--game ID]

Serves the page of ``mancala_envs.cli.web_app`` (needs the ``web`` extra: Flask) at
``http://H:P/``. It binds to 127.0.0.1 (this machine only) unless ``--host`` says otherwise:
the page plays agents on the server's CPU and holds games in its memory, so bind it to
another address only on a network you trust. ``--opponent`` is the agent a new game offers
(an agent spec, ``mancala_envs.agents.specs``; default ``alphabeta:depth=4``); the page can
pick another spec, any id, the seat and a seed. Stop it with Ctrl-C.
"""

from __future__ import annotations

import argparse

from mancala_envs.core.errors import MancalaError

from .play_session import DEFAULT_OPPONENT

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("serve", help="play in a browser: a local web page (needs the web extra)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"the port (default {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"the address to bind (default {DEFAULT_HOST}: this machine only)")
    p.add_argument("--opponent", default=DEFAULT_OPPONENT,
                   help=f"the agent a new game offers (default {DEFAULT_OPPONENT})")
    p.add_argument("--game", default="kalah-v0", metavar="ID", help="the id a new game offers (default kalah-v0)")
    p.set_defaults(func=run)
    return p


def make_server(host: str, port: int, opponent: str, env_id: str = "kalah-v0"):
    """A WSGI server of the page, bound but not yet serving (``serve_forever()``; ``.port``)."""
    from .web_app import bound_server

    if not 0 <= port <= 65535:
        raise MancalaError(f"--port must be from 0 to 65535, got {port}")
    return bound_server(host, port, opponent, env_id)


def run(args: argparse.Namespace) -> int:
    if args.options:
        raise MancalaError(f"mancala serve takes no game options ({' '.join(args.options)}); pick them in the page")
    server = make_server(args.host, args.port, args.opponent, args.game)
    print(f"mancala serve: http://{args.host}:{server.port}/  (Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
