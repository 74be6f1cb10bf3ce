"""Text notation of whole games, for game families to build on.

A family that writes whole games as text sets ``Game.text_record_format`` to a
``TextRecordFormat``: ``parse(game, text) -> ParsedRecord`` and ``format(game, actions) -> str``.
``NUMBERED_MOVE_PAIRS`` is the rule texts' numbered move list ("1. e G 2. h H ..."), usable
by any two-player game whose players strictly alternate and whose ``string_to_action`` /
``action_to_string`` write one move per token; it writes the game's ``record_count`` in
brackets after a move (Afrika: the stones a capture took) and names the players by the
game's ``seat_names`` (Afrika: North, South). ``mancala_envs.notation`` reads and writes
records through these.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Iterable, NamedTuple

from .errors import NotationError, RecordError
from .game import Game, State


@dataclass(frozen=True)
class Annotation:
    """Something a text record says besides its moves.

    ``kind`` is ``"count"`` (a bracketed count after a move, ``value`` an int: Afrika's
    ``xd (+11)``) or ``"comment"`` (text in braces, after ``#``, or a result at the end;
    ``value`` the text). ``ply`` is the ply the annotation follows (1 = the first move;
    0 = before any move), ``move_number`` the record's move number there and ``move`` that
    move as written.
    """

    ply: int
    move_number: int
    move: str
    kind: str
    value: Any


class ParsedRecord(NamedTuple):
    """What ``parse`` returns: ``actions, annotations = parse(game, text)``."""

    actions: list[int]
    annotations: list[Annotation]


class TextRecordFormat(ABC):
    """How one game family writes whole games as text (set it as the Game's ``text_record_format``)."""

    name = "text"

    @abstractmethod
    def parse(self, game: Game, text: str) -> ParsedRecord:
        """Read a text record of ``game``; ``RecordError`` names a bad or illegal move."""

    @abstractmethod
    def format(self, game: Game, actions: Iterable[int]) -> str:
        """Write ``actions`` (from ``game.new_state()``) as a text record."""


_RESULT_WORDS = {
    "north", "south", "draw", "drawn", "win", "wins", "won", "winner", "result", "resigns", "resigned",
    "komi", "game", "over", "ends", "final", "score", "player_0", "player_1",
}
_TOKEN = re.compile(
    r"""
    (?P<space>[\s,]+)
    | (?P<brace>\{[^}]*\}?)
    | (?P<hash>\#[^\n]*)
    | (?P<count>\(\s*\+?\s*\d+\s*\)|\(\s*[^)]*\)?)
    | (?P<score>(?:\d+(?:\.\d+)?|½)\s*[:\u2013\u2014-]\s*(?:\d+(?:\.\d+)?|½)(?!\s*\.)|1/2\s*-\s*1/2|\*)
    | (?P<number>\d+\s*\.(?:\s*\.\.)?|\d+(?=\s|$))
    | (?P<word>[A-Za-z_0-9]+)
    | (?P<other>.)
    """,
    re.VERBOSE,
)


class NumberedMovePairs(TextRecordFormat):
    """Move pairs numbered from 1, the first player's move first: ``1. e G 2. h H 3. g E``.

    Reading:

    * Moves are the game's notation, one token each (Afrika: ``e``, ``G``, ``xd``; ``x d`` is
      read as ``xd``). Each is checked against the position with ``game.string_to_action``.
    * Move numbers (``12.``, ``12...`` before the second player's move alone, or a bare
      ``12``) may be left out, but a number that is there must be the right one at the
      right place: before the first player's move of that pair.
    * A count in brackets after a move, ``(+11)`` or ``(11)``, is kept as a ``"count"``
      annotation; only a move for which the game writes counts may carry one.
    * Comments: text in braces ``{...}`` anywhere, ``#`` to the end of the line.
    * A result ends the record: a score (``66:62``, ``1-0``, ``½-½``, ``*``) or a word
      such as ``South``, ``North``, ``draw``, ``wins``, ``result``; the rest of the text is
      kept as one ``"comment"``.
    * Spaces, commas and line breaks are free.

    Anything else, or an illegal move, raises ``RecordError`` naming the move number, the
    token and why.
    """

    name = "numbered move pairs"
    PAIRS_PER_LINE = 10

    # -- reading ------------------------------------------------------------------------------
    def parse(self, game: Game, text: str) -> ParsedRecord:
        if not isinstance(text, str):
            raise RecordError(f"a {game.env_id} text record must be a string, got {type(text).__name__}")
        seats = game.seat_names
        state = game.new_state()
        actions: list[int] = []
        annotations: list[Annotation] = []
        last_move = ""
        last_count: int | None = None  # what the game would write after the last move
        last_counted = False
        pending_x: str | None = None

        def where(ply: int) -> str:
            number = ply // 2 + 1
            return f"move {number} ({seats[ply % 2]})"

        def note(kind: str, value: Any) -> None:
            annotations.append(Annotation(len(actions), (max(len(actions), 1) - 1) // 2 + 1, last_move, kind, value))

        def play(token: str) -> None:
            nonlocal last_move, last_count, last_counted
            ply = len(actions)
            if state.is_terminal():
                raise RecordError(
                    f"{where(ply)} {token!r}: the game is already over after ply {ply} "
                    f"({result_line(game, state)}); nothing may follow but comments or a result"
                )
            try:
                action = game.string_to_action(state, token)
            except NotationError as err:
                raise RecordError(f"{where(ply)} {token!r}: {err.why}") from None
            before = state.clone()
            state.apply(action)
            actions.append(action)
            last_move = token
            last_count = game.record_count(before, action, state)
            last_counted = False

        for match in _TOKEN.finditer(text):
            kind = match.lastgroup
            token = match.group()
            if pending_x is not None and kind != "space":
                if kind == "word" and len(token) == 1:
                    pending_x, token = None, pending_x + token
                    play(token)
                    continue
                raise RecordError(f"{where(len(actions))} {pending_x!r}: a capture mark needs a hole letter after it")
            if kind == "space":
                continue
            if kind == "brace":
                if not token.endswith("}"):
                    raise RecordError(f"after {where(max(len(actions) - 1, 0))}: the comment '{{' is never closed with '}}'")
                note("comment", token[1:-1].strip())
            elif kind == "hash":
                note("comment", token[1:].strip())
            elif kind == "count":
                found = re.fullmatch(r"\(\s*\+?\s*(\d+)\s*\)", token)
                if not found:
                    raise RecordError(
                        f"after {where(max(len(actions) - 1, 0))} {last_move!r}: {token!r} is not a count; "
                        f"write the number of stones taken in brackets, e.g. (+11)"
                    )
                if not actions:
                    raise RecordError(f"the count {token!r} comes before any move")
                if last_count is None:
                    raise RecordError(
                        f"{where(len(actions) - 1)} {last_move!r}: a count in brackets belongs to a capture, "
                        f"and {last_move!r} captured nothing"
                    )
                if last_counted:
                    raise RecordError(f"{where(len(actions) - 1)} {last_move!r}: two counts after one move")
                last_counted = True
                note("count", int(found.group(1)))
            elif kind == "number":
                self._check_number(token, actions, seats, state)
            elif kind == "score":
                note("comment", text[match.start():].strip())
                break
            elif kind == "word":
                if token.lower() in _RESULT_WORDS or token.lower() in {s.lower() for s in seats}:
                    note("comment", text[match.start():].strip())
                    break
                if token in ("x", "X"):
                    pending_x = token
                    continue
                play(token)
            else:
                raise RecordError(
                    f"{where(len(actions))}: unexpected character {token!r}; a record holds move numbers, moves, "
                    f"counts in brackets, comments in braces and a result at the end"
                )
        if pending_x is not None:
            raise RecordError(f"{where(len(actions))} {pending_x!r}: a capture mark needs a hole letter after it")
        return ParsedRecord(actions, annotations)

    @staticmethod
    def _check_number(token: str, actions: list[int], seats, state: State) -> None:
        number = int(re.match(r"\d+", token).group())
        continuation = token.rstrip().endswith("...")
        ply = len(actions)
        pair, second = ply // 2 + 1, ply % 2 == 1
        if state.is_terminal():
            raise RecordError(
                f"move number {token.strip()!r}: the game is already over after ply {ply}; "
                f"nothing may follow but comments or a result"
            )
        if continuation:
            if not second:
                raise RecordError(
                    f"move number {token.strip()!r}: '...' marks {seats[1]}'s move, but {seats[0]} is to move "
                    f"(move {pair})"
                )
            if number != pair:
                raise RecordError(f"move number {token.strip()!r} is out of sequence: this is move {pair}")
            return
        if second:
            raise RecordError(
                f"move number {token.strip()!r}: {seats[1]}'s move of move {pair} is missing "
                f"(the record has only {seats[0]}'s move before it)"
            )
        if number != pair:
            raise RecordError(f"move number {token.strip()!r} is out of sequence: move {pair} comes next")

    # -- writing ------------------------------------------------------------------------------
    def format(self, game: Game, actions: Iterable[int]) -> str:
        state = game.new_state()
        pairs: list[str] = []
        current: list[str] = []
        for ply, action in enumerate(actions, start=1):
            if state.is_terminal():
                raise RecordError(f"ply {ply}: action {action!r} comes after the end of the game")
            if not state.is_legal(action):
                legal = ", ".join(f"{a} ({game.action_to_string(state, a)})" for a in state.legal_actions())
                raise RecordError(f"ply {ply}: action {action!r} is not legal here; legal actions: {legal}")
            before = state.clone()
            token = game.action_to_string(state, action)
            state.apply(action)
            count = game.record_count(before, action, state)
            if count is not None:
                token += f" (+{count})"
            if ply % 2 == 1:
                current = [f"{ply // 2 + 1}.", token]
            else:
                current.append(token)
                pairs.append(" ".join(current))
                current = []
        if current:
            pairs.append(" ".join(current))
        lines = [" ".join(pairs[i : i + self.PAIRS_PER_LINE]) for i in range(0, len(pairs), self.PAIRS_PER_LINE)]
        if state.is_terminal():
            lines.append("{" + result_line(game, state) + "}")
        return "\n".join(lines) + "\n"


NUMBERED_MOVE_PAIRS = NumberedMovePairs()


def result_line(game: Game, state: State) -> str:
    """One line on how the game stands: scores and result."""
    seats = game.seat_names
    s0, s1 = state.scores()
    text = f"{seats[0]} {s0}, {seats[1]} {s1}"
    result_text = game.result_text(state)
    if result_text is not None:
        return f"{text}: {result_text}"
    if not state.is_terminal():
        return f"{text}: game not over"
    r0, r1 = state.returns()
    return f"{text}: " + ("draw" if r0 == r1 else f"{seats[0 if r0 > r1 else 1]} wins")
