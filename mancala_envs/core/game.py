"""The kernel contract every game implements, and the Python objects built on it.

A game family is a module with numba-compiled functions over a flat integer state
(``numpy.int32``, 1-D) and an integer parameter vector (``numpy.int64``, 1-D) that holds
the variant options. The functions, bundled as a ``Kernel``:

=====================================================  ===============================================
``init(state, params, rng)``                            write the start position (``rng``: a numpy
                                                        ``Generator``, the only source of randomness)
``legal_mask(state, params, mask) -> int``              fill ``mask`` (int8, ``num_actions``) for the
                                                        player to move; return the number of legal moves
``apply(state, params, action)``                        play a legal action in place
``current_player(state, params) -> int``                the player to move, -1 once the game is over
``scores(state, params, out)``                          the rules' counts (float64[2]), player 0 first
``returns(state, params, out)``                         +1/-1/0 per player at the end (float64[2])
``observe(state, params, player, out)``                 the observation tensor (float32) as ``player``
                                                        sees it: mover-relative, "mine" before "theirs"
``plies(state, params) -> int``                         moves played so far (for ``max_plies``)
=====================================================  ===============================================

The env, the batched engine and the search agents all call these same functions; no other
code knows the rules. ``Game`` is the Python rules object around one kernel with resolved
options (sizes, validation, JSON, notation, the text board) and ``State`` is one position.
The whole contract of a family is ``Game``'s docstring: the hooks it must implement
(abstract) and the optional ones, declared there with their defaults.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import MappingProxyType
from typing import Any, Callable, ClassVar, Mapping, NamedTuple

import numpy as np

from numba import njit

from . import inline_copy, ir_vars, typing_memo
from .checks import checked_action, checked_seed, is_integer
from .errors import IllegalActionError, InvalidStateError
from .jit_helpers import copy_into, hash_state
from .options import Option, resolve_options
from ..render.svg import save_svg as write_svg, state_svg

inline_copy.install()  # quicker inlining for every compile of the process (see core.inline_copy)
typing_memo.install()  # quicker typing of operators, likewise (see core.typing_memo)
ir_vars.install()  # quicker variable lists of IR statements, likewise (see core.ir_vars)


@njit(cache=True)
def copy_whole_state(target, source, params):
    """``Game.search_hooks``' copy of a game without its own: every word."""
    copy_into(target, source)


@njit(cache=True)
def whole_state_key(state, params):
    """``Game.search_hooks``' key of a game without its own: the hash of every word."""
    return hash_state(state)


class Kernel(NamedTuple):
    """The jitted functions of one game family (see the module docstring)."""

    init: Callable
    legal_mask: Callable
    apply: Callable
    current_player: Callable
    scores: Callable
    returns: Callable
    observe: Callable
    plies: Callable


MAX_PLIES_OPTION_DOC = "ply cap: reaching it truncates the episode (never a draw, never a win)"

#: "No ply cap" as an integer: what jitted loops compare the ply count with when the game's
#: ``max_plies`` is None. ``Game.ply_cap`` is the cap in this form; the one truncation rule is
#: ``plies >= ply_cap`` while the game is not over (``State.is_truncated``).
NO_PLY_CAP = 2**62


class Variant(NamedTuple):
    """One registered id of a game family: a preset of the family's options.

    A family module lists its ids as plain data, ``VARIANTS = (Variant(...), ...)``, and
    ``mancala_envs.registry`` registers them.
    """

    env_id: str
    game_class: type["Game"]
    description: str
    preset: Mapping[str, Any] = MappingProxyType({})


