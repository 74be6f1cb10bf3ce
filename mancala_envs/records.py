"""Game records.

The generic record, for every game, is JSON::

    {"format": "mancala-envs/record", "version": 1,
     "env_id": "kalah-v0", "options": {"pits": 4}, "seed": 7,
     "actions": [2, 5, 0, ...],
     "result": {"scores": [..], "returns": [..], "plies": n, "terminal": true}}   (optional)

``options`` holds only what differs from the id's preset; ``seed`` is the one given to
``new_state`` (it decides any deal); ``actions`` are the env's action indices in order.
A ``result``, when present, is checked on replay. Games with a text notation of their own
also have text records (``mancala_envs.notation``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .core.errors import RecordError
from .core.files import write_text_atomic
from .core.game import Game, State
from .registry import get_entry, make_game

RECORD_FORMAT = "mancala-envs/record"
RECORD_VERSION = 1


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
        defaults = get_entry(game.env_id).defaults()
        options = {k: v for k, v in game.options.items() if defaults.get(k) != v}
        record = cls(game.env_id, [int(a) for a in actions], options, seed)
        final = record.replay()[-1]
        record.result = result_of(final)
        return record

    def game(self) -> Game:
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
