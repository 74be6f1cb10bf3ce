"""Widdershins: David Parlett's 52-card mancala (1996), with Gering's and Parlett's endings.

Rules source: the Mancala World article "Widdershins" (inventor David Parlett), with the
package rulings below. One numba kernel plays both endings.

Registered ids
--------------
===========================  ==============================================================
``widdershins-v0``           Ralf Gering's ending (the default): the game ends when a player
                             has fewer than 6 cards in play; a repeated position is a draw.
``widdershins-parlett-v0``   Parlett's ending and score, with the resign action.
===========================  ==============================================================

Board and numbering
-------------------
Twelve positions in a fixed ring, counterclockwise ("widdershins")::

      N6  N5  N4  N3  N2  N1        <- North's row (player_1), left to right as North sees it
      S1  S2  S3  S4  S5  S6        <- South's row (player_0), left to right as South sees it

Ring order: S1 .. S6, N1 .. N6, S1, ... (N1 is above S6). ``S_i`` faces ``N_(7-i)``.
Positions are never removed, even when vacant.

Cards
-----
A 52-card deck; card id ``suit*13 + rank-1`` with suits C, D, H, S (D and H red, C and S
black) and ranks A=1, 2..10, J=11, Q=12, K=13; written ``"AS"``, ``"10H"``, ``"QD"``.

Rules
-----
1. Deal (seeded): the deck (ids 0..51) is shuffled with ``Generator.shuffle`` of the
   ``numpy.random.Generator`` made from the seed given to ``new_state`` / ``reset``. Cards
   0..47 go one at a time round the ring from S1 (card ``k`` to position ``k mod 12``), then
   cards 48..51 onto S1, S2, N1, N2: stacks of 5, 5, 4, 4, 4, 4 a side, the last card dealt
   on top, all face up.
2. South (``player_0``) takes the colour of S1's top card, North the other. A stack belongs
   to the player of its top card's colour.
3. South moves first and must sow S1. Afterwards a player moves a stack they own, from their
   own row if they own any there, otherwise from the other row. A player who owns no stack
   passes (the pass action, legal only then).
4. A stack of 2 or more is sown top card first, one card per position onto the following
   positions round the ring, occupied or vacant (none skipped).
5. A single card moves: 2..10 that many positions on; an Ace one position either way; J, Q
   and K jump across the board to the same column (``S_i`` to ``N_(7-i)`` and back).
6. Where the last card (or the single card) lands decides:

   * a vacant position: the move ends;
   * the mover's colour on a stack of the mover's: that stack is lifted and sown on (rule 4);
   * the opponent's colour on a stack of the opponent's: the move ends;
   * one colour on the other (the dropped card and the landing stack's top card differ in
     colour): same rank: both cards are captured; dropped card higher: every card of the
     landing top card's colour in that stack is captured (the dropped card stays on top);
     dropped card lower: the dropped card alone is captured. Then the move ends. Values
     dropped: 2..10, J 11, Q 12, K 13, A 14; dropped on: A 1, 2..10, J 11, Q 12, K 13.

7. ``ending="gering"``: the game ends as soon as a player has fewer than 6 cards (of their
   colour) in play. More cards wins; equal is a draw; a position that repeats (same stacks,
   same player to move) is a draw. Score: the winner scores the difference (the loser 0).
8. ``ending="parlett"``: the game ends when one colour is gone, or no position holds more
   than one card, or the player with fewer cards resigns (the resign action, legal only when
   fewer than 13 cards remain in play and the mover has fewer than the opponent). The
   player with more cards scores their count divided by the other's, rounded down, or twice
   their count if the other has none; the other scores 0. Equal counts: a draw, 0-0.

Package rulings (points the rules leave open)
---------------------------------------------
* The deal goes one card at a time round the ring (rule 1).
* The last two cards of the deal go to N1 and N2: the package's reading of the rule text's
  "from the right of the North row", which it follows wherever the two could differ.
* Every Ace standing alone on an owned stack has two actions (one per direction), so there
  is one "Ace clockwise" action per position (actions 12..23), not a single one.
* A repetition (Gering) compares positions at the start of each turn: every stack's cards in
  order and the player to move. The start position (with South's forced move pending) is
  never equal to a later one. Parlett's rules have no repetition ending (games that cycle
  are truncated by ``max_plies``).
* Scores during play are the same formula applied to the cards in play now; a draw by
  repetition scores 0-0 whatever the counts.
* A move whose laps go on for ``MAX_LAPS`` (1000) laps ends there: a safeguard against an
  endless move, which the rules do not settle. It never happened in 10^5 random games per
  id; if it does, ``info()`` and ``to_json()`` report ``lap_limit`` (such a position cannot
  be loaded back).
* Cards in play are counted by colour, so each player's count is the number of cards of
  their colour still on the board.

Options
-------
=============== =========== ===================================================================
option          default     allowed
=============== =========== ===================================================================
``ending``      "gering"    "gering", "parlett"
``max_plies``   1000        1 to 100000 (no None: the repetition record is sized by it)
=============== =========== ===================================================================

Actions
-------
``Discrete(26)``, mover-relative: position ``j`` of the mover's view is the ring counted from
the mover's own first stack (South: S1..S6, N1..N6; North: N1..N6, S1..S6).

* ``j`` (0..11): move the stack at view position ``j`` (sow it; a single card moves by its
  rank; a single Ace moves one position counterclockwise). Notation ``"S3"``, ``"N1"``
  (absolute), ``"S3a"`` for a single Ace moving counterclockwise.
* ``12 + j``: the single Ace at view position ``j`` moves one position clockwise (``"S3c"``).
* ``24``: pass (``"pass"``). ``25``: resign (``"resign"``, Parlett's ending only).

Observation
-----------
``Box(0, 52, (12*52*3 + 12 + 12 + 5,), float32)``, relative to the observer; view position
``v`` is the observer's ``v``-th position (their own row first):

======================= ===================================================================
index                   meaning
======================= ===================================================================
``(v*52 + k)*3 + 0``    rank of the ``k``-th card from the TOP of view stack ``v`` (A=1 ..
                        K=13; 0 no card)
``(v*52 + k)*3 + 1``    its colour: 1 mine, 2 the opponent's, 0 no card
``(v*52 + k)*3 + 2``    its suit: 1 C, 2 D, 3 H, 4 S, 0 no card
``1872 + v``            height of view stack ``v``
``1884 + v``            owner of view stack ``v``: 1 me, 2 the opponent, 0 vacant
``1896``                my cards in play
``1897``                the opponent's cards in play
``1898``                1 if it is my turn
``1899``                1 while South's forced first move is pending
``1900``                1 if I may resign now
======================= ===================================================================

Rewards and scores
------------------
+1/-1/0 at the end from the scores; 0 on every other step and on truncation.

State layout (``numpy.int32``)
------------------------------
::

    0 .. 623        cells: stack i's card j (0 = bottom) at i*52 + j, card id + 1 (0 none)
    624 .. 635      heights
    header          to_move, done, plies, first_move, south_colour (0 red, 1 black), end,
                    last_mover, captured red, captured black, lap_limit, the stacks' share
                    of the position hash (updated card by card; 0 with Parlett's ending),
                    the tops as 12-bit sets (bit i: stack i): stacks with a card, stacks
                    with a red top card, stacks holding a lone Ace (updated card by card,
                    derived from the stacks; what ``legal_mask`` reads)
    snapshot        heights [12], cards stack by stack [52 + 16], to_move, first_move
    record          count, entries [max_plies+1] (hash bits and action, two a word)

``to_json()`` gives every stack bottom to top as card names and, with Gering's ending, the
repetition record as ``history`` (the position after the last capture and the actions since,
see ``mancala_envs.core.repetition``); ``state_from_json`` rebuilds the record by replaying
it, or starts a fresh one when ``history`` is left out.

Rendering
---------
``render_mode="rgb_array"`` frames are 960 x 720 (W x H): drawn from South's seat, North's
row N6..N1 far and South's S1..S6 near, every stack's cards face up and fanned toward its
row's player (North's upside down, as North reads them), each stack marked with its owner,
the cards in play in the footer (``WiddershinsGame.board_view``). ``mancala play ID
--window``: click a stack to move it; a lone Ace's cell is split, left and right half
for the way it goes; pass and resign are buttons.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

import re

import numpy as np
from numba import njit

from ..core.deal import shuffle_deck
from ..core.jit_helpers import bit_count, mask_from_bits
from ..core.errors import InvalidStateError, NotationError
from ..core.game import (
    MAX_PLIES_OPTION_DOC, Game, Kernel, State, Variant, board_view_of, check_json_keys, json_bool, json_int, json_int_list,
    json_plies, state_indices_except, view_cell,
)
from ..core.outcome import set_returns
from ..core.options import Option
from ..core.repetition import (
    cell_key,
    cells_hash,
    fields_hash,
    rep_actions,
    rep_block_size,
    rep_clear,
    rep_count,
    rep_push,
    record_ply,
    replay_checked,
    snapshot_field,
    snapshot_restore,
    snapshot_size,
    snapshot_take,
    stack_hash,
    stacks_equal,
    unsigned_index,
)

N_POS = 12
CAP = 52  # cells per stack
NUM_ACTIONS = 26
A_ACE_CW = 12
A_PASS = 24
A_RESIGN = 25
MAX_LAPS = 1000

# -- parameter vector: the options of PARAM_OPTIONS (Option.encode), then derived values ----
P_ENDING = 0
P_CAP = 1
P_O_REP = 2
# values of the choice option ``ending``: the index of the choice (Option.encode)
ENDING_GERING = 0
ENDING_PARLETT = 1

O_H = N_POS * CAP  # 624
O_HEAD = O_H + N_POS  # 636
H_TO_MOVE = 0
H_DONE = 1
H_PLIES = 2
H_FIRST = 3
H_SOUTH_COLOUR = 4
H_END = 5
H_LAST_MOVER = 6
H_CAPTURED = 7  # 7 red, 8 black
H_LAP_LIMIT = 9
H_HASH = 10  # the stacks' share of the position hash (core.repetition.cells_hash), kept move by move
# The tops, kept move by move for legal_mask (bit i: stack i): stacks with a card, stacks whose top
# card is red, stacks that hold a lone Ace. Derived from the stacks (_reset_tops), never decisive.
H_NONEMPTY = 11
H_RED_TOPS = 12
H_LONE_ACES = 13
HEADER_SIZE = 14
# The header entries that belong to a position for the repetition rule (hashed, snapshotted).
POSITION_FIELDS = (H_TO_MOVE, H_FIRST)
O_SNAP = O_HEAD + HEADER_SIZE
SNAP_SIZE = snapshot_size(N_POS, CAP, len(POSITION_FIELDS))
O_REP = O_SNAP + SNAP_SIZE
# The layout as the stacked-card helpers of core.repetition take it, as numpy integers. A Python
# int passed to a jitted function is typed as its value (a literal), and the helper compiled for
# those values gets its loops over the stacks unrolled by LLVM: several times the code, which
# every function that calls it, the search loops included, optimises and compiles again. A numpy
# integer is a plain int64: one compiled helper, its loops kept as loops. The exception is
# snapshot_take, taken after every capture: given the layout as literals, its loop over the stacks
# is unrolled (the block copies at fixed places), which the random playouts' speed keeps.
_STACKS, _CELLS, _HEIGHTS, _HEAD, _SNAP = (np.int64(v) for v in (N_POS, CAP, O_H, O_HEAD, O_SNAP))
_FIELDS = tuple(np.int64(f) for f in POSITION_FIELDS)

END_NONE = 0
END_FEW_CARDS = 1
END_REPETITION = 2
END_COLOUR_GONE = 3
END_SINGLES = 4
END_RESIGN = 5
END_NAMES = (None, "few_cards", "repetition", "colour_gone", "singletons", "resign")

SUITS = "CDHS"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
COLOUR_NAMES = ("red", "black")

# the keys of a position's JSON and of its history (WiddershinsGame._state_to_json)
JSON_KEYS = ("stacks", "to_move", "south_colour", "first_move", "plies", "last_mover", "terminal", "end", "lap_limit",
             "history")
HISTORY_KEYS = ("stacks", "to_move", "first_move", "actions")
POSITION_NAMES = tuple([f"S{i}" for i in range(1, 7)] + [f"N{i}" for i in range(1, 7)])


def card_name(card: int) -> str:
    return RANKS[card % 13] + SUITS[card // 13]


def parse_card(text: str) -> int:
    match = re.fullmatch(r"(A|[2-9]|10|J|Q|K)([CDHS])", text.strip().upper()) if isinstance(text, str) else None
    if not match:
        raise ValueError(text)
    return SUITS.index(match.group(2)) * 13 + RANKS.index(match.group(1))


# -- kernel helpers -------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _colour(cell):
    """Colour of a stored cell (card id + 1): 0 red (D, H), 1 black (C, S). The red cards are
    ids 13 .. 38 (D then H), i.e. cells 14 .. 39: one comparison, no division."""
    return 0 if 14 <= cell <= 39 else 1


@njit(cache=True, inline="always")
def _rank(cell):
    """Rank of a stored cell holding a card (cell >= 1): A=1 .. K=13. The remainder taken
    unsigned: a signed one costs numba's sign fix-ups (about 13 instructions, not 5)."""
    return np.int64(np.uint64(cell - 1) % np.uint64(13)) + 1


