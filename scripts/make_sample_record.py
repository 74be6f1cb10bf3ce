"""Write docs/records/afrika-v0-sample.txt: a real Afrika game in its notation, for ``mancala replay``.

    python scripts/make_sample_record.py

Alpha-beta (depth 4) plays greedy from the start position, seeded, so the record is the same
on every run; the file is written in Afrika's notation by ``mancala_envs.notation.format``.
"""

from __future__ import annotations

from pathlib import Path

from mancala_envs import make_game, notation
from mancala_envs.agents import make_agent
from mancala_envs.evaluation import play_game
from mancala_envs.core.files import write_text_atomic

OUT = Path(__file__).resolve().parent.parent / "docs" / "records" / "afrika-v0-sample.txt"


def main() -> None:
    game = make_game("afrika-v0")
    agents = (make_agent("alphabeta:depth=4", seed=1), make_agent("greedy", seed=2))
    played = play_game(game, agents, seed=0)
    scores, actions, truncated = played.scores, played.actions, played.truncated
    assert not truncated
    write_text_atomic(OUT, notation.format(game, actions) + "\n")
    print(f"wrote {OUT}: {len(actions)} plies, final scores {scores}")


if __name__ == "__main__":
    main()
