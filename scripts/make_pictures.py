"""Draw the README's pictures: one mid-game position of each family, to docs/images/<id>.png.

    python scripts/make_pictures.py [--out docs/images]

Each game is played from a fixed seed by two seeded greedy agents for a fixed number of
plies, so the pictures are the same on every run; they are palette PNGs of a few tens of KB.
Needs the render extra (``pip install -c constraints.txt ".[render]"``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import mancala_envs
from mancala_envs.agents import make_agent
from mancala_envs.render import describe_move, render_frame, save_png

# id -> (game seed, plies played before the picture)
POSITIONS = {
    "kalah-v0": (1, 9),
    "afrika-v0": (1, 24),
    "progressive-v0": (1, 11),
    "rondell-v0": (3, 10),
    "widdershins-v0": (4, 12),
}


def picture(env_id: str, seed: int, plies: int):
    """The frame of ``env_id`` after ``plies`` greedy-vs-greedy moves from ``new_state(seed)``."""
    game = mancala_envs.make_game(env_id)
    state = game.new_state(seed)
    agents = (make_agent("greedy", seed=seed), make_agent("greedy", seed=seed + 1))
    last = None
    for _ in range(plies):
        if state.is_terminal():
            raise SystemExit(f"{env_id}: the game ended before ply {plies}; pick fewer plies")
        action = agents[state.current_player].act(state.clone())
        last = describe_move(state, action)
        state.apply(action)
    return render_frame(state, last)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "images"))
    args = parser.parse_args(argv)
    for env_id, (seed, plies) in POSITIONS.items():
        path = Path(args.out) / f"{env_id}.png"
        save_png(picture(env_id, seed, plies), path, colors=64)
        print(f"{path} ({path.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