@njit(cache=True, inline="always")
def _ring(p):
    """Position ``p`` (0 .. 2 * N_POS - 1) taken round the ring: one compare, no division."""
    return p - N_POS if p >= N_POS else p


_u = unsigned_index  # every index into the state below is >= 0; unsigned, numba does not wrap it

# Bit sets over the stored cells (card id + 1; 0 is no card): the red cards, the Aces.
_RED_CELLS = np.int64(sum(1 << cell for cell in range(14, 40)))
_ACE_CELLS = np.int64((1 << 1) | (1 << 14) | (1 << 27) | (1 << 40))


@njit(cache=True, inline="always")
def _is_red(cell):
    """1 if stored ``cell`` holds a red card, else 0 (a black card or no card)."""
    return (_RED_CELLS >> cell) & 1


@njit(cache=True, inline="always")
def _is_ace(cell):
    return (_ACE_CELLS >> cell) & 1


@njit(cache=True, inline="always")
def _set_top(state, pos, top, height):
    """Stack ``pos`` now has ``height`` cards, ``top`` (a stored cell) on top: its bits in the
    header's tops (H_NONEMPTY, H_RED_TOPS, H_LONE_ACES)."""
    keep = ~(np.int64(1) << pos)
    head = O_HEAD
    state[head + H_NONEMPTY] = (state[head + H_NONEMPTY] & keep) | (np.int64(height > 0) << pos)
    state[head + H_RED_TOPS] = (state[head + H_RED_TOPS] & keep) | (_is_red(top) << pos)
    state[head + H_LONE_ACES] = (state[head + H_LONE_ACES] & keep) | ((_is_ace(top) & np.int64(height == 1)) << pos)


