"""Game records.

The generic record, for every game, is JSON::

    {"format": "mancala-envs/record", "version": 1,
     "env_id": "kalah-v0", "options": {"pits": 4}, "seed": 7,
     "actions": [2, 5, 0, ...],
     "result": {"scores": [..], "returns": [..], "plies": n, "terminal": true}}   (optional)

``options`` holds only what differs from the id's preset; ``seed`` is the one given to
``new_state`` (it decides any deal); ``actions`` are the env's action indices in order.
A ``result``, when present, is checked on replay. Games with a text notation of their own
add a parser and a formatter next to this (see the game's module docstring).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .core.errors import MancalaError
from .core.files import write_text_atomic
from .core.game import Game, State

RECORD_FORMAT = "mancala-envs/record"
RECORD_VERSION = 1


class RecordError(MancalaError):
    """A record that cannot be read or replayed; the message names the move and says why."""


@dataclass
class GameRecord:
    """One game: the id, the options that differ from its preset, the seed and the actions."""

    env_id: str
    actions: list[int]
    options: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    result: dict[str, Any] | None = None

    # -- building ----------------------------------------------------------------------------
    @classmethod
    def from_game(cls, game: Game, actions: Iterable[int], seed: int | None = None) -> "GameRecord":
        """A record of ``actions`` played from ``game.new_state(seed)``, with its result."""
        from .registry import get_entry

        defaults = get_entry(game.env_id).defaults()
        options = {k: v for k, v in game.options.items() if defaults.get(k) != v}
        record = cls(game.env_id, [int(a) for a in actions], options, seed)
        final = record.replay()[-1]
        record.result = result_of(final)
        return record

    def game(self) -> Game:
        from .registry import make_game

        return make_game(self.env_id, **self.options)

    # -- replaying ----------------------------------------------------------------------------
    def replay(self) -> list[State]:
        """Every position from the start to the end; a bad action raises ``RecordError``."""
        game = self.game()
        state = game.new_state(self.seed)
        positions = [state.clone()]
        for ply, action in enumerate(self.actions, start=1):
            if state.is_terminal():
                raise RecordError(
                    f"record of {self.env_id}: ply {ply} (action {action}) comes after the end of the game"
                )
            if not state.is_legal(action):
                legal = ", ".join(f"{a} ({game.action_to_string(state, a)})" for a in state.legal_actions())
                raise RecordError(
                    f"record of {self.env_id}: ply {ply}: action {action!r} is not legal for player "
                    f"{state.current_player}; legal actions: {legal}"
                )
            state.apply(action)
            positions.append(state.clone())
        if self.result is not None:
            actual = result_of(state)
            for key, recorded in self.result.items():
                if key in actual and actual[key] != recorded:
                    raise RecordError(
                        f"record of {self.env_id}: the recorded result says {key}={recorded!r}, "
                        f"the replay gives {actual[key]!r}"
                    )
        return positions

    # -- JSON ---------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "env_id": self.env_id,
            "options": dict(self.options),
            "seed": self.seed,
            "actions": list(self.actions),
        }
        if self.result is not None:
            payload["result"] = dict(self.result)
        return payload

    @classmethod
    def from_json(cls, payload: Any) -> "GameRecord":
        """Read and check a record payload (the game's id and options are validated too)."""
        if not isinstance(payload, dict):
            raise RecordError(f"a record must be a JSON object, got {type(payload).__name__}")
        if payload.get("format", RECORD_FORMAT) != RECORD_FORMAT:
            raise RecordError(f"not a mancala-envs record: format is {payload.get('format')!r}, expected {RECORD_FORMAT!r}")
        if payload.get("version", RECORD_VERSION) != RECORD_VERSION:
            raise RecordError(f"record version {payload.get('version')!r} is not supported; this package reads version {RECORD_VERSION}")
        unknown = set(payload) - {"format", "version", "env_id", "options", "seed", "actions", "result"}
        if unknown:
            raise RecordError(
                f"unknown record keys {sorted(unknown)}; a record has env_id, options, seed, actions and optionally result"
            )
        env_id = payload.get("env_id")
        if not isinstance(env_id, str):
            raise RecordError(f"a record needs 'env_id', a registered id string, got {env_id!r}")
        options = payload.get("options", {})
        if not isinstance(options, dict):
            raise RecordError(f"'options' must be an object of option values, got {type(options).__name__}")
        seed = payload.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise RecordError(f"'seed' must be a non-negative integer or null, got {seed!r}")
        actions = payload.get("actions")
        if not isinstance(actions, list):
            raise RecordError(f"a record needs 'actions', a list of action indices, got {actions!r}")
        for ply, action in enumerate(actions, start=1):
            if isinstance(action, bool) or not isinstance(action, int):
                raise RecordError(f"ply {ply}: action {action!r} is not an integer action index")
        result = payload.get("result")
        if result is not None and not isinstance(result, dict):
            raise RecordError(f"'result' must be an object, got {type(result).__name__}")
        record = cls(env_id, list(actions), dict(options), seed, result)
        record.game()  # unknown id or bad options fail here, with the registry's message
        return record


def result_of(state: State) -> dict[str, Any]:
    """The facts a record keeps about how its game stands at the end."""
    return {
        "scores": state.scores(),
        "returns": state.returns(),
        "plies": state.plies,
        "terminal": state.is_terminal(),
    }


def save_json(record: GameRecord, path: str | os.PathLike) -> None:
    """Save a record as JSON (atomically: nothing half-written is ever left at ``path``)."""
    write_text_atomic(path, json.dumps(record.to_json(), indent=1) + "\n")


def load_json(path: str | os.PathLike) -> GameRecord:
    """Load a JSON record; a file that is not one raises ``RecordError`` naming the file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise RecordError(f"cannot read record {str(path)!r}: {err.strerror}") from None
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as err:
        raise RecordError(f"{str(path)!r} is not JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
    return GameRecord.from_json(payload)


# =============================================================================================
# Text records: a game's own notation (Afrika's numbered move list, and any later one)
# =============================================================================================
#
# ``parse(game, text)`` and ``format(game, actions)`` dispatch on the game: a Game subclass
# that has a text notation for whole games sets ``text_record_format`` to an object with
# ``parse(game, text) -> ParsedRecord`` and ``format(game, actions) -> str`` (a
# ``TextRecordFormat``). ``NUMBERED_MOVE_PAIRS`` is the rule texts' numbered move list
# ("1. e G 2. h H ..."), usable by any two-player game whose players strictly alternate and
# whose ``string_to_action`` / ``action_to_string`` write one move per token. A game may add
# a bracketed count after some moves with ``record_count(before, action, after)`` (Afrika:
# the stones a capture took) and name its seats with ``seat_names`` (Afrika: North, South).

import re as _re
from typing import NamedTuple as _NamedTuple

from .core.errors import NotationError as _NotationError


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


class ParsedRecord(_NamedTuple):
    """What ``parse`` returns: ``actions, annotations = parse(game, text)``."""

    actions: list[int]
    annotations: list[Annotation]


@dataclass(frozen=True)
class CountMismatch:
    """A bracketed count that disagrees with the replay."""

    ply: int
    move: str
    recorded: int
    actual: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"ply": self.ply, "move": self.move, "recorded": self.recorded, "actual": self.actual}


class TextRecordFormat:
    """How one game family writes whole games as text (subclass and set it on the Game)."""

    name = "text"

    def parse(self, game: Game, text: str) -> ParsedRecord:  # pragma: no cover - abstract
        raise NotImplementedError

    def format(self, game: Game, actions: Iterable[int]) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


_RESULT_WORDS = {
    "north", "south", "draw", "drawn", "win", "wins", "won", "winner", "result", "resigns", "resigned",
    "komi", "game", "over", "ends", "final", "score", "player_0", "player_1",
}
_TOKEN = _re.compile(
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
    _re.VERBOSE,
)


def _seat_names(game: Game) -> tuple[str, str]:
    return tuple(getattr(game, "seat_names", ("player_0", "player_1")))  # type: ignore[return-value]


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
        seats = _seat_names(game)
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
            nonlocal last_move, last_count, last_counted, state
            ply = len(actions)
            if state.is_terminal():
                raise RecordError(
                    f"{where(ply)} {token!r}: the game is already over after ply {ply} "
                    f"({result_line(game, state)}); nothing may follow but comments or a result"
                )
            try:
                action = game.string_to_action(state, token)
            except _NotationError as err:
                why = getattr(err, "why", str(err))
                raise RecordError(f"{where(ply)} {token!r}: {why}") from None
            before = state.clone()
            state.apply(action)
            actions.append(action)
            last_move = token
            counter = getattr(game, "record_count", None)
            last_count = counter(before, action, state) if counter else None
            last_counted = False

        position = 0
        for match in _TOKEN.finditer(text):
            kind = match.lastgroup
            token = match.group()
            position = match.end()
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
                found = _re.fullmatch(r"\(\s*\+?\s*(\d+)\s*\)", token)
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
        number = int(_re.match(r"\d+", token).group())
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
        counter = getattr(game, "record_count", None)
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
            count = counter(before, action, state) if counter else None
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
    seats = _seat_names(game)
    s0, s1 = state.scores()
    text = f"{seats[0]} {s0}, {seats[1]} {s1}"
    result_text = getattr(game, "result_text", None)
    if result_text is not None:
        return f"{text}: {result_text(state)}"
    if not state.is_terminal():
        return f"{text}: game not over"
    r0, r1 = state.returns()
    return f"{text}: " + ("draw" if r0 == r1 else f"{seats[0 if r0 > r1 else 1]} wins")


def text_format(game: Game) -> TextRecordFormat:
    """The text record format of ``game``; RecordError if it has none."""
    fmt = getattr(game, "text_record_format", None)
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
    counter = getattr(game, "record_count", None)
    state = game.new_state()
    actual: dict[int, int | None] = {}
    for ply, action in enumerate(parsed.actions, start=1):
        before = state.clone()
        state.apply(action)
        actual[ply] = counter(before, action, state) if counter else None
    return [
        CountMismatch(a.ply, a.move, int(a.value), actual.get(a.ply))
        for a in parsed.annotations
        if a.kind == "count" and actual.get(a.ply) != a.value
    ]