class Game(ABC):
    """A game family with resolved options: the contract every family implements.

    **Required** (abstract; a family that leaves one out cannot be instantiated):

    * class attributes ``kernel`` (the ``Kernel``), ``family`` (its name) and ``OPTIONS`` (the
      declared options, ``max_plies`` included);
    * ``_sizes``, ``_state_to_json``, ``_state_from_json``, ``_action_to_string``,
      ``_string_to_action``, ``_render_text``, ``observation_bounds``, ``status_text``,
      ``action_cell`` and ``board_view``.

    **Optional** (declared here with their defaults; override where the game needs it):
    ``PARAM_OPTIONS`` and ``_derived_params`` (the params vector), ``_validate_combination``,
    ``conserved_total``, ``scores_only_grow``, ``result_follows_scores``, ``search_heuristic``,
    ``search_score_total``, ``position_key_indices``, ``search_hooks``, ``legal_bits``, ``info``, ``seat_names``,
    ``result_text``, ``record_count`` and ``text_record_format``.
    """

    kernel: ClassVar[Kernel]
    #: For a kernel whose ``apply`` can raise: ``(apply_recording, raise_if_flagged)``, jitted
    #: functions the batched parallel step uses instead (``mancala_envs.vector``), since a raise
    #: inside its ``prange`` loop would make numba run the loop serially.
    batch_guard: ClassVar[tuple[Callable, Callable] | None] = None
    OPTIONS: ClassVar[tuple[Option, ...]]
    family: ClassVar[str]
    num_players: ClassVar[int] = 2

    def __init__(self, env_id: str | None = None, preset: Mapping[str, Any] | None = None, **options: Any):
        self.env_id = env_id or self.family
        self._preset = dict(preset or {})
        self._overrides = dict(options)
        self.options: dict[str, Any] = resolve_options(self.env_id, self.OPTIONS, self._preset, options)
        self._validate_combination()
        self.params: np.ndarray = self._params()
        self.state_size, self.num_actions, self.observation_size = self._sizes()
        self.max_plies: int | None = self.options.get("max_plies")
        self.ply_cap: int = NO_PLY_CAP if self.max_plies is None else int(self.max_plies)

    # -- the params vector ------------------------------------------------------------------
    #: The options the kernels read, in the order they open the params vector, each encoded
    #: by ``Option.encode`` (bool 0/1, a choice its index, None 0). The family's ``P_<NAME>``
    #: index constants follow this order (tests/test_game_contract.py checks it).
    PARAM_OPTIONS: ClassVar[tuple[str, ...]] = ()

    def _derived_params(self) -> list[int]:
        """The params entries after ``PARAM_OPTIONS``: values computed from several options
        (totals, sizes, offsets), each documented by the family. None by default."""
        return []

    def _params(self) -> np.ndarray:
        declared = {o.name: o for o in self.OPTIONS}
        encoded = [declared[name].encode(self.options[name]) for name in self.PARAM_OPTIONS]
        return np.array(encoded + [int(v) for v in self._derived_params()], dtype=np.int64)

    # -- required hooks ---------------------------------------------------------------------
    @abstractmethod
    def _sizes(self) -> tuple[int, int, int]:
        """``(state_size, num_actions, observation_size)`` for the resolved options."""

    @abstractmethod
    def _state_to_json(self, array: np.ndarray) -> dict:
        """The position as plain JSON data (``State.to_json``)."""

    @abstractmethod
    def _state_from_json(self, payload: dict) -> np.ndarray:
        """The state array of a JSON position; ``InvalidStateError`` for a malformed or impossible one."""

    @abstractmethod
    def _action_to_string(self, state: "State", action: int) -> str:
        """``action`` (in range) in the game's notation."""

    @abstractmethod
    def _string_to_action(self, state: "State", text: str) -> int:
        """A move in the game's notation, legal in ``state``; ``NotationError`` otherwise."""

    @abstractmethod
    def _render_text(self, state: "State") -> str:
        """The text board (``str(state)``)."""

    @abstractmethod
    def observation_bounds(self) -> tuple[float, float]:
        """The (low, high) bound of every entry of the observation tensor."""

    # -- pictures: plain data that mancala_envs.render draws (no drawing code here) --------
    @abstractmethod
    def status_text(self, state: "State") -> str:
        """One line on how the game stands: whose turn (and phase), or the result."""

    @abstractmethod
    def action_cell(self, state: "State", action: int) -> tuple[str | None, str]:
        """Where ``action`` of the player to move in ``state`` is played on the board.

        Returns ``(cell, way)``: ``cell`` is the key of a cell of ``board_view(state)`` (the
        hole, pile or stack a person touches to play it), or None for a choice made off the
        board (a setup count, a side choice, "no reservation", pass, resign), which a window
        offers as a button. ``way`` is ``""``, or ``"ccw"``/``"cw"`` when the same cell has a
        move in each direction (counterclockwise/clockwise as seen from above, the board
        drawn with the near row at the bottom).
        """

    @abstractmethod
    def board_view(self, state: "State") -> dict[str, Any]:
        """Everything a picture of ``state`` shows, as plain data (read by ``mancala_envs.render``).

        ==============  ==================================================================
        key             value
        ==============  ==================================================================
        ``layout``      ``"two_rows"`` (Kalah, Afrika), ``"one_row"`` (Progressive),
                        ``"ring"`` (Rondell), ``"card_rows"`` (Widdershins)
        ``cells``       ``{key: {"label", "count", "kind", "owner", "cards"}}``: ``label`` the
                        cell's name in the game's notation, ``count`` its stones or cards,
                        ``kind`` one of hole, store, captured, goal, pile, stack, ``owner``
                        0, 1 or None, ``cards`` (piles and stacks) the cards bottom to top
                        (``"R"``/``"B"``, or card names such as ``"10H"``)
        ``rows``        rows of cell keys left to right as drawn: the far row first
                        (two_rows, card_rows), the one row (one_row), or the ring's piles
                        counterclockwise (ring)
        ``stores``      two_rows: ``[left, right]`` keys of stores spanning both rows (or None)
        ``row_ends``    two_rows: ``[far, near]`` keys of a box at the right end of each row
        ``goal``        one_row: the key of the shared Goal
        ``row_titles``  titles of the far and near rows (one_row: the left and right seat)
        ``near_seat``   the seat whose row is drawn nearest (two_rows, card_rows), or None
        ``seats``       display names of player_0 and player_1
        ``score_name``  what ``scores`` count (``"store"``, ``"captured"``, ``"points"``, ...)
        ``scores``      ``state.scores()``
        ``to_move``     ``state.current_player`` (-1 once the game is over)
        ``status``      ``status_text(state)``
        ``details``     further lines of text (e.g. cards in play, the komi)
        ``focus``       cell keys to mark: the hole being set, a reserved pile
        ``marks``       ``{key: short text}`` shown by a cell ("reserved", "ended here")
        ==============  ==================================================================
        """

    # -- optional hooks, with their defaults ---------------------------------------------------
    def _validate_combination(self) -> None:
        """Reject option combinations that are each valid alone but not together (none by default)."""

    def conserved_total(self, state: "State") -> int | None:
        """The quantity no move may change (stones, cards), or None where none applies.

        Soak and property tests check that it stays the same from one position to the next
        within a game. A family with nothing conserved keeps this default.
        """
        return None

    #: True when no move ever lowers a score (stones once captured stay captured) and the
    #: final scores add up to at most ``conserved_total``: the exact solver then cuts lines
    #: whose margin cannot reach its window (``search_score_total``).
    scores_only_grow: bool = False

    #: True when the result is the sign of the final score difference (most stones wins), so
    #: with ``scores_only_grow`` a score above half of ``search_score_total`` decides the
    #: game: MCTS rollouts stop there (``mancala_envs.agents.mcts``).
    result_follows_scores: bool = False

    #: Leaf evaluation for alpha-beta (``mancala_envs.agents.search``), a jitted
    #: ``(state, params, player) -> float`` from ``player``'s side; None: the score
    #: difference. Set by a game whose scores say nothing in some phase (a setup).
    search_heuristic: Callable | None = None

    #: ``(copy_position, position_key)``, jitted, for the search agents (``mancala_envs.agents``),
    #: which copy a position and key their transposition table at every node:
    #: ``copy_position(target, source, params)`` is ``target[:] = source`` for a ``target`` that
    #: holds a position of the same game (or zeros), ``position_key(state, params)`` is exactly
    #: ``jit_helpers.hash_state(state)``. The defaults read every word; a game whose state is
    #: mostly zeros (a card game's empty cells, a repetition record sized for the ply cap) may
    #: read only the words in use, with the very same results.
    search_hooks: ClassVar[tuple[Callable, Callable]] = (copy_whole_state, whole_state_key)

    #: True when the kernel's ``apply`` calls compiled functions of its own rather than having
    #: everything inlined (the card games' ply and repetition record). The search loops
    #: (``mancala_envs.agents``) then hand the kernel the params array itself, not its entries in
    #: registers (``core.inline.params_reader``), so those functions run the one specialisation
    #: the env compiles (and caches) for an array, not a second one for a tuple: seconds of
    #: compile saved for a few memory loads a ply.
    search_params_as_array: ClassVar[bool] = False

    #: Optional ``legal_bits(state, params) -> int``, a jitted function (set it as a
    #: ``staticmethod``): the legal actions as a bit set, bit ``a`` for action ``a`` (games of at
    #: most 64 actions). A game that has it must build ``legal_mask`` from it (``mask_from_bits``
    #: in ``core.jit_helpers``), so legality keeps one definition; the random playouts
    #: (``core.playout``) then draw their moves from the bits and write no mask. None: the
    #: playouts read ``legal_mask``'s mask (``random_playouts(check_invariants=True)`` checks
    #: that the two agree).
    legal_bits: ClassVar[Callable | None] = None

    #: True when no rule reads the scores (moves only add to them) and ``position_key_indices``
    #: leaves them out: the exact solver's table then holds values relative to the mover's
    #: current margin, so positions that differ only in their scores share one entry.
    key_excludes_scores: bool = False

    def search_params_width(self) -> int | None:
        """A search loop's ``width`` for ``core.inline.params_reader``: the length of the params
        vector (its entries in registers), or None (the array itself) with ``search_params_as_array``."""
        return None if self.search_params_as_array else len(self.params)

    def position_key_indices(self) -> np.ndarray:
        """The state entries that decide the future of the game (int64 indices into the state).

        The exact solver (``mancala_envs.agents.solver``) keys its transposition table on
        them: two states equal on these entries have the same value, whatever path led to
        them. Leave out bookkeeping no rule reads (the last move, the ply counter when only
        ``max_plies`` reads it: a line that reaches the cap marks the solve inexact); keep a
        repetition record where a repetition decides the game. Default: every entry (always
        safe, finds fewer transpositions).
        """
        return np.arange(self.state_size, dtype=np.int64)

    def search_score_total(self, state: "State") -> int | None:
        """Most the two scores can add up to from ``state`` on, or None when unknown."""
        return self.conserved_total(state) if self.scores_only_grow else None

    def info(self, state: "State") -> dict[str, Any]:
        """Game-specific entries for the env's ``infos`` (e.g. a komi-adjusted margin)."""
        return {}

    #: The names of player_0's and player_1's seats in records and result lines (Afrika:
    #: North, South).
    seat_names: ClassVar[tuple[str, str]] = ("player_0", "player_1")

    def result_text(self, state: "State") -> str | None:
        """The result in the game's own words (Afrika: "South wins by 2.5 (...)"), or None:
        then records and the command line say "draw", "<seat> wins" or "game not over"."""
        return None

    def record_count(self, before: "State", action: int, after: "State") -> int | None:
        """A count a text record writes in brackets after the move ``before`` -> ``after``
        (Afrika: the stones a capture took), or None: nothing to write (the default)."""
        return None

    #: How whole games are written as text (a ``core.notation.TextRecordFormat``, e.g.
    #: ``NUMBERED_MOVE_PAIRS``), or None: the game's records are JSON only.
    text_record_format: ClassVar[Any] = None

    # -- public API -----------------------------------------------------------------------
    def new_state(self, seed: int | None = None) -> "State":
        """The start position. ``seed`` (None or an integer from 0 to 2**64 - 1) feeds the game's
        only random source (e.g. a deal)."""
        seed = checked_seed(seed, f"{self.env_id}: new_state")
        array = np.zeros(self.state_size, dtype=np.int32)
        self.kernel.init(array, self.params, np.random.default_rng(seed))
        return State(self, array)

    def state_from_json(self, payload: dict) -> "State":
        """Inverse of ``State.to_json``; also sets up any position by hand."""
        if not isinstance(payload, dict):
            raise InvalidStateError(
                f"{self.env_id}: state_from_json expects a dict like the one to_json() returns, "
                f"got {type(payload).__name__}"
            )
        array = self._state_from_json(payload)
        return State(self, np.ascontiguousarray(array, dtype=np.int32))

    def action_to_string(self, state: "State", action: int) -> str:
        """The action in the game's notation (``state`` gives the context, e.g. the mover)."""
        self.check_action(action)
        return self._action_to_string(state, int(action))

    def string_to_action(self, state: "State", text: str) -> int:
        """Parse a move in the game's notation; it must be legal in ``state``."""
        return self._string_to_action(state, text)

    def action_names(self, state: "State") -> dict[int, str]:
        """Every legal action of ``state`` with its name in the game's notation."""
        return {a: self._action_to_string(state, a) for a in state.legal_actions()}

    def describe(self) -> str:
        """First line of the family's docstring."""
        return (type(self).__doc__ or "").strip().splitlines()[0]

    def __repr__(self) -> str:
        changed = {k: v for k, v in self._overrides.items()}
        args = ", ".join(f"{k}={v!r}" for k, v in changed.items())
        return f"{type(self).__name__}({self.env_id!r}{', ' if args else ''}{args})"

    def __reduce__(self):
        return (_rebuild_game, (type(self), self.env_id, self._preset, self._overrides))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.options == self.options  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(self.options.items()))))

    def check_action(self, action: Any) -> int:
        """``action`` as an int of the action space; ``IllegalActionError`` otherwise (``core.checks``)."""
        return checked_action(action, self.env_id, self.num_actions)