@njit(cache=True, inline="always")
def _retop(state, pos):
    """Stack ``pos`` changed: read its height and top, set its bits in the tops."""
    h = state[_u(O_H + pos)]
    _set_top(state, pos, state[_u(pos * CAP + (h - 1 if h > 0 else 0))], h)


@njit(cache=True)
def _reset_tops(state):
    """The tops from scratch (after a deal, a load or a restore)."""
    state[O_HEAD + H_NONEMPTY] = 0
    state[O_HEAD + H_RED_TOPS] = 0
    state[O_HEAD + H_LONE_ACES] = 0
    for pos in range(N_POS):
        _retop(state, pos)


@njit(cache=True, inline="always")  # one load: a call (and a compile per argument type) costs more
def _player_colour(state, player):
    sc = state[O_HEAD + H_SOUTH_COLOUR]
    return sc if player == 0 else 1 - sc


@njit(cache=True, inline="always")  # one load: a call (and a compile per argument type) costs more
def _cards_in_play(state, colour):
    return 26 - state[_u(O_HEAD + H_CAPTURED + colour)]


@njit(cache=True)
def player_cards(state, player):
    """The cards of ``player``'s colour still in play (what both endings count; public for
    ``mancala_envs.agents.learned.move_features``, which reads a move's captures from the afterstate)."""
    return _cards_in_play(state, _player_colour(state, player))


@njit(cache=True)
def pass_turn(state, params):
    """Give the turn to the other player without a move: a *null move*, not a rule of the game
    (the repetition record is left as it is). For look-ahead features that ask what a player
    could capture were it their turn (``mancala_envs.agents.learned.move_features``)."""
    state[O_HEAD + H_TO_MOVE] = 1 - state[O_HEAD + H_TO_MOVE]


@njit(cache=True, inline="always")
def _position_hash(state):
    """The position's hash: the stacks' share, kept in the header, and the position fields."""
    return state[O_HEAD + H_HASH] ^ fields_hash(state, N_POS, CAP, O_HEAD, POSITION_FIELDS)


@njit(cache=True)
def _reset_hash(state):
    """Compute the stacks' share of the hash from scratch (after a deal, a load or a restore)."""
    state[O_HEAD + H_HASH] = cells_hash(state, _STACKS, _CELLS, _HEIGHTS)


@njit(cache=True, inline="always")
def _toggle(state, index, cell, hashed):
    """Card ``cell`` arrives at or leaves cell ``index``: XOR its key into the hash (with
    ``hashed``: only Gering's ending has a repetition rule, and so a hash to keep)."""
    if hashed:
        state[O_HEAD + H_HASH] ^= cell_key(index, cell)


@njit(cache=True)
def _new_stretch(state, params):
    snapshot_take(state, N_POS, CAP, O_H, O_HEAD, POSITION_FIELDS, O_SNAP)  # literals: unrolled (see _STACKS)
    rep = params[P_O_REP]
    cap = params[P_CAP]
    rep_clear(state, rep, cap)
    rep_push(state, rep, cap, _position_hash(state), np.int64(-1))  # the action type of record_ply: one compile


@njit(cache=True, inline="always")
def _load_snapshot(state, params):
    snapshot_restore(state, _STACKS, _CELLS, _HEIGHTS, _HEAD, _FIELDS, _SNAP)
    state[O_HEAD + H_DONE] = 0
    _reset_hash(state)
    _reset_tops(state)


@njit(cache=True, inline="always")
def _same_position(a, b, params):
    return stacks_equal(a, b, _STACKS, _CELLS, _HEIGHTS, _HEAD, _FIELDS)


@njit(cache=True)
def _capture(state, cell):
    state[O_HEAD + H_CAPTURED + _colour(cell)] += 1


@njit(cache=True, inline="always")  # compiled into _move, its one caller
def _land(state, pos, cell, my_colour, hashed):
    """Drop ``cell`` on ``pos`` as the last card; return True if the move continues from pos."""
    h = state[_u(O_H + pos)]
    base = pos * CAP
    if h == 0:
        state[_u(base)] = cell
        state[_u(O_H + pos)] = 1
        _toggle(state, base, cell, hashed)
        _set_top(state, pos, cell, 1)
        return False
    top = state[_u(base + h - 1)]
    c = _colour(cell)
    tc = _colour(top)
    state[_u(base + h)] = cell
    state[_u(O_H + pos)] = h + 1
    if c == tc:
        _toggle(state, base + h, cell, hashed)
        _set_top(state, pos, cell, h + 1)  # on a card of its own colour: never a lone Ace
        return c == my_colour  # own card on own stack: lift and sow on; else the move ends
    dropped_rank = _rank(cell)
    top_rank = _rank(top)
    if dropped_rank == top_rank:  # both captured
        _toggle(state, base + h - 1, top, hashed)
        state[_u(base + h)] = 0
        state[_u(base + h - 1)] = 0
        state[_u(O_H + pos)] = h - 1
        _capture(state, cell)
        _capture(state, top)
        _retop(state, pos)
        return False
    dv = 14 if dropped_rank == 1 else dropped_rank
    if dv > top_rank:  # (a top Ace counts 1) every card of the top's colour goes
        if hashed:
            state[O_HEAD + H_HASH] ^= stack_hash(state, pos, CAP, h)  # out: the stack before the drop
        # keep the other colour's cards in order, without a branch per card (the colours
        # come in no order a branch could predict); all that go are of the top's colour
        k = 0
        for j in range(h + 1):
            x = state[_u(base + j)]
            state[_u(base + j)] = 0  # emptied as read (k <= j): no second loop (LLVM made it a memset call)
            state[_u(base + k)] = x
            k += 1 if _colour(x) != tc else 0
        state[O_HEAD + H_CAPTURED + tc] += h + 1 - k
        state[_u(O_H + pos)] = k
        if hashed:
            state[O_HEAD + H_HASH] ^= stack_hash(state, pos, CAP, k)  # in: what is left
        _retop(state, pos)
        return False
    # the dropped card alone is captured (the stack, and so its top, as before)
    state[_u(base + h)] = 0
    state[_u(O_H + pos)] = h
    _capture(state, cell)
    return False


@njit(cache=True, inline="always")
def single_card_target(pos, rank, clockwise):
    """Where a single card of ``rank`` at ``pos`` moves: an Ace one position (clockwise or
    counterclockwise), a J, Q or K straight across the board, any other card ``rank``
    positions counterclockwise. The one definition of that rule (the move features read it
    too)."""
    # selects, not branches: the rank of the card moved is random
    ace = _ring(pos + N_POS - 1 if clockwise else pos + 1)
    across = N_POS - 1 - pos
    counted = _ring(pos + rank)
    return ace if rank == 1 else (across if rank >= 11 else counted)


