"""Games written in a game's own text notation: read, write and check them.

``parse(game, text)`` reads a text record (Afrika's ``1. e G 2. h H 3. g E ...``) into
actions and annotations; ``format(game, actions)`` writes one; ``count_mismatches`` lists the
bracketed counts that disagree with the replay. Each dispatches on the game's
``text_record_format`` (``mancala_envs.core.notation``); a game without one has JSON records
only (``mancala_envs.records``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from .core.errors import RecordError
from .core.game import Game
from .core.notation import ParsedRecord, TextRecordFormat


@dataclass(frozen=True)
class CountMismatch:
    """A bracketed count that disagrees with the replay."""

    ply: int
    move: str
    recorded: int
    actual: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"ply": self.ply, "move": self.move, "recorded": self.recorded, "actual": self.actual}


def text_format(game: Game) -> TextRecordFormat:
    """The text record format of ``game``; RecordError if it has none."""
    fmt = game.text_record_format
    if fmt is None:
        raise RecordError(
            f"{game.env_id} has no text record format; save and replay its games as JSON records "
            f"(GameRecord.from_game, save_json, load_json)"
        )
    return fmt


def parse(game: Game, text: str) -> ParsedRecord:
    """Read a text record of ``game`` (e.g. Afrika's ``1. e G 2. h H ...``).

    Returns ``ParsedRecord(actions, annotations)``; every move is checked against the
    position, and a malformed or illegal one raises ``RecordError`` naming the move number,
    the token and why.
    """
    return text_format(game).parse(game, text)


def format(game: Game, actions: Iterable[int]) -> str:  # noqa: A001 - the issue's name
    """Write ``actions`` (from ``game.new_state()``) as a text record, with counts and result."""
    return text_format(game).format(game, [int(a) for a in actions])


def count_mismatches(game: Game, parsed: ParsedRecord) -> list[CountMismatch]:
    """Every ``"count"`` annotation that disagrees with the replay of the parsed actions."""
    state = game.new_state()
    actual: dict[int, int | None] = {}
    for ply, action in enumerate(parsed.actions, start=1):
        before = state.clone()
        state.apply(action)
        actual[ply] = game.record_count(before, action, state)
    return [
        CountMismatch(a.ply, a.move, int(a.value), actual.get(a.ply))
        for a in parsed.annotations
        if a.kind == "count" and actual.get(a.ply) != a.value
    ]