def state_indices_except(game: Game, excluded) -> np.ndarray:
    """Every index of ``game``'s state but ``excluded`` (a ``Game.position_key_indices``)."""
    return np.setdiff1d(np.arange(game.state_size, dtype=np.int64), np.asarray(excluded, dtype=np.int64))


def view_cell(label: str, count: int, kind: str, owner: int | None = None, cards: list | None = None) -> dict:
    """One cell of a ``Game.board_view``."""
    cell = {"label": label, "count": int(count), "kind": kind, "owner": owner}
    if cards is not None:
        cell["cards"] = list(cards)
    return cell


def board_view_of(game: Game, state: "State", layout: str, cells: dict, rows: list, **fields: Any) -> dict:
    """A ``Game.board_view`` with the keys every game fills the same way; ``fields`` add or override."""
    view: dict[str, Any] = {
        "layout": layout,
        "cells": cells,
        "rows": rows,
        "row_titles": None,
        "near_seat": None,
        "seats": ["player_0", "player_1"],
        "score_name": "score",
        "scores": state.scores(),
        "to_move": state.current_player,
        "status": game.status_text(state),
        "details": [],
        "focus": [],
        "marks": {},
    }
    view.update(fields)
    return view


def _rebuild_game(cls, env_id, preset, overrides):
    return cls(env_id, preset, **overrides)