@njit(cache=True, inline="always")  # compiled into _play, its one caller: a call costs about 40 instructions
def _move(state, pos, clockwise, my_colour, hashed):
    """Move the stack at ``pos``: sow it (2 or more cards) or move its single card; where the
    last card lands decides (_land), and the laps go on while the rules say so. One loop, so
    that _land has one call site and is compiled into it (no call, no reference counting)."""
    laps = 0
    while True:
        n = state[_u(O_H + pos)]
        if n < 2:  # a single card (only ever the first step: a lap lifts 2 or more cards)
            last = state[_u(pos * CAP)]
            _toggle(state, pos * CAP, last, hashed)
            state[_u(pos * CAP)] = 0
            state[_u(O_H + pos)] = 0
            _set_top(state, pos, 0, 0)
            q = single_card_target(pos, _rank(last), clockwise)
        else:
            laps += 1
            base = pos * CAP
            hs = state[O_HEAD + H_HASH]
            if hashed:
                hs ^= stack_hash(state, pos, CAP, n)  # the lifted stack out
            # top card first, each cell emptied as it is read. A stack of up to N_POS cards is read
            # downwards where it lies (the origin receives none of its cards); a taller one is
            # reversed first and read upwards: the origin receives cards again from its 12th card
            # on, one per lap of the ring, into cells the reading has already passed.
            src = base + n - 1
            step = -1
            if n > N_POS:
                lo = base
                hi = base + n - 1
                while lo < hi:
                    tmp = state[_u(lo)]
                    state[_u(lo)] = state[_u(hi)]
                    state[_u(hi)] = tmp
                    lo += 1
                    hi -= 1
                src = base
                step = 1
            state[_u(O_H + pos)] = 0
            # the tops in registers while sowing (the stores to the cells could alias the header):
            # the lifted stack is empty, and each card sown becomes its stack's top
            keep = ~(np.int64(1) << pos)
            nonempty = state[O_HEAD + H_NONEMPTY] & keep
            red = state[O_HEAD + H_RED_TOPS] & keep
            aces = state[O_HEAD + H_LONE_ACES] & keep
            q = pos
            for k in range(n - 1):
                cell = state[_u(src)]
                state[_u(src)] = 0
                src += step
                q = q + 1 if q < N_POS - 1 else 0
                hq = state[_u(O_H + q)]
                state[_u(q * CAP + hq)] = cell
                state[_u(O_H + q)] = hq + 1
                if hashed:
                    hs ^= cell_key(q * CAP + hq, cell)
                bit = np.int64(1) << q
                nonempty |= bit
                red = (red & ~bit) | (_is_red(cell) << q)
                aces = (aces & ~bit) | ((_is_ace(cell) & np.int64(hq == 0)) << q)
            state[O_HEAD + H_HASH] = hs
            state[O_HEAD + H_NONEMPTY] = nonempty
            state[O_HEAD + H_RED_TOPS] = red
            state[O_HEAD + H_LONE_ACES] = aces
            last = state[_u(src)]
            state[_u(src)] = 0
            q = q + 1 if q < N_POS - 1 else 0
        if not _land(state, q, last, my_colour, hashed):
            return
        if laps >= MAX_LAPS:
            state[O_HEAD + H_LAP_LIMIT] += 1
            return
        pos = q


@njit(cache=True, inline="always")  # compiled into _play, its one caller
def _settle(state, params):
    """End tests after a ply (not repetition)."""
    head = O_HEAD
    red = _cards_in_play(state, 0)
    black = _cards_in_play(state, 1)
    if params[P_ENDING] == ENDING_GERING:
        if red < 6 or black < 6:
            state[head + H_DONE] = 1
            state[head + H_END] = END_FEW_CARDS
        return
    if red == 0 or black == 0:
        state[head + H_DONE] = 1
        state[head + H_END] = END_COLOUR_GONE
        return
    # no stack holds two cards exactly when every card in play lies alone: as many stacks
    # with a card (the kept tops) as cards in play; no scan, no branch per stack
    if bit_count(state[head + H_NONEMPTY]) == red + black:
        state[head + H_DONE] = 1
        state[head + H_END] = END_SINGLES


# Compiled without numba's reference counting (``_nrt=False``: it allocates nothing). With it,
# every inlined helper that takes the state counts a reference to it, and the counts that cross
# the landing's branches stay: about 8 calls of NRT_incref / NRT_decref a move.
@njit(cache=True, _nrt=False)
def _play(state, params, action):
    """One ply without the record. Returns True if it captured a card."""
    head = O_HEAD
    mover = state[head + H_TO_MOVE]
    state[head + H_PLIES] += 1
    state[head + H_LAST_MOVER] = mover
    before = state[head + H_CAPTURED] + state[head + H_CAPTURED + 1]
    if action == A_RESIGN:
        state[head + H_DONE] = 1
        state[head + H_END] = END_RESIGN
        state[head + H_TO_MOVE] = 1 - mover
        return False
    if action != A_PASS:
        clockwise = action >= A_ACE_CW
        rel = action - A_ACE_CW if clockwise else action
        pos = _ring(rel + 6 * mover)
        _move(state, pos, clockwise, _player_colour(state, mover), params[P_ENDING] == ENDING_GERING)
    state[head + H_FIRST] = 0
    state[head + H_TO_MOVE] = 1 - mover
    _settle(state, params)
    return state[head + H_CAPTURED] + state[head + H_CAPTURED + 1] != before


@njit(cache=True)
def _record(state, params, action, captured):
    if captured:
        _new_stretch(state, params)
        return
    h = _position_hash(state)
    look = not state[O_HEAD + H_DONE]
    rep = params[P_O_REP]
    if record_ply(state, params, rep, params[P_CAP], action, h, look, _new_stretch, _load_snapshot, _play, _same_position):
        state[O_HEAD + H_DONE] = 1
        state[O_HEAD + H_END] = END_REPETITION


