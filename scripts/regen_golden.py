#!/usr/bin/env python
"""Write the golden game records ``tests/golden/<env_id>.json`` for every registered id.

    python scripts/regen_golden.py            # (re)write every record
    python scripts/regen_golden.py --ids kalah-v0
    python scripts/regen_golden.py --check    # write nothing; exit 1 if a record is missing or differs

Each record holds the id's resolved options and ``GAMES_PER_ID`` seeded random games: the
seed given to ``new_state``, the start position, every action with its notation, and
``to_json()`` after every move. Games longer than ``MAX_PLIES_RECORDED`` moves are cut there
(``"capped": true``) to keep the files small. ``tests/test_golden.py`` replays every record
and compares every position exactly, so any change of behaviour of a registered id shows
up as a failing test. Regenerate only when the change is intended, and review the diff.

The output is deterministic: the same code gives byte-identical files. Each file is written
to a temporary name and moved into place with ``os.replace``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import mancala_envs  # noqa: E402
from mancala_envs.core.files import write_text_atomic  # noqa: E402

GOLDEN_DIR = ROOT / "tests" / "golden"
FORMAT_VERSION = 1
GAMES_PER_ID = 3
MAX_PLIES_RECORDED = 60
MOVE_SEED_OFFSET = 1000  # the move choice of game with init seed s uses default_rng(s + 1000)


def _plain(payload: Any) -> Any:
    """``payload`` as the json module gives it back (tuples become lists, and so on)."""
    return json.loads(json.dumps(payload))


def record_game(game, seed: int, max_plies: int = MAX_PLIES_RECORDED) -> dict[str, Any]:
    """One seeded random game, cut after ``max_plies`` moves."""
    state = game.new_state(seed)
    rng = np.random.default_rng(seed + MOVE_SEED_OFFSET)
    initial = _plain(state.to_json())
    actions: list[int] = []
    notation: list[str] = []
    positions: list[dict] = []
    cap = game.max_plies
    while not state.is_terminal() and len(actions) < max_plies and (cap is None or state.plies < cap):
        legal = state.legal_actions()
        action = int(legal[int(rng.integers(len(legal)))])
        notation.append(game.action_to_string(state, action))
        state.apply(action)
        actions.append(action)
        positions.append(_plain(state.to_json()))
    terminal = state.is_terminal()
    return {
        "seed": seed,
        "move_seed": seed + MOVE_SEED_OFFSET,
        "plies": len(actions),
        "terminal": terminal,
        "capped": not terminal and len(actions) >= max_plies,
        "returns": state.returns(),
        "scores": state.scores(),
        "initial": initial,
        "actions": actions,
        "notation": notation,
        "positions": positions,
    }


def build_record(env_id: str) -> dict[str, Any]:
    game = mancala_envs.make_game(env_id)
    return {
        "format": FORMAT_VERSION,
        "env_id": env_id,
        "family": game.family,
        "options": _plain(game.options),
        "generated_by": "scripts/regen_golden.py",
        "max_plies_recorded": MAX_PLIES_RECORDED,
        "games": [record_game(game, seed) for seed in range(GAMES_PER_ID)],
    }


def dumps_record(record: dict[str, Any]) -> str:
    """Readable JSON with one position (or move list) per line."""
    compact: dict[str, str] = {}

    def mark(value: Any) -> str:
        key = f"@@compact{len(compact)}@@"
        compact[key] = json.dumps(value, separators=(", ", ": "))
        return key

    shaped = dict(record)
    shaped["options"] = record["options"]
    games = []
    for game in record["games"]:
        g = dict(game)
        for key in ("actions", "notation", "returns", "scores"):
            g[key] = mark(game[key])
        g["initial"] = mark(game["initial"])
        g["positions"] = [mark(p) for p in game["positions"]]
        games.append(g)
    shaped["games"] = games
    text = json.dumps(shaped, indent=2)
    for key, value in compact.items():
        text = text.replace(json.dumps(key), value, 1)
    assert json.loads(text) == _plain(record)  # the layout trick must not change the content
    return text + "\n"


def golden_path(env_id: str) -> Path:
    return GOLDEN_DIR / f"{env_id}.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ids", nargs="+", metavar="ID", help="ids to regenerate (default: every registered id)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if any record is missing or stale")
    args = parser.parse_args(argv)
    ids = args.ids or mancala_envs.list_envs()
    stale = []
    for env_id in ids:
        mancala_envs.get_entry(env_id)  # UnknownEnvError names the registered ids
        text = dumps_record(build_record(env_id))
        path = golden_path(env_id)
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            print(f"{path.relative_to(ROOT)}: up to date")
            continue
        if args.check:
            stale.append(env_id)
            print(f"{path.relative_to(ROOT)}: {'missing' if current is None else 'differs'}")
            continue
        write_text_atomic(path, text)
        print(f"{path.relative_to(ROOT)}: {'written' if current is None else 'rewritten'}")
    registered = set(mancala_envs.list_envs())
    for path in sorted(GOLDEN_DIR.glob("*.json")):
        if path.stem not in registered:
            print(f"{path.relative_to(ROOT)}: no registered id {path.stem!r}; delete it if the id is gone for good")
    if stale:
        print(f"{len(stale)} record(s) missing or stale: run python scripts/regen_golden.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
