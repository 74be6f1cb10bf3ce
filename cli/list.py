"""``mancala list``: every registered id with a one-line description."""

from __future__ import annotations

import argparse

from mancala_envs.registry import get_entry, list_envs


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("list", help="registered env ids")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    ids = list_envs()
    width = max(len(i) for i in ids)
    for env_id in ids:
        print(f"{env_id:<{width}}  {get_entry(env_id).description}")
    return 0