#: Most a counter of a JSON position (the ply count, a turn's moves left or bonus) may hold.
#: A move adds at most one to each counter, so a position loaded with this much still leaves
#: 2**30 moves before the kernel's int32 counters could overflow.
JSON_COUNTER_LIMIT = 2**30


def check_json_keys(payload: dict, known, owner: str, where: str = "a position") -> None:
    """Refuse keys of ``payload`` outside ``known``, naming them and the keys allowed."""
    unknown = sorted(str(k) for k in payload if k not in known)
    if unknown:
        raise InvalidStateError(
            f"{owner}: unknown state keys {unknown}; {where} has {', '.join(sorted(known))}"
        )


def _is_json_int(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, np.integer))


def json_int_list(payload: dict, key: str, length: int | None, owner: str, low: int = 0,
                  high: int = JSON_COUNTER_LIMIT) -> list[int]:
    """Read ``payload[key]`` as a list of integers from ``low`` to ``high`` (of ``length`` if given)."""
    if key not in payload:
        raise InvalidStateError(f"{owner}: state_from_json payload has no {key!r}")
    value = payload[key]
    if not isinstance(value, (list, tuple)):
        raise InvalidStateError(f"{owner}: {key!r} must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise InvalidStateError(f"{owner}: {key!r} must have {length} entries, got {len(value)}")
    out = []
    for i, item in enumerate(value):
        if not _is_json_int(item) or not low <= item <= high:
            raise InvalidStateError(f"{owner}: {key}[{i}] must be an integer >= {low} and at most {high}, got {item!r}")
        out.append(int(item))
    return out


def json_int(payload: dict, key: str, owner: str, low: int, high: int, default: Any = None) -> int:
    """Read ``payload[key]`` as an integer in [low, high]; ``default`` when missing (if given)."""
    if key not in payload:
        if default is not None:
            return default
        raise InvalidStateError(f"{owner}: state_from_json payload has no {key!r}")
    value = payload[key]
    if not _is_json_int(value) or not low <= value <= high:
        raise InvalidStateError(f"{owner}: {key!r} must be an integer from {low} to {high}, got {value!r}")
    return int(value)


def json_plies(payload: dict, owner: str) -> int:
    """Read ``payload["plies"]`` (0 when missing): from 0 to ``JSON_COUNTER_LIMIT``."""
    return json_int(payload, "plies", owner, 0, JSON_COUNTER_LIMIT, default=0)


def json_bool(payload: dict, key: str, owner: str, default: bool | None = None) -> bool | None:
    """Read ``payload[key]`` as true or false; ``default`` when missing."""
    if key not in payload:
        return default
    value = payload[key]
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidStateError(f"{owner}: {key!r} must be true or false, got {value!r}")
    return bool(value)


class State:
    """One position of a game: the flat state array plus its ``Game``.

    ``apply`` validates its action and raises ``IllegalActionError`` (naming the action and
    the legal ones) for anything out of range or illegal; everything else reads the array.
    """

    # The player to move and the legal mask are cached until the next apply(): the env asks
    # for them several times per step and each kernel call costs a dispatch.
    __slots__ = ("game", "array", "_mask", "_mask_valid", "_player")

    def __init__(self, game: Game, array: np.ndarray):
        self.game = game
        self.array = array
        self._mask = np.zeros(game.num_actions, dtype=np.int8)
        self._mask_valid = False
        self._player: int | None = None

    # -- reading ----------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        """The player to move (0 or 1), or -1 once the game is over."""
        if self._player is None:
            self._player = int(self.game.kernel.current_player(self.array, self.game.params))
        return self._player

    @property
    def plies(self) -> int:
        """Moves played since the start position (every action counts, setup steps included)."""
        return int(self.game.kernel.plies(self.array, self.game.params))

    def is_terminal(self) -> bool:
        return self.current_player < 0

    def is_truncated(self) -> bool:
        """The game is not over but has reached its ply cap (``max_plies``): never a draw or a win."""
        return self.current_player >= 0 and self.plies >= self.game.ply_cap

    def _legal(self) -> np.ndarray:
        if not self._mask_valid:
            self.game.kernel.legal_mask(self.array, self.game.params, self._mask)
            self._mask_valid = True
        return self._mask

    def action_mask(self) -> np.ndarray:
        """int8 vector of length ``num_actions``: 1 where the action is legal."""
        return self._legal().copy()

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self._legal()).tolist()

    def is_legal(self, action: Any) -> bool:
        """True when ``action`` is a legal action here. Never raises: anything that is not an
        integer of the action space (a float such as 2.5 or 2.0, a bool, a string, None, an
        integer out of range) is simply not a legal action, and the caller, who knows where the
        action came from (an agent, a record, a player), names it in its own error."""
        return is_integer(action) and 0 <= action < self.game.num_actions and bool(self._legal()[int(action)])

    def scores(self) -> list[int]:
        """The rules' counts, player 0 first (integers for every game so far)."""
        out = np.zeros(2, dtype=np.float64)
        self.game.kernel.scores(self.array, self.game.params, out)
        return [int(v) if float(v).is_integer() else float(v) for v in out]

    def returns(self) -> list[float]:
        """+1/-1/0 per player once the game is over; zeros before."""
        out = np.zeros(2, dtype=np.float64)
        self.game.kernel.returns(self.array, self.game.params, out)
        return out.tolist()

    def observation(self, player: int) -> np.ndarray:
        """The observation tensor as ``player`` sees it (documented in the game's docstring)."""
        out = np.zeros(self.game.observation_size, dtype=np.float32)
        self.game.kernel.observe(self.array, self.game.params, int(player), out)
        return out

    def to_json(self) -> dict:
        return self.game._state_to_json(self.array)

    def __str__(self) -> str:
        return self.game._render_text(self)

    def __repr__(self) -> str:
        return f"<State of {self.game.env_id}: {self.to_json()}>"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, State) and other.game == self.game and np.array_equal(other.array, self.array)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    # -- changing ---------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        """Play ``action`` for the player to move."""
        game = self.game
        action = game.check_action(action)
        if self.is_terminal():
            raise IllegalActionError(f"{game.env_id}: the game is over; no action can be applied")
        if not self._legal()[action]:
            legal = self.legal_actions()
            raise IllegalActionError(
                f"{game.env_id}: action {action} ({game._action_to_string(self, action)}) is not legal "
                f"for player {self.current_player} here; legal actions are {legal}"
            )
        game.kernel.apply(self.array, game.params, action)
        self._mask_valid = False
        self._player = None

    def clone(self) -> "State":
        twin = State(self.game, self.array.copy())
        twin._player = self._player
        if self._mask_valid:
            twin._mask[:] = self._mask
            twin._mask_valid = True
        return twin

    # -- pictures: the raster frames' layout, colours and last-move ring, as SVG (no pygame) -----
    def to_svg(self, last=None, near_seat: int | None = None) -> str:
        """This position as an SVG document (``mancala_envs.render.svg.state_svg``); ``last`` is a
        ``render.LastMove`` to ring, ``near_seat`` the seat drawn nearest on a two-row board."""
        return state_svg(self, last, near_seat)

    def save_svg(self, path, last=None, near_seat: int | None = None) -> None:
        """``to_svg()`` written to ``path`` (atomically)."""
        write_svg(self.to_svg(last, near_seat), path)

    def _repr_svg_(self) -> str:
        """How a notebook (IPython, Jupyter) shows a position."""
        return self.to_svg()

    def __copy__(self) -> "State":
        return self.clone()

    def __deepcopy__(self, memo) -> "State":
        return self.clone()

    def __getstate__(self):
        return (self.game, self.array)

    def __setstate__(self, data):
        self.game, self.array = data
        self._mask = np.zeros(self.game.num_actions, dtype=np.int8)
        self._mask_valid = False
        self._player = None