# -- kernel ---------------------------------------------------------------------------------
@njit(cache=True)
def init(state, params, rng):
    state[:] = 0
    deck = np.empty(52, np.int64)  # the deck in order: np.arange(52), without compiling np.arange (np.empty is its part)
    for card in range(52):
        deck[card] = card
    shuffle_deck(rng, deck)  # = rng.shuffle(deck), draw for draw (core.deal)
    for k in range(48):  # one card at a time round the ring: card k at position k mod 12, height k // 12
        state[_u((k % N_POS) * CAP + k // N_POS)] = deck[k] + 1
    for pos in range(N_POS):
        state[O_H + pos] = 4
    for i, pos in enumerate((0, 1, 6, 7)):  # the last four cards on S1, S2, N1, N2
        state[pos * CAP + 4] = deck[48 + i] + 1
        state[O_H + pos] = 5
    state[O_HEAD + H_FIRST] = 1
    state[O_HEAD + H_SOUTH_COLOUR] = _colour(state[state[O_H] - 1])
    state[O_HEAD + H_LAST_MOVER] = -1
    _reset_tops(state)
    if params[P_ENDING] == ENDING_GERING:
        _reset_hash(state)
        _new_stretch(state, params)


@njit(cache=True, inline="always")
def _owned_stacks(state, mover, colour):
    """Bit masks over the mover's view positions (bit ``j``: view position ``j``): the stacks
    the mover owns, and of those the lone Aces. Read from the tops the ply keeps in the header
    (``H_NONEMPTY``, ``H_RED_TOPS``, ``H_LONE_ACES``), over the absolute positions; North's
    masks are turned by 6. Branch-free: which stacks a player owns follows the colours of the
    top cards, which no branch predictor can guess."""
    red = np.int64(state[O_HEAD + H_RED_TOPS])
    black = np.int64(state[O_HEAD + H_NONEMPTY]) & ~red
    owned = black if colour else red
    aces = owned & state[O_HEAD + H_LONE_ACES]
    turn = 6 * mover  # North's view position j is position j + 6
    owned = ((owned >> turn) | (owned << (N_POS - turn))) & 0xFFF
    aces = ((aces >> turn) | (aces << (N_POS - turn))) & 0xFFF
    return owned, aces


@njit(cache=True, inline="always")
def legal_bits(state, params):
    """The legal actions as a bit set (bit ``a``: action ``a``): the one definition of which
    moves are legal. ``legal_mask`` writes it out; the random playouts draw from it directly
    (``Game.legal_bits``)."""
    head = O_HEAD
    done = state[head + H_DONE] != 0
    first = state[head + H_FIRST] != 0
    mover = state[head + H_TO_MOVE]
    colour = _player_colour(state, mover)
    owned, aces = _owned_stacks(state, mover, colour)
    # own row first; the other row only if nothing is owned there
    rows = owned & 0x3F if owned & 0x3F else owned
    if done or first:
        rows = 0
    aces &= rows
    forced = first and not done  # South's first move: S1, the only legal action
    passes = rows == 0 and not done and not first
    resign = False
    if params[P_ENDING] == ENDING_PARLETT and not done and not first:
        mine = _cards_in_play(state, colour)
        theirs = _cards_in_play(state, 1 - colour)
        resign = mine + theirs < 13 and mine < theirs
    return (rows | (aces << A_ACE_CW) | (np.int64(passes) << A_PASS) | (np.int64(resign) << A_RESIGN)
            | np.int64(forced))


@njit(cache=True)
def legal_mask(state, params, mask):
    return mask_from_bits(mask, legal_bits(state, params), NUM_ACTIONS)


@njit(cache=True)
def apply(state, params, action):
    captured = _play(state, params, np.int64(action))  # one action type: _play compiles once per params type
    if params[P_ENDING] == ENDING_GERING:
        _record(state, params, np.int64(action), captured)


@njit(cache=True)
def current_player(state, params):
    if state[O_HEAD + H_DONE]:
        return -1
    return state[O_HEAD + H_TO_MOVE]


@njit(cache=True)
def scores(state, params, out):
    c0 = _cards_in_play(state, _player_colour(state, 0))
    c1 = _cards_in_play(state, _player_colour(state, 1))
    out[0] = 0.0
    out[1] = 0.0
    if state[O_HEAD + H_END] == END_REPETITION:
        return
    if params[P_ENDING] == ENDING_GERING:
        if c0 > c1:
            out[0] = c0 - c1
        elif c1 > c0:
            out[1] = c1 - c0
        return
    if c0 > c1:
        out[0] = c0 // c1 if c1 > 0 else 2 * c0
    elif c1 > c0:
        out[1] = c1 // c0 if c0 > 0 else 2 * c1


@njit(cache=True)
def returns(state, params, out):
    out[0] = 0.0
    out[1] = 0.0
    if state[O_HEAD + H_DONE]:
        scores(state, params, out)  # the scores, then the result they give
        set_returns(out[0] - out[1], out)


@njit(cache=True)
def observe(state, params, player, out):
    colour = _player_colour(state, player)
    for v in range(N_POS):
        pos = (v + 6 * player) % N_POS
        n = state[O_H + pos]
        base = pos * CAP
        for k in range(CAP):
            o = (v * CAP + k) * 3
            if k < n:
                cell = state[base + n - 1 - k]
                out[o] = _rank(cell)
                out[o + 1] = 1.0 if _colour(cell) == colour else 2.0
                out[o + 2] = (cell - 1) // 13 + 1
            else:
                out[o] = 0.0
                out[o + 1] = 0.0
                out[o + 2] = 0.0
        b = N_POS * CAP * 3
        out[b + v] = n
        if n == 0:
            out[b + N_POS + v] = 0.0
        else:
            out[b + N_POS + v] = 1.0 if _colour(state[base + n - 1]) == colour else 2.0
    b = N_POS * CAP * 3 + 2 * N_POS
    mine = _cards_in_play(state, colour)
    theirs = _cards_in_play(state, 1 - colour)
    out[b] = mine
    out[b + 1] = theirs
    done = state[O_HEAD + H_DONE] != 0
    out[b + 2] = 1.0 if (not done and state[O_HEAD + H_TO_MOVE] == player) else 0.0
    out[b + 3] = 1.0 if (not done and state[O_HEAD + H_FIRST]) else 0.0
    can_resign = (not done and params[P_ENDING] == ENDING_PARLETT and state[O_HEAD + H_TO_MOVE] == player
                  and mine + theirs < 13 and mine < theirs)
    out[b + 4] = 1.0 if can_resign else 0.0


@njit(cache=True)
def plies(state, params):
    return state[O_HEAD + H_PLIES]


KERNEL = Kernel(init, legal_mask, apply, current_player, scores, returns, observe, plies)
OBS_SIZE = N_POS * CAP * 3 + 2 * N_POS + 5


@njit(cache=True)
def _replay(state, params, actions, out):
    """Apply ``actions`` with legality checks; out = (index of the first bad action or -1, reason)."""
    replay_checked(state, params, actions, out, NUM_ACTIONS, current_player, legal_mask, apply)


# -- the rules object -----------------------------------------------------------------------
class WiddershinsGame(Game):
    """Widdershins: David Parlett's 52-card mancala (Gering's or Parlett's ending)."""

    kernel = KERNEL
    legal_bits = staticmethod(legal_bits)  # what legal_mask writes out, for the random playouts
    family = "widdershins"
    search_params_as_array = True  # apply calls _play and _record: the env's compiled copies serve the search too
    OPTIONS = (
        Option(
            "ending",
            "gering",
            "choice",
            "gering: ends below 6 cards, repetition draws; parlett: colour gone, singletons or resign",
            choices=("gering", "parlett"),
        ),
        Option(
            "max_plies", 1000, "int", MAX_PLIES_OPTION_DOC + "; also sizes the repetition record", low=1, high=100_000
        ),
    )

    @property
    def gering(self) -> bool:
        return self.options["ending"] == "gering"

    PARAM_OPTIONS = ("ending",)

    def _derived_params(self) -> list[int]:
        """P_CAP (the repetition record's entries: max_plies + 1 with Gering's ending, else
        none) and P_O_REP (where the record starts)."""
        return [self._record_entries(), O_REP]

    def _record_entries(self) -> int:
        return self.options["max_plies"] + 1 if self.gering else 0

    def _sizes(self) -> tuple[int, int, int]:
        return O_REP + rep_block_size(self._record_entries()), NUM_ACTIONS, OBS_SIZE

    def position_key_indices(self) -> np.ndarray:
        """Everything but the ply counter and the last mover: the repetition record decides the game."""
        return state_indices_except(self, [O_HEAD + H_PLIES, O_HEAD + H_LAST_MOVER])

    def observation_bounds(self) -> tuple[float, float]:
        return 0.0, 52.0

    def conserved_total(self, state: State) -> int:
        """Cards on the board plus cards captured: always 52."""
        a = state.array
        return int(a[O_H : O_H + N_POS].sum()) + int(a[O_HEAD + H_CAPTURED] + a[O_HEAD + H_CAPTURED + 1])

    def cards_in_play(self, state: State) -> list[int]:
        """Cards of each player's colour on the board, player 0 first."""
        a = state.array
        sc = int(a[O_HEAD + H_SOUTH_COLOUR])
        return [26 - int(a[O_HEAD + H_CAPTURED + sc]), 26 - int(a[O_HEAD + H_CAPTURED + 1 - sc])]

    def info(self, state: State) -> dict:
        a = state.array
        out = {"cards_in_play": self.cards_in_play(state)}
        end = END_NAMES[int(a[O_HEAD + H_END])]
        if end:
            out["end"] = end
        if a[O_HEAD + H_LAP_LIMIT]:
            out["lap_limit"] = int(a[O_HEAD + H_LAP_LIMIT])
        return out

    # -- JSON -------------------------------------------------------------------------------
    @staticmethod
    def _stacks_json(a: np.ndarray) -> list[list[str]]:
        return [[card_name(int(c) - 1) for c in a[i * CAP : i * CAP + int(a[O_H + i])]] for i in range(N_POS)]

    def _state_to_json(self, a: np.ndarray) -> dict:
        last = int(a[O_HEAD + H_LAST_MOVER])
        payload = {
            "stacks": self._stacks_json(a),
            "to_move": int(a[O_HEAD + H_TO_MOVE]),
            "south_colour": COLOUR_NAMES[int(a[O_HEAD + H_SOUTH_COLOUR])],
            "first_move": bool(a[O_HEAD + H_FIRST]),
            "plies": int(a[O_HEAD + H_PLIES]),
            "last_mover": None if last < 0 else last,
            "terminal": bool(a[O_HEAD + H_DONE]),
            "end": END_NAMES[int(a[O_HEAD + H_END])],
        }
        if a[O_HEAD + H_LAP_LIMIT]:
            payload["lap_limit"] = int(a[O_HEAD + H_LAP_LIMIT])
        if self.gering:
            stacks = []
            k = 0
            for i in range(N_POS):
                n = int(a[O_SNAP + i])
                stacks.append([card_name(int(c) - 1) for c in a[O_SNAP + N_POS + k : O_SNAP + N_POS + k + n]])
                k += n
            payload["history"] = {
                "stacks": stacks,
                "to_move": int(a[O_SNAP + snapshot_field(N_POS, CAP, 0)]),
                "first_move": bool(a[O_SNAP + snapshot_field(N_POS, CAP, 1)]),
                "actions": rep_actions(a, O_REP),
            }
        return payload

    def _parse_stacks(self, value, where: str) -> list[list[int]]:
        owner = self.env_id
        if not isinstance(value, (list, tuple)) or len(value) != N_POS:
            raise InvalidStateError(
                f"{owner}: {where} must be a list of 12 stacks (S1..S6, N1..N6), each a list of cards bottom to "
                f"top like [\"QH\", \"10S\"], got {value!r}"
            )
        out = []
        for i, stack in enumerate(value):
            if not isinstance(stack, (list, tuple)):
                raise InvalidStateError(f"{owner}: {where}[{i}] ({POSITION_NAMES[i]}) must be a list of cards")
            cards = []
            for card in stack:
                try:
                    cards.append(parse_card(card))
                except ValueError:
                    raise InvalidStateError(
                        f"{owner}: {where}[{i}] ({POSITION_NAMES[i]}) holds {card!r}, which is not a card; write rank "
                        f"(A, 2..10, J, Q, K) then suit (C, D, H, S), e.g. \"10S\""
                    ) from None
            out.append(cards)
        flat = [c for s in out for c in s]
        if len(set(flat)) != len(flat):
            dup = sorted({card_name(c) for c in flat if flat.count(c) > 1})
            raise InvalidStateError(f"{owner}: {where} holds {', '.join(dup)} more than once; every card is unique")
        return out

    def _build(self, stacks, to_move, south_colour, first, ply_count, last_mover) -> np.ndarray:
        a = np.zeros(self.state_size, dtype=np.int32)
        captured = [0, 0]
        present = set()
        for i, cards in enumerate(stacks):
            for j, card in enumerate(cards):
                a[i * CAP + j] = card + 1
                present.add(card)
            a[O_H + i] = len(cards)
        for card in range(52):
            if card not in present:
                captured[0 if card // 13 in (1, 2) else 1] += 1
        a[O_HEAD + H_TO_MOVE] = to_move
        a[O_HEAD + H_SOUTH_COLOUR] = south_colour
        a[O_HEAD + H_FIRST] = int(first)
        a[O_HEAD + H_PLIES] = ply_count
        a[O_HEAD + H_LAST_MOVER] = last_mover
        a[O_HEAD + H_CAPTURED] = captured[0]
        a[O_HEAD + H_CAPTURED + 1] = captured[1]
        _reset_tops(a)
        if self.gering:
            _reset_hash(a)
        return a

    def _state_from_json(self, payload: dict) -> np.ndarray:
        owner = self.env_id
        check_json_keys(payload, JSON_KEYS, owner)
        stacks = self._parse_stacks(payload.get("stacks"), "'stacks'")
        to_move = json_int(payload, "to_move", owner, 0, 1)
        colour = payload.get("south_colour")
        if colour not in COLOUR_NAMES:
            raise InvalidStateError(f"{owner}: 'south_colour' must be 'red' or 'black', got {colour!r}")
        south_colour = COLOUR_NAMES.index(colour)
        first = json_bool(payload, "first_move", owner, default=False)
        if first and (to_move != 0 or not stacks[0] or len(stacks[0]) < 2):
            raise InvalidStateError(
                f"{owner}: with first_move true South (to_move 0) must be to move and S1 must hold 2 or more cards"
            )
        ply_count = json_plies(payload, owner)
        last_mover = payload.get("last_mover")
        last_mover = -1 if last_mover is None else json_int(payload, "last_mover", owner, 0, 1)
        if payload.get("lap_limit"):
            raise InvalidStateError(f"{owner}: a position after a move stopped by the lap limit cannot be loaded")
        history = payload.get("history") if self.gering else None
        if "history" in payload and not self.gering:
            raise InvalidStateError(f"{owner}: 'history' (the repetition record) exists only with ending='gering'")
        if history is None:
            a = self._build(stacks, to_move, south_colour, first, ply_count, last_mover)
            _settle(a, self.params)
            if payload.get("end") == "resign" and not self.gering and not a[O_HEAD + H_DONE]:
                self._resigned(a, last_mover, to_move)
            if self.gering:
                _new_stretch(a, self.params)
        else:
            a = self._from_history(history, south_colour, ply_count, last_mover)
        made = self._state_to_json(a)
        for key in ("to_move", "first_move", "plies", "last_mover", "terminal", "end"):
            if key in payload and made[key] != payload[key]:
                raise InvalidStateError(
                    f"{owner}: the position is inconsistent: {key!r} is {payload[key]!r} in the payload, but "
                    + ("replaying the history gives" if history is not None else "the rules make it")
                    + f" {made[key]!r}"
                )
        if made["stacks"] != [[card_name(c) for c in s] for s in stacks]:
            raise InvalidStateError(
                f"{owner}: the position is inconsistent: replaying the history gives the stacks {made['stacks']}"
            )
        return a

    def _resigned(self, a: np.ndarray, last_mover: int, to_move: int) -> None:
        """A position ended by resignation: check that the resigner could resign."""
        owner = self.env_id
        if last_mover < 0 or to_move != 1 - last_mover:
            raise InvalidStateError(
                f"{owner}: end 'resign' needs last_mover (the player who resigned) and to_move = the other player"
            )
        mine, theirs = (self.cards_in_play(State(self, a)) if last_mover == 0
                        else self.cards_in_play(State(self, a))[::-1])
        if not (mine + theirs < 13 and mine < theirs):
            raise InvalidStateError(
                f"{owner}: player {last_mover} could not resign here: resigning needs fewer than 13 cards in play "
                f"({mine + theirs} here) and fewer cards than the opponent ({mine} against {theirs})"
            )
        a[O_HEAD + H_DONE] = 1
        a[O_HEAD + H_END] = END_RESIGN

    def _from_history(self, history, south_colour, ply_count, last_mover) -> np.ndarray:
        owner = self.env_id
        if not isinstance(history, dict):
            raise InvalidStateError(f"{owner}: 'history' must be a dict with stacks, to_move, first_move, actions")
        check_json_keys(history, HISTORY_KEYS, owner, "a history")
        stacks = self._parse_stacks(history.get("stacks"), "history 'stacks'")
        to_move = json_int(history, "to_move", owner, 0, 1)
        first = json_bool(history, "first_move", owner, default=False)
        actions = json_int_list({"history actions": history.get("actions", [])}, "history actions", None, owner,
                                high=self.num_actions - 1)
        cap = int(self.params[P_CAP])
        if len(actions) >= cap or len(actions) > ply_count:
            raise InvalidStateError(
                f"{owner}: history 'actions' holds {len(actions)} actions; at most min(plies, max_plies) fit"
            )
        a = self._build(stacks, to_move, south_colour, first, ply_count - len(actions), last_mover)
        _settle(a, self.params)
        _new_stretch(a, self.params)
        out = np.zeros(2, dtype=np.int64)
        _replay(a, self.params, np.asarray(actions, dtype=np.int64), out)
        if out[0] >= 0:
            why = "comes after the end of the game" if out[1] == 1 else "is not legal there"
            raise InvalidStateError(f"{owner}: history action {out[0]} ({actions[int(out[0])]}) {why}")
        if int(rep_count(a, O_REP)) != len(actions) + 1:
            raise InvalidStateError(
                f"{owner}: the history's actions capture cards, but a history covers only the plies since the last "
                f"capture"
            )
        return a

    # -- notation ---------------------------------------------------------------------------
    def _action_to_string(self, state: State, action: int) -> str:
        if action == A_PASS:
            return "pass"
        if action == A_RESIGN:
            return "resign"
        player = max(state.current_player, 0)
        clockwise = action >= A_ACE_CW
        rel = action - A_ACE_CW if clockwise else action
        pos = (rel + 6 * player) % N_POS
        name = POSITION_NAMES[pos]
        a = state.array
        h = int(a[O_H + pos])
        if clockwise:
            return name + "c"
        if h == 1 and (int(a[pos * CAP]) - 1) % 13 == 0:
            return name + "a"
        return name

    def _string_to_action(self, state: State, text: str) -> int:
        owner = self.env_id
        if not isinstance(text, str):
            raise NotationError(f"{owner}: a move must be a string, got {type(text).__name__}")
        if state.is_terminal():
            raise NotationError(f"{owner}: the game is over; no move {text!r} can be played")
        raw = text.strip().upper()
        if raw == "PASS":
            action = A_PASS
        elif raw == "RESIGN":
            action = A_RESIGN
        else:
            match = re.fullmatch(r"([SN])([1-6])([AC]?)", raw)
            if not match:
                raise NotationError(
                    f"{owner}: move {text!r} not understood; write a position S1..S6 or N1..N6 (add 'a' or 'c' "
                    f"for a lone Ace counterclockwise or clockwise), 'pass' or 'resign'"
                )
            pos = POSITION_NAMES.index(match.group(1) + match.group(2))
            rel = (pos - 6 * state.current_player) % N_POS
            action = rel + (A_ACE_CW if match.group(3) == "C" else 0)
        if not state.is_legal(action):
            legal = ", ".join(self._action_to_string(state, a) for a in state.legal_actions())
            raise NotationError(f"{owner}: {text!r} is not legal here; legal moves: {legal}")
        return action

    # -- text board and pictures -------------------------------------------------------------
    def status_text(self, state: State) -> str:
        a = state.array
        if a[O_HEAD + H_DONE]:
            s = state.scores()
            result = "player_0 wins" if s[0] > s[1] else "player_1 wins" if s[1] > s[0] else "draw"
            return f"game over ({END_NAMES[int(a[O_HEAD + H_END])]}): {result} {s[0]}-{s[1]}"
        return f"player_{int(a[O_HEAD + H_TO_MOVE])} to move"

    def action_cell(self, state: State, action: int) -> tuple[str | None, str]:
        """The stack moved, keyed by position (``"S3"``); a lone Ace's two moves are ``"ccw"``
        (``"S3a"``) and ``"cw"`` (``"S3c"``); pass and resign are off the board."""
        if action in (A_PASS, A_RESIGN):
            return None, ""
        name = self._action_to_string(state, action)
        way = {"a": "ccw", "c": "cw"}.get(name[-1], "")
        return name[:2], way

    def board_view(self, state: State) -> dict:
        """Drawn from South's seat: North's row N6..N1 far, South's S1..S6 near, every stack's
        cards face up; a stack belongs to the player of its top card's colour."""
        a = state.array
        sc = int(a[O_HEAD + H_SOUTH_COLOUR])
        colour_of_seat = (sc, 1 - sc)
        cells = {}
        for pos, cards in enumerate(self._stacks_json(a)):
            owner = None
            if cards:
                top = parse_card(cards[-1])
                owner = colour_of_seat.index(0 if top // 13 in (1, 2) else 1)
            cells[POSITION_NAMES[pos]] = view_cell(POSITION_NAMES[pos], len(cards), "stack", owner, cards)
        c0, c1 = self.cards_in_play(state)
        details = [
            f"cards in play: South ({COLOUR_NAMES[sc]}) {c0}, North ({COLOUR_NAMES[1 - sc]}) {c1}; "
            + ("Gering's ending: below 6 cards ends the game" if self.gering else "Parlett's ending")
        ]
        return board_view_of(
            self, state, "card_rows", cells,
            [[POSITION_NAMES[p] for p in range(11, 5, -1)], [POSITION_NAMES[p] for p in range(6)]],
            row_titles=[f"North (player_1, {COLOUR_NAMES[1 - sc]})", f"South (player_0, {COLOUR_NAMES[sc]})"],
            near_seat=0, seats=["player_0 (South)", "player_1 (North)"], details=details,
        )

    def _render_text(self, state: State) -> str:
        a = state.array
        stacks = self._stacks_json(a)
        south = COLOUR_NAMES[int(a[O_HEAD + H_SOUTH_COLOUR])]
        north = COLOUR_NAMES[1 - int(a[O_HEAD + H_SOUTH_COLOUR])]
        lines = []
        for pos in list(range(11, 5, -1)) + list(range(6)):
            cards = " ".join(stacks[pos]) or "--"
            lines.append(f"  {POSITION_NAMES[pos]} [{len(stacks[pos]):>2}] {cards}")
        c0, c1 = self.cards_in_play(state)
        status = self.status_text(state)
        header = (f"{self.env_id} ply {int(a[O_HEAD + H_PLIES])}: {status}; cards in play South ({south}) {c0}, "
                  f"North ({north}) {c1}; stacks bottom to top, North's row first")
        return "\n".join([header, *lines])


VARIANTS = (
    Variant("widdershins-v0", WiddershinsGame, "Widdershins (Parlett's card mancala) with Gering's ending"),
    Variant(
        "widdershins-parlett-v0",
        WiddershinsGame,
        "Widdershins with Parlett's original ending and score, and the resign action",
        {"ending": "parlett"},
    ),
)


# -- search hooks ---------------------------------------------------------------------------
from ..core.inline import copy_words  # noqa: E402  (this section's own imports)
from ..core.jit_helpers import lanes_end, lanes_skip, lanes_start, lanes_take  # noqa: E402

# The search agents copy a position and key their transposition table at every node
# (``Game.search_hooks``). Most of a Widdershins state is zeros:
# each stack's cells above its height, the snapshot's cells past its cards, the repetition
# record's entries past its count (about 200 of ``widdershins-v0``'s 1,231 words are in use
# mid-game, about 120 of Parlett's 730). The hooks below read and write only the words in use,
# with the results of copying and hashing every word. Parlett's ending keeps no snapshot and no
# record (only Gering's repetition rule writes them), so there they are zeros in every position
# and both hooks pass them by.
#
# The regions must lie in this order for the key's sweep (the test compares both hooks with
# the whole-state versions on many positions of both endings).
assert N_POS * CAP <= O_H and O_H + N_POS <= O_HEAD and O_HEAD + HEADER_SIZE <= O_SNAP
assert O_SNAP + SNAP_SIZE <= O_REP

_SNAP_CARDS = O_SNAP + N_POS  # the snapshot's cards, packed stack after stack
_SNAP_FIELDS = O_SNAP + snapshot_field(N_POS, CAP, 0)
# The key's lanes take groups of four words (core.jit_helpers, "lane hash"): every stack starts a group.
assert CAP % 4 == 0 and O_H == N_POS * CAP
_STACK_GROUPS = CAP // 4


@njit(cache=True, inline="always")
def _snapshot_cards(state):
    """How many cards the snapshot holds (0 with Parlett's ending, which keeps none)."""
    total = 0
    for i in range(N_POS):
        total += state[O_SNAP + i]
    return total


@njit(cache=True, inline="always")
def _record_words(state, params):
    """The repetition record's words in use: the count and its entries (two a word)."""
    return 1 + ((state[_u(params[P_O_REP])] + 1) >> 1)


@njit(cache=True, inline="always")
def _lanes_through(state, lanes, done, start, end):
    """The key's lanes, which have taken the groups before ``done``, moved on through the
    groups that hold words ``start .. end - 1``, skipping the zero groups between (only whole
    groups: the last ``len % 4`` words are ``lanes_end``'s). Returns (lanes, groups done)."""
    first = start >> 2
    stop = min((end + 3) >> 2, state.shape[0] >> 2)
    if first > done:
        lanes = lanes_skip(lanes, first - done)
        done = first
    return lanes_take(lanes, state, done, stop), max(done, stop)


@njit(cache=True)
def position_key(state, params):
    """``search_hooks``' key: ``hash_state(state)`` from the words in use only."""
    lanes = lanes_start()
    for pos in range(N_POS):  # each stack: the groups up to its height, then zeros
        first = pos * _STACK_GROUPS
        used = (state[_u(O_H + pos)] + 3) >> 2
        lanes = lanes_skip(lanes_take(lanes, state, first, first + used), _STACK_GROUPS - used)
    # the heights and the header, which follow the stacks' last group
    done = (O_HEAD + HEADER_SIZE + 3) >> 2
    lanes = lanes_take(lanes, state, O_H >> 2, done)
    if params[P_ENDING] == ENDING_GERING:  # (Parlett's ending: zeros from here to the tail, see above)
        # the snapshot's cards, its fields and the record, in one loop: _lanes_through compiled in once
        rep = params[P_O_REP]
        starts = (O_SNAP, _SNAP_FIELDS, rep)
        ends = (_SNAP_CARDS + _snapshot_cards(state), _SNAP_FIELDS + len(POSITION_FIELDS),
                rep + _record_words(state, params))
        for region in range(len(starts)):
            lanes, done = _lanes_through(state, lanes, done, starts[region], ends[region])
    return lanes_end(lanes_skip(lanes, (state.shape[0] >> 2) - done), state)


_STACK_BLOCK = 16  # a stack's first cells, copied as one block whatever its height (most hold fewer)
_CHUNK = 8  # words a block copy of a taller stack's further cells moves at once
_FIXED_WORDS = _SNAP_CARDS - O_H  # the heights, the header and the snapshot's heights: always copied
# The copies of a stack's cells may run past them (the last stack's into the heights, never further).
assert (N_POS - 1) * CAP + _STACK_BLOCK + -(-(CAP - _STACK_BLOCK) // _CHUNK) * _CHUNK <= O_SNAP


@njit(cache=True, inline="always")
def _copy_span(target, source, start, end):
    for i in range(start, end):
        target[_u(i)] = source[_u(i)]


@njit(cache=True)
def copy_position(target, source, params):
    """``search_hooks``' copy: ``target[:] = source`` for a ``target`` that holds a position
    of this game (or zeros), writing only the words in use in either: each stack's cells up to
    the taller of its two heights (the target's cells above the new height become zero), the
    snapshot's cards up to the larger count, the record's entries likewise. A stack's first
    ``_STACK_BLOCK`` cells go as one block (a few vector moves, no loop), the cells of a taller
    stack above them in chunks of ``_CHUNK``; a block or chunk may run into the next stack's
    cells (the last stack's into the heights), which are copied from the source as well."""
    gering = params[P_ENDING] == ENDING_GERING  # Parlett's ending: no snapshot, no record (zeros)
    snapshot_cards = 0
    record_words = 0
    if gering:  # read before the copy
        snapshot_cards = max(_snapshot_cards(source), _snapshot_cards(target))
        record_words = max(_record_words(source, params), _record_words(target, params))
    for pos in range(N_POS):
        base = pos * CAP
        copy_words(target, source, _u(base), _STACK_BLOCK)
        height = max(source[_u(O_H + pos)], target[_u(O_H + pos)])
        for i in range(base + _STACK_BLOCK, base + height, _CHUNK):
            copy_words(target, source, _u(i), _CHUNK)
    copy_words(target, source, O_H, _FIXED_WORDS)
    if gering:
        _copy_span(target, source, _SNAP_CARDS, _SNAP_CARDS + snapshot_cards)
        _copy_span(target, source, _SNAP_FIELDS, _SNAP_FIELDS + len(POSITION_FIELDS))
        rep = params[P_O_REP]
        _copy_span(target, source, rep, rep + record_words)


WiddershinsGame.search_hooks = (copy_position, position_key)
