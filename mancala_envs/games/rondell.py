"""Rondell: Ralf Gering's card mancala (2005), its presets, variants and match play.

Rules source: the Mancala World article "Rondell" (inventor Ralf Gering, 2005), with the
package rulings below. One numba kernel plays every variant; each registered id is a preset
of the options below, and any option can be overridden.

Registered ids
--------------
============================  ================================================================
``rondell-v0``                the beginner game: 9 piles of 6 cards, 13 red and 14 blue pairs
                              (41 points). All defaults.
``rondell-expert-v0``         the expert game: 16 piles of 7, 27 red and 29 blue pairs (85 points)
``rondell-reservation-v0``    expert deck, ``reservation=True`` (Rondell mit Reservierung)
``rondell-partial-v0``        expert deck, ``partial=True`` (Parteiisches Rondell)
``rondell-bottom-up-v0``      expert deck, ``bottom_up=True`` (Michael's Rondell)
============================  ================================================================

Board and numbering
-------------------
A ring of ``piles`` piles, numbered 0 .. P-1 counterclockwise (notation: 1 .. P). Each pile
is an ordered stack of red and blue cards, all face up. A pile keeps its number for the
whole game; a pile emptied by a capture leaves the ring (it is shown as ``""`` and skipped
by sowing, which then runs over the remaining piles only)::

          7   6   5                    the beginner ring (9 piles), seen from above;
       8           4                   sowing runs counterclockwise: 0, 1, 2, ... 8, 0, ...
          0   1   2   3

``player_1`` is the dealer; ``player_0`` (the dealer's opponent, "the second player" of the
rule text) moves first.

Rules
-----
1. Deal (seeded): the deck (``2*red_pairs`` red then ``2*blue_pairs`` blue cards) is
   shuffled with ``Generator.shuffle`` of the ``numpy.random.Generator`` made from the seed
   given to ``new_state`` / ``reset``; card ``k`` of the shuffled deck goes onto pile
   ``k mod P``, so the last card dealt to a pile is its top card. Same seed, same deal.
2. A move lifts any pile of 2 or more cards (subject to the variants). Its top card is
   dropped where the pile stood, the next card on the next pile counterclockwise, and so
   on, lapping the ring as often as needed; no pile is skipped.
3. If the last card lands on a pile whose top card had the same colour, that top card and
   the last card are captured by the mover (one pair). If the landing pile then still holds
   2 or more cards, it is lifted and sown the same way (a further lap). Otherwise (1 card
   left, or none, or no capture) the move ends.
4. A pile emptied by a capture leaves the ring for good; the ring shrinks.
5. End (a): the player to move has no pile they may lift: the player who moved last takes
   the cards still on the board. End (b): a position repeats (same piles with the same
   colour sequences, same player to move, same reservation): the player who did *not*
   complete the repetition (the one who did not make the last move) takes them.
6. Score: a blue pair is 2 points, a red pair 1; cards left on the board count the same way
   for their taker. The total is odd for every valid deck, so there are no draws.

Variants (options)
------------------
* ``reservation``: after their move the mover may reserve one pile (or none); the opponent
  may not start their next move from it. The choice is a separate step of the same player
  (phase ``"reserve"``), so the action space has ``piles + 1`` actions.
* ``partial``: the ring is split into two areas of ``P/2`` consecutive piles: ``player_0``
  owns piles 0 .. P/2-1, ``player_1`` piles P/2 .. P-1 (by number, for the whole game). A
  move must start in your own area. A player with no move passes automatically (no pass
  action) and the other plays on; the game ends when neither can move.
* ``bottom_up`` (Michael's Rondell): a lifted pile is sown from its bottom card first.

Package rulings (points the rules leave open)
---------------------------------------------
* Piles keep their number when others leave the ring, so action ``i`` always means pile
  ``i``; a pile that left the ring is simply never legal again.
* The ring is shared, so actions and the observation use the same pile numbers for both
  seats, except with ``partial``: there ``player_1`` sees the ring rotated by P/2, so that
  actions 0 .. P/2-1 are always the mover's own area (one network plays both seats).
* The landing test compares with the top card the landing pile had *before* the last card,
  which on the origin pile is the card dropped there earlier in the same lap.
* Reservation: only a pile of 2 or more cards can be reserved (reserving any other pile
  would be the same as none). The reservation binds the opponent's next move only and is
  gone after it. If the move leaves no pile of 2 or more cards at all, the game ends at once
  (end (a)) with no reservation step. If the opponent's only liftable pile is reserved,
  they cannot move: end (a), the reserver takes the leftovers.
* Repetition is judged at the start of each move (with ``reservation``: after the
  reservation decision; the reservation is part of the position). The player who made the
  repeating move (and reservation) completed the repetition.
* ``partial`` needs an even number of piles; ``reservation`` and ``partial`` cannot be
  combined (the rule text defines each on its own). ``bottom_up`` combines with either.
* Custom decks are refused (``InvalidOptionError`` naming the restriction and the numbers)
  unless they keep every restriction of the rule text, checked in this order: an even
  number of cards (``piles * cards_per_pile``); every pile the same size, i.e. the deck of
  ``2*(red_pairs + blue_pairs)`` cards fills the piles exactly; an odd point total
  (``red_pairs + 2*blue_pairs``); one or two more blue pairs than red pairs; and the opening
  identity ``(c-1) + j*(c-2) = P`` for a whole ``j >= 0``. Both presets keep them all.
* At the end the cards left on the board stay there (the final position stays visible);
  ``scores`` adds their points to the taker, named by ``leftover_to``.
* A truncated game (``max_plies``) has no leftover taker; its scores are the pairs taken.

Repetition record (exact, see ``mancala_envs.core.repetition``)
---------------------------------------------------------------
A position can only repeat since the last capture, so the state keeps a snapshot of the
position after the last capture and, for every ply since, the action and 10 bits of a
hash of the position reached (half a word). A new position is compared by hash with the recorded ones, and every
hash match is confirmed by replaying the recorded actions from the snapshot and comparing
the whole position, so a hash collision can never end a game. The record holds
``max_plies + 1`` entries, enough for any game up to the ply cap (which is why
``max_plies`` cannot be None here). Past the cap (only through the ``State`` API) a stretch
without capture that fills the record restarts it at the current position; a repetition of
a position from before the restart would then go unnoticed.

Options
-------
==================== ========= ==============================================================
option               default   allowed
==================== ========= ==============================================================
``piles``            9         2 to 32 (16 for the expert presets)
``cards_per_pile``   6         2 to 16 (7 for the expert presets)
``red_pairs``        13        0 to 256 (27)
``blue_pairs``       14        1 to 256 (29)
``reservation``      False     bool
``partial``          False     bool (needs an even number of piles)
``bottom_up``        False     bool
``max_plies``        2000      1 to 100000 (no None: the repetition record is sized by it)
==================== ========= ==============================================================

Actions
-------
``Discrete(P)``, or ``Discrete(P + 1)`` with ``reservation``:

* move: action ``i`` lifts pile ``i`` (with ``partial``: the mover's ``i``-th pile counted
  counterclockwise from the start of their area, i.e. pile ``(i + seat*P/2) mod P``).
  Notation: the pile's number 1 .. P, e.g. ``"5"``.
* reservation step: action ``i < P`` reserves pile ``i`` (``"r5"``), action ``P`` reserves
  nothing (``"r-"``).

Observation
-----------
``Box(0, high, (P*T + P + 4 [+ P + 1 with reservation] [+ P with partial],), float32)``
with ``T = piles * cards_per_pile`` (the deck size, a bound on any pile's height) and
``high = max(T, total points)``. Pile ``v`` of the view is pile ``v`` (with ``partial``,
pile ``(v + seat*P/2) mod P`` for the observer's seat):

========================== ==================================================================
index                      meaning
========================== ==================================================================
``v*T + k``                colour of the ``k``-th card from the TOP of view pile ``v``:
                           0 no card, 1 red, 2 blue
``P*T + v``                height of view pile ``v`` (0: it left the ring)
``P*T + P``                piles left in the ring
``P*T + P + 1``            my points (pairs taken, plus the leftovers once I took them)
``P*T + P + 2``            the opponent's points
``P*T + P + 3``            1 if it is my turn
``P*T + P + 4``            (reservation) 1 in the reservation step
``P*T + P + 5 + v``        (reservation) 1 if view pile ``v`` is reserved against the mover
``... + v``                (partial) 1 if view pile ``v`` is in my area
========================== ==================================================================

Rewards and scores
------------------
+1 to the player with more points, -1 to the other, at the end; 0 on every other step and
on truncation. ``scores()`` are the points (pairs taken, plus the leftovers of the taker).

State layout (``numpy.int32``)
------------------------------
The cards are only red or blue, so a pile is a bit string: ``W = ceil(T / 32)`` words per
pile (room for the whole deck), card ``j`` (0 = bottom) in bit ``j % 32`` of word ``j // 32``,
1 blue, 0 red; the bits at and above the pile's height are 0. ::

    0 .. P*W-1          pile words: pile i's at i*W .. i*W + W-1
    P*W .. +P           heights (the pile words and heights are "the board", copied as one block)
    +P .. +2P           next pile counterclockwise (-1 once gone)
    +2P .. +3P          previous pile (-1 once gone)
    +3P .. +4P          each pile's share of the position hash (the XOR of its cards' keys)
    +4P .. +4P+W        the lifted pile during a lap (zero between plies)
    header              to_move, done, plies, phase, reserved, end, leftover_to, last_mover,
                        red/blue pairs of player 0, red/blue pairs of player 1, piles left,
                        the piles' share of the position hash (the XOR of the piles' shares,
                        updated card by card; a lifted pile's cards leave it as one share)
    snapshot            the board [P*W + P] as above, to_move, phase, reserved
    record              count, entries [max_plies+1] (hash bits and action, two a word)

``to_json()`` gives every pile bottom to top as a string of ``R`` and ``B`` and the record
as ``history`` (the snapshot position and the actions since); ``state_from_json`` replays
the history to rebuild the record, or starts a fresh one when ``history`` is left out, so a
position can be set up by hand.

Rendering
---------
``render_mode="rgb_array"`` frames are 800 x 720 (W x H) for any deck: the ring of piles seen
from above, numbered counterclockwise, each pile's cards fanned outward from the ring
(bottom card nearest, top card farthest), piles that left the ring shown as gone, the
reserved pile and the owned areas marked, the points in the middle
(``RondellGame.board_view``). ``mancala play ID --window``: click a pile to lift it (or to
reserve it); "no reservation" is a button.

Version history
---------------
* v0: first release. Later, same games, observations, JSON and records: the state layout
  changed (the piles as bit strings instead of one cell per card: ``rondell-v0`` states of
  1,603 -> 1,102 words, the expert decks' 2,995 -> 1,231).
"""

from __future__ import annotations

import re

import numpy as np
from numba import njit

from ..core.deal import shuffle_deck
from ..core.errors import InvalidOptionError, InvalidStateError, NotationError
from ..core.game import (
    MAX_PLIES_OPTION_DOC, Game, Kernel, State, Variant, board_view_of, check_json_keys, json_int, json_int_list, json_plies,
    state_indices_except, view_cell,
)
from ..core.outcome import set_returns
from ..core.options import Option
from ..core.repetition import (
    NOT_A_CHECKPOINT,
    rep_actions,
    rep_block_size,
    rep_clear,
    rep_count,
    fibonacci_key,
    rep_push,
    record_ply,
    replay_checked,
    unsigned_index,
    wrap_int32,
)

# -- parameter vector: the options of PARAM_OPTIONS (Option.encode), then derived values ----
P_PILES = 0
P_CARDS_PER_PILE = 1
P_RED_PAIRS = 2
P_BLUE_PAIRS = 3
P_RESERVATION = 4
P_PARTIAL = 5
P_BOTTOM_UP = 6
P_T = 7  # cards in the deck
P_CAP = 8  # record entries
P_W = 9  # words per pile: ceil(T / 32)
P_O_H = 10  # offsets
P_O_NEXT = 11
P_O_PREV = 12
P_O_SHARES = 13
P_O_LIFT = 14
P_O_HEAD = 15
P_O_SNAP = 16
P_O_REP = 17

# header fields
H_TO_MOVE = 0
H_DONE = 1
H_PLIES = 2
H_PHASE = 3
H_RESERVED = 4
H_END = 5
H_TAKER = 6
H_LAST_MOVER = 7
H_PAIRS = 8  # 8: p0 red, 9: p0 blue, 10: p1 red, 11: p1 blue
H_PILES_LEFT = 12
H_HASH = 13  # the piles' share of the position hash (_piles_hash), kept move by move
HEADER_SIZE = 14

PHASE_MOVE = 0
PHASE_RESERVE = 1
PHASE_NAMES = ("move", "reserve")

# The header entries that belong to a position for the repetition rule (hashed, snapshotted).
POSITION_FIELDS = (H_TO_MOVE, H_PHASE, H_RESERVED)

END_NONE = 0
END_NO_MOVE = 1
END_REPETITION = 2
END_NAMES = (None, "no_move", "repetition")

# the keys of a position's JSON and of its history (RondellGame._state_to_json)
JSON_KEYS = ("piles", "to_move", "phase", "reserved", "pairs", "plies", "last_mover", "terminal", "end", "leftover_to",
             "history")
HISTORY_KEYS = ("piles", "to_move", "phase", "reserved", "actions")

RED = 1
BLUE = 2
COLOUR_LETTERS = {1: "R", 2: "B"}


# -- kernel helpers -------------------------------------------------------------------------
_WORD = (1 << 32) - 1


_u = unsigned_index  # every index into the state below is >= 0; unsigned, numba does not wrap it


@njit(cache=True, inline="always")
def _card(state, base, j):
    """Card ``j`` (0 = bottom) of the pile whose words start at ``base``: 1 blue, 0 red."""
    return (state[_u(base + (j >> 5))] >> (j & 31)) & 1


@njit(cache=True, inline="always")
def _put_card(state, base, j, blue):
    """Put card ``j`` (``blue``: 1 or 0) on the pile whose words start at ``base``; bit ``j`` is 0 before."""
    w = _u(base + (j >> 5))
    state[w] = wrap_int32(np.int64(state[w]) | (np.int64(blue) << (j & 31)))


@njit(cache=True, inline="always")
def _take_card(state, base, j):
    """Clear bit ``j`` of the pile whose words start at ``base``."""
    w = _u(base + (j >> 5))
    state[w] = wrap_int32(np.int64(state[w]) & ~(np.int64(1) << (j & 31)))


@njit(cache=True, inline="always")
def _card_key(index, blue):
    """The 31-bit Zobrist key of a card of colour ``blue`` (0 red, 1 blue) at ``index`` (pile * T
    + height): one multiply (``core.repetition.fibonacci_key``)."""
    return fibonacci_key(2 * index + blue)


@njit(cache=True, inline="always")
def _cards_hash(state, base, key_base, n):
    """The XOR of the keys of cards 0 .. n-1 of the pile whose words start at ``base`` (its hash
    share when it holds ``n`` cards; ``key_base`` = pile * T)."""
    h = np.int32(0)
    for j in range(n):
        h ^= _card_key(key_base + j, _card(state, base, j))
    return h


@njit(cache=True, inline="always")
def _board_words(params):
    """The words of the board: the piles' words and their heights (one block at the state's start)."""
    return params[P_PILES] * params[P_W] + params[P_PILES]


@njit(cache=True, inline="always")  # one multiply: a call (and a compile per argument type) costs more
def _rotation(params, player):
    if params[P_PARTIAL]:
        return player * (params[P_PILES] // 2)
    return 0


@njit(cache=True)
def _has_move(state, params, player, reserved):
    """Whether ``player`` may lift some pile (reserved pile excluded, own area with partial)."""
    P = params[P_PILES]
    oh = params[P_O_H]
    if params[P_PARTIAL]:
        half = P // 2
        start = player * half
        for k in range(half):
            if state[_u(oh + start + k)] >= 2:
                return True
        return False
    for i in range(P):
        if state[_u(oh + i)] >= 2 and i != reserved:
            return True
    return False


@njit(cache=True, inline="always")
def _fields_key(state, params):
    """The position fields' share of the hash: one key for the player to move, the phase and
    the reservation together (keyed past the cards' keys), so one multiply."""
    head = params[P_O_HEAD]
    code = (
        state[_u(head + H_TO_MOVE)]
        + 2 * state[_u(head + H_PHASE)]
        + 4 * (state[_u(head + H_RESERVED)] + 1)
    )
    return _card_key(params[P_PILES] * params[P_T] + code, 0)


@njit(cache=True)
def _position_hash(state, params):
    """The position's hash: the piles' share, kept in the header, and the position fields."""
    return state[_u(params[P_O_HEAD] + H_HASH)] ^ _fields_key(state, params)


@njit(cache=True)
def _piles_hash(state, params):
    """The piles' share of the position hash, from scratch: the XOR of ``_card_key(i*T + j,
    blue)`` over every card (card ``j`` of pile ``i``)."""
    T = params[P_T]
    W = params[P_W]
    oh = params[P_O_H]
    h = np.int32(0)
    for i in range(params[P_PILES]):
        h ^= _cards_hash(state, i * W, i * T, state[_u(oh + i)])
    return h


@njit(cache=True)
def _hash_from_scratch(state, params):
    """The whole position hash computed from the board (what ``_position_hash`` keeps move by move)."""
    return _piles_hash(state, params) ^ _fields_key(state, params)


@njit(cache=True)
def _reset_hash(state, params):
    """Compute every pile's share of the hash and their XOR from scratch (after a deal, a load
    or a restore)."""
    T = params[P_T]
    W = params[P_W]
    oh = params[P_O_H]
    shares = params[P_O_SHARES]
    h = np.int32(0)
    for i in range(params[P_PILES]):
        share = _cards_hash(state, i * W, i * T, state[_u(oh + i)])
        state[_u(shares + i)] = share
        h ^= share
    state[_u(params[P_O_HEAD] + H_HASH)] = h


@njit(cache=True)
def _new_stretch(state, params):
    """Snapshot the current position and restart the record with it as entry 0."""
    head = params[P_O_HEAD]
    snap = params[P_O_SNAP]
    board = _board_words(params)
    for i in range(board):  # the pile words and heights: one fixed-size copy
        state[_u(snap + i)] = state[_u(i)]
    for n, f in enumerate(POSITION_FIELDS):
        state[_u(snap + board + n)] = state[_u(head + f)]
    rep = params[P_O_REP]
    cap = params[P_CAP]
    rep_clear(state, rep, cap)
    h = _position_hash(state, params) if state[_u(head + H_PHASE)] == PHASE_MOVE else NOT_A_CHECKPOINT
    rep_push(state, rep, cap, h, np.int64(-1))  # the action type of record_ply: one compile


@njit(cache=True)
def _rebuild_links(state, params):
    P = params[P_PILES]
    oh = params[P_O_H]
    on = params[P_O_NEXT]
    op = params[P_O_PREV]
    first = -1
    last = -1
    count = 0
    for i in range(P):
        if state[_u(oh + i)] > 0:
            if first < 0:
                first = i
            else:
                state[_u(on + last)] = i
                state[_u(op + i)] = last
            last = i
            count += 1
        else:
            state[_u(on + i)] = -1
            state[_u(op + i)] = -1
    if first >= 0:
        state[_u(on + last)] = first
        state[_u(op + first)] = last
    state[_u(params[P_O_HEAD] + H_PILES_LEFT)] = count


@njit(cache=True)
def _load_snapshot(state, params):
    """Put the snapshot position on the board (used to replay the record)."""
    head = params[P_O_HEAD]
    snap = params[P_O_SNAP]
    board = _board_words(params)
    for i in range(board):
        state[_u(i)] = state[_u(snap + i)]
    for n, f in enumerate(POSITION_FIELDS):
        state[_u(head + f)] = state[_u(snap + board + n)]
    state[_u(head + H_DONE)] = 0
    _rebuild_links(state, params)
    _reset_hash(state, params)


@njit(cache=True)
def _same_position(a, b, params):
    """Whether ``a`` and ``b`` hold the same piles (words and heights) and position fields."""
    for i in range(_board_words(params)):
        if a[_u(i)] != b[_u(i)]:
            return False
    head = params[P_O_HEAD]
    for f in POSITION_FIELDS:
        if a[_u(head + f)] != b[_u(head + f)]:
            return False
    return True


_LOW_WORD = np.uint64(0xFFFFFFFF)
_WORD_BITS = np.uint64(32)


@njit(cache=True, inline="always")
def _lifted_card(state, lift, cards, in_register, j):
    """Card ``j`` of the lifted pile: from the register ``cards`` or from the lift buffer."""
    if in_register:
        return np.int64((cards >> np.uint64(j)) & np.uint64(1))
    return _card(state, lift, j)


@njit(cache=True, inline="always")  # one call site, in _play
def _sow(state, params, pile, mover):
    """Lift ``pile`` and sow it, with further laps after captures. True if anything was taken."""
    T = params[P_T]
    W = params[P_W]
    oh = params[P_O_H]
    on = params[P_O_NEXT]
    op = params[P_O_PREV]
    shares = params[P_O_SHARES]
    lift = params[P_O_LIFT]
    head = params[P_O_HEAD]
    bottom_up = params[P_BOTTOM_UP] != 0
    captured = False
    # the lifted pile's share is XOR-ed out, every card put down XOR-ed in (and into its pile's share)
    h = state[_u(head + H_HASH)]
    p = pile
    while True:
        n = state[_u(oh + p)]  # 2 or more
        base = p * W
        used = (n + 31) >> 5
        # The lifted cards leave the pile's words first: the origin receives cards during the
        # lap (one per lap of the ring) into bits not yet read. Up to 64 cards (every pile of
        # the beginner deck) are held in a register, more in the lift buffer.
        in_register = n <= 64
        cards = np.uint64(0)
        if in_register:
            cards = np.uint64(state[_u(base)]) & _LOW_WORD
            if used == 2:
                cards |= (np.uint64(state[_u(base + 1)]) & _LOW_WORD) << _WORD_BITS
                state[_u(base + 1)] = 0
            state[_u(base)] = 0
        else:
            for w in range(used):
                state[_u(lift + w)] = state[_u(base + w)]
                state[_u(base + w)] = 0
        h ^= state[_u(shares + p)]
        state[_u(shares + p)] = 0
        state[_u(oh + p)] = 0
        # every card but the last: the first on the origin, the next on the next pile, ...
        j = 0 if bottom_up else n - 1  # the lifted card sown next
        step = 1 if bottom_up else -1
        pos = p
        for _ in range(n - 1):
            bit = _lifted_card(state, lift, cards, in_register, j)
            j += step
            hp = state[_u(oh + pos)]
            _put_card(state, pos * W, hp, bit)
            state[_u(oh + pos)] = hp + 1
            key = _card_key(pos * T + hp, bit)
            state[_u(shares + pos)] ^= key
            h ^= key
            pos = state[_u(on + pos)]
        # the last card, compared with the landing pile's top card before it
        bit = _lifted_card(state, lift, cards, in_register, j)
        hp = state[_u(oh + pos)]
        same = hp > 0 and _card(state, pos * W, hp - 1) == bit
        _put_card(state, pos * W, hp, bit)
        state[_u(oh + pos)] = hp + 1
        key = _card_key(pos * T + hp, bit)
        state[_u(shares + pos)] ^= key
        h ^= key
        if not in_register:
            for w in range(used):
                state[_u(lift + w)] = 0
        if not same:
            break
        # capture the pair: the top card and the last card, both of its colour
        hq = hp - 1
        key = _card_key(pos * T + hq, bit) ^ key
        state[_u(shares + pos)] ^= key
        h ^= key
        if bit:
            _take_card(state, pos * W, hq)
            _take_card(state, pos * W, hp)
        state[_u(oh + pos)] = hq
        state[_u(head + H_PAIRS + 2 * mover + bit)] += 1
        captured = True
        if hq == 0:  # the pile leaves the ring
            nx = state[_u(on + pos)]
            pv = state[_u(op + pos)]
            state[_u(on + pv)] = nx
            state[_u(op + nx)] = pv
            state[_u(on + pos)] = -1
            state[_u(op + pos)] = -1
            state[_u(head + H_PILES_LEFT)] -= 1
            break
        if hq < 2:
            break
        p = pos
    state[_u(head + H_HASH)] = h
    return captured


@njit(cache=True)
def _play(state, params, action):
    """One ply without the record: sowing or reservation, then who moves / the end (a)."""
    P = params[P_PILES]
    oh = params[P_O_H]
    head = params[P_O_HEAD]
    mover = np.int64(state[_u(head + H_TO_MOVE)])  # int64 like every caller's player: one compile of each helper
    state[_u(head + H_PLIES)] += 1
    state[_u(head + H_LAST_MOVER)] = mover
    captured = False
    if state[_u(head + H_PHASE)] == PHASE_RESERVE:
        reserved = action if action < P else -1
        state[_u(head + H_RESERVED)] = reserved
        state[_u(head + H_PHASE)] = PHASE_MOVE
        nxt = 1 - mover
        state[_u(head + H_TO_MOVE)] = nxt
        if not _has_move(state, params, nxt, reserved):
            state[_u(head + H_DONE)] = 1
            state[_u(head + H_END)] = END_NO_MOVE
            state[_u(head + H_TAKER)] = mover
        return False
    pile = (action + _rotation(params, mover)) % P if params[P_PARTIAL] else action
    state[_u(head + H_RESERVED)] = -1
    captured = _sow(state, params, pile, mover)
    nxt = 1 - mover
    if params[P_RESERVATION]:
        any_pile = False
        for i in range(P):
            if state[_u(oh + i)] >= 2:
                any_pile = True
                break
        if any_pile:
            state[_u(head + H_PHASE)] = PHASE_RESERVE
            return captured
        state[_u(head + H_TO_MOVE)] = nxt
        state[_u(head + H_DONE)] = 1
        state[_u(head + H_END)] = END_NO_MOVE
        state[_u(head + H_TAKER)] = mover
        return captured
    if _has_move(state, params, nxt, np.int64(-1)):
        state[_u(head + H_TO_MOVE)] = nxt
    elif params[P_PARTIAL] and _has_move(state, params, mover, np.int64(-1)):
        state[_u(head + H_TO_MOVE)] = mover  # the opponent passes
    else:
        state[_u(head + H_TO_MOVE)] = nxt
        state[_u(head + H_DONE)] = 1
        state[_u(head + H_END)] = END_NO_MOVE
        state[_u(head + H_TAKER)] = mover
    return captured


@njit(cache=True)
def _record(state, params, action, captured):
    """Keep the record after a ply and detect the repetition ending (b)."""
    head = params[P_O_HEAD]
    if captured:
        _new_stretch(state, params)
        return
    checkpoint = state[_u(head + H_PHASE)] == PHASE_MOVE
    h = _position_hash(state, params) if checkpoint else NOT_A_CHECKPOINT
    look = checkpoint and not state[_u(head + H_DONE)]
    rep = params[P_O_REP]
    if record_ply(state, params, rep, params[P_CAP], action, h, look, _new_stretch, _load_snapshot, _play, _same_position):
        state[_u(head + H_DONE)] = 1
        state[_u(head + H_END)] = END_REPETITION
        state[_u(head + H_TAKER)] = 1 - state[_u(head + H_LAST_MOVER)]


# -- kernel ---------------------------------------------------------------------------------
@njit(cache=True)
def init(state, params, rng):
    P = params[P_PILES]
    T = params[P_T]
    head = params[P_O_HEAD]
    state[:] = 0
    deck = np.empty(T, np.int64)
    reds = 2 * params[P_RED_PAIRS]
    for k in range(T):
        deck[k] = RED if k < reds else BLUE
    shuffle_deck(rng, deck)  # = rng.shuffle(deck), draw for draw (core.deal)
    oh = params[P_O_H]
    W = params[P_W]
    pile = 0  # card k goes to pile k mod P (counted, not divided: P is not a constant)
    for k in range(T):
        _put_card(state, pile * W, state[_u(oh + pile)], deck[k] - RED)
        state[_u(oh + pile)] += 1
        pile = pile + 1 if pile < P - 1 else 0
    state[_u(head + H_RESERVED)] = -1
    state[_u(head + H_TAKER)] = -1
    state[_u(head + H_LAST_MOVER)] = -1
    _rebuild_links(state, params)
    _reset_hash(state, params)
    _new_stretch(state, params)


@njit(cache=True)
def legal_mask(state, params, mask):
    P = params[P_PILES]
    oh = params[P_O_H]
    head = params[P_O_HEAD]
    if state[_u(head + H_DONE)]:
        mask[:] = 0
        return 0
    count = 0
    if state[_u(head + H_PHASE)] == PHASE_RESERVE:
        for i in range(P):
            ok = 1 if state[_u(oh + i)] >= 2 else 0
            mask[i] = ok
            count += ok
        mask[P] = 1
        return count + 1
    if params[P_PARTIAL]:
        half = P // 2
        rot = state[_u(head + H_TO_MOVE)] * half
        for a in range(P):
            ok = 0
            if a < half and state[_u(oh + (a + rot) % P)] >= 2:
                ok = 1
            mask[a] = ok
            count += ok
        return count
    reserved = state[_u(head + H_RESERVED)]
    for i in range(P):
        ok = 1 if state[_u(oh + i)] >= 2 and i != reserved else 0
        mask[i] = ok
        count += ok
    for a in range(P, mask.shape[0]):
        mask[a] = 0
    return count


@njit(cache=True)
def apply(state, params, action):
    captured = _play(state, params, np.int64(action))  # one action type: _play compiles once per params type
    _record(state, params, np.int64(action), captured)


@njit(cache=True)
def current_player(state, params):
    head = params[P_O_HEAD]
    if state[_u(head + H_DONE)]:
        return -1
    return state[_u(head + H_TO_MOVE)]


@njit(cache=True)
def _board_points(state, params):
    P = params[P_PILES]
    oh = params[P_O_H]
    points = 0  # a red card 1, a blue card 2: every card 1, plus one per blue bit
    for i in range(P):
        points += state[_u(oh + i)]
    for w in range(P * params[P_W]):
        points += _bit_count(state[w])
    return points // 2


@njit(cache=True, inline="always")
def _bit_count(word):
    """The number of set bits of an int32 word."""
    x = np.int64(word) & _WORD
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return (x * 0x01010101 & _WORD) >> 24


@njit(cache=True)
def _points(state, params, player):
    """``player``'s points: the pairs taken, plus the cards left on the board once they took them."""
    head = params[P_O_HEAD]
    points = state[_u(head + H_PAIRS + 2 * player)] + 2 * state[_u(head + H_PAIRS + 2 * player + 1)]
    if state[_u(head + H_DONE)] and state[_u(head + H_TAKER)] == player:
        points += _board_points(state, params)
    return points


@njit(cache=True)
def scores(state, params, out):
    out[0] = _points(state, params, np.int64(0))
    out[1] = _points(state, params, np.int64(1))


@njit(cache=True)
def returns(state, params, out):
    out[0] = 0.0
    out[1] = 0.0
    if state[_u(params[P_O_HEAD] + H_DONE)]:
        scores(state, params, out)  # the points, then the result they give
        set_returns(out[0] - out[1], out)


@njit(cache=True)
def observe(state, params, player, out):
    P = params[P_PILES]
    T = params[P_T]
    oh = params[P_O_H]
    head = params[P_O_HEAD]
    rot = _rotation(params, player)
    W = params[P_W]
    for v in range(P):
        i = (v + rot) % P
        n = state[_u(oh + i)]
        base = i * W
        obase = v * T
        for k in range(n):
            out[obase + k] = _card(state, base, n - 1 - k) + 1
        for k in range(n, T):
            out[obase + k] = 0.0
        out[P * T + v] = n
    b = P * T + P
    out[b] = state[_u(head + H_PILES_LEFT)]
    out[b + 1] = _points(state, params, np.int64(player))  # no scores array: one allocation less to compile
    out[b + 2] = _points(state, params, np.int64(1 - player))
    done = state[_u(head + H_DONE)] != 0
    out[b + 3] = 1.0 if (not done and state[_u(head + H_TO_MOVE)] == player) else 0.0
    b += 4
    if params[P_RESERVATION]:
        out[b] = 1.0 if (not done and state[_u(head + H_PHASE)] == PHASE_RESERVE) else 0.0
        reserved = state[_u(head + H_RESERVED)]
        for v in range(P):
            out[b + 1 + v] = 1.0 if (v + rot) % P == reserved else 0.0
        b += P + 1
    if params[P_PARTIAL]:
        half = P // 2
        for v in range(P):
            i = (v + rot) % P
            out[b + v] = 1.0 if (i // half) == player else 0.0


@njit(cache=True)
def plies(state, params):
    return state[_u(params[P_O_HEAD] + H_PLIES)]


KERNEL = Kernel(init, legal_mask, apply, current_player, scores, returns, observe, plies)


@njit(cache=True)
def _replay(state, params, actions, out):
    """Apply ``actions`` with legality checks; out = (index of the first bad action or -1, reason)."""
    replay_checked(state, params, actions, out, params[P_PILES] + 1, current_player, legal_mask, apply)


# -- the rules object -----------------------------------------------------------------------
def check_deck(owner: str, piles: int, cards_per_pile: int, red_pairs: int, blue_pairs: int) -> None:
    """Raise InvalidOptionError naming the first restriction of the rule text the deck breaks."""
    cards = piles * cards_per_pile
    deck = 2 * (red_pairs + blue_pairs)
    if cards % 2:
        raise InvalidOptionError(
            f"{owner}: the number of cards must be even, but piles * cards_per_pile = {piles} * {cards_per_pile} "
            f"= {cards} is odd"
        )
    if cards != deck:
        raise InvalidOptionError(
            f"{owner}: every pile must start with the same number of cards: {piles} piles of {cards_per_pile} "
            f"need {cards} cards, but red_pairs={red_pairs} and blue_pairs={blue_pairs} make {deck}"
        )
    points = red_pairs + 2 * blue_pairs
    if points % 2 == 0:
        raise InvalidOptionError(
            f"{owner}: the point total must be odd, but red_pairs + 2 * blue_pairs = {red_pairs} + 2 * {blue_pairs} "
            f"= {points} is even"
        )
    if not 1 <= blue_pairs - red_pairs <= 2:
        raise InvalidOptionError(
            f"{owner}: there must be one or two more blue pairs than red pairs, but blue_pairs - red_pairs = "
            f"{blue_pairs} - {red_pairs} = {blue_pairs - red_pairs}"
        )
    c = cards_per_pile
    ok = (piles == c - 1) if c == 2 else (piles >= c - 1 and (piles - (c - 1)) % (c - 2) == 0)
    if not ok:
        raise InvalidOptionError(
            f"{owner}: the opening identity (c-1) + j*(c-2) = piles must hold for a whole j >= 0 (the second "
            f"player's first turn can go at most exactly one round), but with c = cards_per_pile = {c} and "
            f"piles = {piles} it does not (piles would have to be {c - 1}"
            + ("" if c == 2 else f" + a multiple of {c - 2}")
            + ")"
        )


class RondellGame(Game):
    """Rondell: Ralf Gering's card mancala of red and blue cards (with its variants)."""

    kernel = KERNEL
    family = "rondell"
    search_params_as_array = True  # apply calls _play and _record: the env's compiled copies serve the search too
    OPTIONS = (
        Option("piles", 9, "int", "piles in the ring", low=2, high=32),
        Option("cards_per_pile", 6, "int", "cards per pile at the deal", low=2, high=16),
        Option("red_pairs", 13, "int", "pairs of red cards (1 point each)", low=0, high=256),
        Option("blue_pairs", 14, "int", "pairs of blue cards (2 points each)", low=1, high=256),
        Option("reservation", False, "bool", "after a move the mover may reserve a pile against the opponent"),
        Option("partial", False, "bool", "each player owns half the ring and must start there"),
        Option("bottom_up", False, "bool", "Michael's Rondell: a lifted pile is sown from its bottom card"),
        Option(
            "max_plies", 2000, "int", MAX_PLIES_OPTION_DOC + "; also sizes the repetition record", low=1, high=100_000
        ),
    )

    def _validate_combination(self) -> None:
        o = self.options
        check_deck(self.env_id, o["piles"], o["cards_per_pile"], o["red_pairs"], o["blue_pairs"])
        if o["partial"] and o["piles"] % 2:
            raise InvalidOptionError(
                f"{self.env_id}: partial=True splits the ring into two equal areas, so piles must be even, "
                f"got piles={o['piles']}"
            )
        if o["partial"] and o["reservation"]:
            raise InvalidOptionError(
                f"{self.env_id}: reservation=True and partial=True cannot be combined; choose one variant"
            )

    def _layout(self) -> dict:
        """Sizes and offsets of the state (computed once per game object)."""
        cached = self.__dict__.get("_layout_cache")
        if cached is not None:
            return cached
        o = self.options
        P = o["piles"]
        T = P * o["cards_per_pile"]
        cap = o["max_plies"] + 1
        W = (T + 31) // 32
        oh = P * W
        lay = {"P": P, "T": T, "cap": cap, "W": W, "h": oh, "next": oh + P, "prev": oh + 2 * P, "shares": oh + 3 * P,
               "lift": oh + 4 * P}
        lay["head"] = lay["lift"] + W
        lay["snap"] = lay["head"] + HEADER_SIZE
        lay["rep"] = lay["snap"] + P * W + P + len(POSITION_FIELDS)
        lay["size"] = lay["rep"] + rep_block_size(cap)
        self.__dict__["_layout_cache"] = lay
        return lay

    PARAM_OPTIONS = ("piles", "cards_per_pile", "red_pairs", "blue_pairs", "reservation", "partial", "bottom_up")

    def _derived_params(self) -> list[int]:
        """P_T (cards in the deck), P_CAP (record entries), P_W (words per pile) and the offsets of
        the state's parts."""
        lay = self._layout()
        return [lay[key] for key in ("T", "cap", "W", "h", "next", "prev", "shares", "lift", "head", "snap", "rep")]

    def _sizes(self) -> tuple[int, int, int]:
        o = self.options
        lay = self._layout()
        P, T = lay["P"], lay["T"]
        actions = P + 1 if o["reservation"] else P
        obs = P * T + P + 4 + (P + 1 if o["reservation"] else 0) + (P if o["partial"] else 0)
        return lay["size"], actions, obs

    def position_key_indices(self) -> np.ndarray:
        """Everything but the ply counter: the repetition record decides the game, and the last
        mover decides who takes the leftover cards."""
        return state_indices_except(self, [int(self.params[P_O_HEAD]) + H_PLIES])

    @property
    def piles(self) -> int:
        return self.options["piles"]

    @property
    def deck_size(self) -> int:
        return self.options["piles"] * self.options["cards_per_pile"]

    def total_points(self) -> int:
        return self.options["red_pairs"] + 2 * self.options["blue_pairs"]

    def observation_bounds(self) -> tuple[float, float]:
        return 0.0, float(max(self.deck_size, self.total_points()))

    def conserved_total(self, state: State) -> int:
        """Cards on the board plus cards taken (two per pair): always the deck size."""
        lay = self._layout()
        a = state.array
        head = lay["head"]
        board = int(a[lay["h"] : lay["h"] + lay["P"]].sum())
        return board + 2 * int(a[head + H_PAIRS : head + H_PAIRS + 4].sum())

    def info(self, state: State) -> dict:
        a = state.array
        head = self._layout()["head"]
        end = END_NAMES[int(a[head + H_END])]
        return {"end": end} if end else {}

    # -- JSON -------------------------------------------------------------------------------
    def _piles_json(self, a: np.ndarray, at: int = 0) -> list[str]:
        """The piles of the board at ``at`` (0: the position, else the snapshot's), bottom to top."""
        lay = self._layout()
        P, W = lay["P"], lay["W"]
        words = a[at : at + P * W].astype(np.int64) & 0xFFFFFFFF
        heights = a[at + P * W : at + P * W + P]
        piles = []
        for i in range(P):
            bits = sum(int(words[i * W + w]) << (32 * w) for w in range(W))
            piles.append("".join(COLOUR_LETTERS[1 + (bits >> j & 1)] for j in range(int(heights[i]))))
        return piles

    def _state_to_json(self, a: np.ndarray) -> dict:
        lay = self._layout()
        P, W, head, snap, rep = lay["P"], lay["W"], lay["head"], lay["snap"], lay["rep"]
        snap_piles = self._piles_json(a, snap)
        snap_fields = snap + P * W + P  # POSITION_FIELDS: to_move, phase, reserved
        actions = rep_actions(a, rep)
        reserved = int(a[head + H_RESERVED])
        snap_reserved = int(a[snap_fields + 2])
        last = int(a[head + H_LAST_MOVER])
        taker = int(a[head + H_TAKER])
        return {
            "piles": self._piles_json(a),
            "to_move": int(a[head + H_TO_MOVE]),
            "phase": PHASE_NAMES[int(a[head + H_PHASE])],
            "reserved": None if reserved < 0 else reserved,
            "pairs": [[int(a[head + H_PAIRS]), int(a[head + H_PAIRS + 1])],
                      [int(a[head + H_PAIRS + 2]), int(a[head + H_PAIRS + 3])]],
            "plies": int(a[head + H_PLIES]),
            "last_mover": None if last < 0 else last,
            "terminal": bool(a[head + H_DONE]),
            "end": END_NAMES[int(a[head + H_END])],
            "leftover_to": None if taker < 0 else taker,
            "history": {
                "piles": snap_piles,
                "to_move": int(a[snap_fields]),
                "phase": PHASE_NAMES[int(a[snap_fields + 1])],
                "reserved": None if snap_reserved < 0 else snap_reserved,
                "actions": actions,
            },
        }

    def _parse_piles(self, value, where: str) -> list[list[int]]:
        owner = self.env_id
        P = self.piles
        if not isinstance(value, (list, tuple)) or len(value) != P:
            raise InvalidStateError(
                f"{owner}: {where} must be a list of {P} strings of R and B (each pile bottom to top, "
                f"\"\" for a pile that left the ring), got {value!r}"
            )
        out = []
        for i, pile in enumerate(value):
            if not isinstance(pile, str) or not re.fullmatch(r"[RBrb]*", pile):
                raise InvalidStateError(
                    f"{owner}: {where}[{i}] must be a string of R (red) and B (blue) cards, bottom to top, got {pile!r}"
                )
            out.append([RED if ch in "Rr" else BLUE for ch in pile])
        return out

    def _build(self, piles, to_move, phase, reserved, pairs, ply_count, last_mover) -> np.ndarray:
        lay = self._layout()
        W, oh, head = lay["W"], lay["h"], lay["head"]
        a = np.zeros(lay["size"], dtype=np.int32)
        for i, pile in enumerate(piles):
            bits = sum(1 << j for j, c in enumerate(pile) if c == BLUE)
            words = [(bits >> (32 * w)) & 0xFFFFFFFF for w in range(W)]
            a[i * W : (i + 1) * W] = np.array(words, dtype=np.uint32).view(np.int32)
            a[oh + i] = len(pile)
        a[head + H_TO_MOVE] = to_move
        a[head + H_PHASE] = phase
        a[head + H_RESERVED] = reserved
        a[head + H_PLIES] = ply_count
        a[head + H_LAST_MOVER] = last_mover
        a[head + H_TAKER] = -1
        for p in range(2):
            a[head + H_PAIRS + 2 * p] = pairs[p][0]
            a[head + H_PAIRS + 2 * p + 1] = pairs[p][1]
        _rebuild_links(a, self.params)
        _reset_hash(a, self.params)
        return a

    def _check_position(self, piles, pairs, to_move, phase, reserved, where: str) -> None:
        owner = self.env_id
        o = self.options
        reds = sum(c == RED for pile in piles for c in pile)
        blues = sum(c == BLUE for pile in piles for c in pile)
        taken_red = pairs[0][0] + pairs[1][0]
        taken_blue = pairs[0][1] + pairs[1][1]
        if reds + 2 * taken_red != 2 * o["red_pairs"] or blues + 2 * taken_blue != 2 * o["blue_pairs"]:
            raise InvalidStateError(
                f"{owner}: {where} has {reds} red and {blues} blue cards on the board and {taken_red} red and "
                f"{taken_blue} blue pairs taken; the deck has {o['red_pairs']} red and {o['blue_pairs']} blue pairs"
            )
        if phase == PHASE_RESERVE and not o["reservation"]:
            raise InvalidStateError(f"{owner}: phase 'reserve' exists only with reservation=True")
        if reserved >= 0:
            if not o["reservation"] or phase != PHASE_MOVE:
                raise InvalidStateError(
                    f"{owner}: 'reserved' must be null unless reservation=True and phase is 'move'"
                )
            if len(piles[reserved]) < 2:
                raise InvalidStateError(
                    f"{owner}: 'reserved' must name a pile of 2 or more cards; pile {reserved} has {len(piles[reserved])}"
                )

    def _settle_by_hand(self, a: np.ndarray, last_mover: int) -> None:
        """End (a) for a position set up by hand; refuse positions play can never stop in."""
        owner = self.env_id
        lay = self._layout()
        head, P = lay["head"], lay["P"]
        heights = a[lay["h"] : lay["h"] + P]
        to_move = int(a[head + H_TO_MOVE])
        phase = int(a[head + H_PHASE])
        if phase == PHASE_RESERVE:
            if not (heights >= 2).any():
                raise InvalidStateError(
                    f"{owner}: a reservation step needs a pile of 2 or more cards on the board (none here)"
                )
            return
        if _has_move(a, self.params, to_move, int(a[head + H_RESERVED])):
            return
        if self.options["partial"] and _has_move(a, self.params, 1 - to_move, -1):
            raise InvalidStateError(
                f"{owner}: player {to_move} has no move in their area, so they pass and player {1 - to_move} "
                f"moves; set to_move={1 - to_move}"
            )
        a[head + H_DONE] = 1
        a[head + H_END] = END_NO_MOVE
        a[head + H_TAKER] = last_mover if last_mover >= 0 else 1 - to_move

    def _state_from_json(self, payload: dict) -> np.ndarray:
        owner = self.env_id
        P = self.piles
        check_json_keys(payload, JSON_KEYS, owner)
        piles = self._parse_piles(payload.get("piles"), "'piles'")
        to_move = json_int(payload, "to_move", owner, 0, 1)
        phase_name = payload.get("phase", "move")
        if phase_name not in PHASE_NAMES:
            raise InvalidStateError(f"{owner}: 'phase' must be 'move' or 'reserve', got {phase_name!r}")
        phase = PHASE_NAMES.index(phase_name)
        reserved = payload.get("reserved")
        reserved = -1 if reserved is None else json_int(payload, "reserved", owner, 0, P - 1)
        pairs = payload.get("pairs", [[0, 0], [0, 0]])
        if (
            not isinstance(pairs, (list, tuple))
            or len(pairs) != 2
            or any(not isinstance(row, (list, tuple)) or len(row) != 2 for row in pairs)
            or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0 for row in pairs for v in row)
        ):
            raise InvalidStateError(
                f"{owner}: 'pairs' must be [[red, blue] pairs of player 0, [red, blue] of player 1], "
                f"non-negative integers, got {pairs!r}"
            )
        pairs = [[int(v) for v in row] for row in pairs]
        ply_count = json_plies(payload, owner)
        last_mover = payload.get("last_mover")
        last_mover = -1 if last_mover is None else json_int(payload, "last_mover", owner, 0, 1)
        self._check_position(piles, pairs, to_move, phase, reserved, "the position")
        history = payload.get("history")
        if history is None:
            a = self._build(piles, to_move, phase, reserved, pairs, ply_count, last_mover)
            self._settle_by_hand(a, last_mover)
            _new_stretch(a, self.params)
        else:
            a = self._from_history(history, pairs, ply_count, last_mover)
        made = self._state_to_json(a)
        for key in ("piles", "to_move", "phase", "reserved", "pairs", "plies", "last_mover", "terminal", "end",
                    "leftover_to"):
            if key not in payload:
                continue
            given = payload[key]
            if key == "piles":
                given = ["".join("R" if ch in "Rr" else "B" for ch in pile) for pile in given]
            if key == "pairs":
                given = pairs
            if made[key] != given:
                raise InvalidStateError(
                    f"{owner}: the position is inconsistent: {key!r} is {given!r} in the payload, but "
                    + ("replaying the history gives" if history is not None else "the rules make it")
                    + f" {made[key]!r}"
                )
        return a

    def _from_history(self, history, pairs, ply_count, last_mover) -> np.ndarray:
        owner = self.env_id
        if not isinstance(history, dict):
            raise InvalidStateError(
                f"{owner}: 'history' must be a dict with piles, to_move, phase, reserved and actions, got "
                f"{type(history).__name__}"
            )
        check_json_keys(history, HISTORY_KEYS, owner, "a history")
        piles = self._parse_piles(history.get("piles"), "history 'piles'")
        to_move = json_int(history, "to_move", owner, 0, 1)
        phase_name = history.get("phase", "move")
        if phase_name not in PHASE_NAMES:
            raise InvalidStateError(f"{owner}: history 'phase' must be 'move' or 'reserve', got {phase_name!r}")
        phase = PHASE_NAMES.index(phase_name)
        reserved = history.get("reserved")
        reserved = -1 if reserved is None else json_int(history, "reserved", owner, 0, self.piles - 1)
        actions = json_int_list({"history actions": history.get("actions", [])}, "history actions", None, owner,
                                high=self.num_actions - 1)
        cap = self._layout()["cap"]
        if len(actions) >= cap:
            raise InvalidStateError(
                f"{owner}: history 'actions' holds {len(actions)} actions; at most max_plies = {cap - 1} fit"
            )
        if len(actions) > ply_count:
            raise InvalidStateError(
                f"{owner}: history has {len(actions)} actions but the position has only plies={ply_count}"
            )
        self._check_position(piles, pairs, to_move, phase, reserved, "the history's start position")
        # the replay overwrites last_mover; without actions the start is the position itself
        a = self._build(piles, to_move, phase, reserved, pairs, ply_count - len(actions), last_mover)
        self._settle_by_hand(a, last_mover)
        _new_stretch(a, self.params)
        out = np.zeros(2, dtype=np.int64)
        _replay(a, self.params, np.asarray(actions, dtype=np.int64), out)
        if out[0] >= 0:
            why = "comes after the end of the game" if out[1] == 1 else "is not legal there"
            raise InvalidStateError(
                f"{owner}: history action {out[0]} ({actions[int(out[0])]}) {why}"
            )
        rep = self._layout()["rep"]
        if int(rep_count(a, rep)) != len(actions) + 1:
            raise InvalidStateError(
                f"{owner}: the history's actions take a pair, but a history covers only the plies since the last capture"
            )
        return a

    # -- notation ---------------------------------------------------------------------------
    def _phase(self, state: State) -> int:
        return int(state.array[self._layout()["head"] + H_PHASE])

    def _action_to_string(self, state: State, action: int) -> str:
        P = self.piles
        if self._phase(state) == PHASE_RESERVE:
            return "r-" if action == P else f"r{action + 1}"
        if action >= P:
            return f"<no move {action}>"
        player = max(state.current_player, 0)
        rot = player * (P // 2) if self.options["partial"] else 0
        return str((action + rot) % P + 1)

    def _string_to_action(self, state: State, text: str) -> int:
        owner = self.env_id
        P = self.piles
        if not isinstance(text, str):
            raise NotationError(f"{owner}: a move must be a string, got {type(text).__name__}")
        if state.is_terminal():
            raise NotationError(f"{owner}: the game is over; no move {text!r} can be played")
        raw = text.strip().lower()
        if self._phase(state) == PHASE_RESERVE:
            match = re.fullmatch(r"r?\s*(-|none|\d+)", raw)
            if not match:
                raise NotationError(
                    f"{owner}: reservation {text!r} not understood; write r<pile> (e.g. 'r5') or 'r-' for none"
                )
            word = match.group(1)
            action = P if word in ("-", "none") else int(word) - 1
            if action != P and not 0 <= action < P:
                raise NotationError(f"{owner}: pile {word} does not exist; piles are numbered 1 to {P}")
        else:
            if not re.fullmatch(r"\d+", raw):
                raise NotationError(f"{owner}: move {text!r} not understood; write a pile number 1 to {P}, e.g. '5'")
            pile = int(raw) - 1
            if not 0 <= pile < P:
                raise NotationError(f"{owner}: pile {raw} does not exist; piles are numbered 1 to {P}")
            rot = state.current_player * (P // 2) if self.options["partial"] else 0
            action = (pile - rot) % P
        if not state.is_legal(action):
            legal = ", ".join(self._action_to_string(state, a) for a in state.legal_actions())
            raise NotationError(f"{owner}: {text!r} is not legal here; legal moves: {legal}")
        return action

    # -- text board and pictures -------------------------------------------------------------
    def status_text(self, state: State) -> str:
        a = state.array
        head = self._layout()["head"]
        s = state.scores()
        if a[head + H_DONE]:
            result = "player_0 wins" if s[0] > s[1] else "player_1 wins" if s[1] > s[0] else "draw"
            end = END_NAMES[int(a[head + H_END])]
            return f"game over ({end}, leftovers to player_{int(a[head + H_TAKER])}): {result} {s[0]}-{s[1]}"
        what = "to reserve" if a[head + H_PHASE] == PHASE_RESERVE else "to move"
        return f"player_{int(a[head + H_TO_MOVE])} {what}; points {s[0]}-{s[1]}"

    def action_cell(self, state: State, action: int) -> tuple[str | None, str]:
        """The pile lifted (or reserved), keyed by its number (``"5"``); "no reservation" is off
        the board."""
        name = self._action_to_string(state, action)
        if name == "r-" or name.startswith("<"):
            return None, ""
        return name.lstrip("r"), ""

    def board_view(self, state: State) -> dict:
        """The ring of piles seen from above, numbered counterclockwise, every card face up."""
        a = state.array
        lay = self._layout()
        head, P = lay["head"], lay["P"]
        half = P // 2
        partial = self.options["partial"]
        cells = {}
        for i, pile in enumerate(self._piles_json(a)):
            cells[str(i + 1)] = view_cell(str(i + 1), len(pile), "pile", i // half if partial else None, list(pile))
        reserved = int(a[head + H_RESERVED])
        marks = {str(reserved + 1): "reserved"} if reserved >= 0 else {}
        pairs = [[int(a[head + H_PAIRS + 2 * p]), int(a[head + H_PAIRS + 2 * p + 1])] for p in (0, 1)]
        details = [
            f"pairs taken: player_0 {pairs[0][0]} red, {pairs[0][1]} blue; player_1 {pairs[1][0]} red, "
            f"{pairs[1][1]} blue (red 1 point, blue 2)"
        ]
        if partial:
            details.append(f"areas: player_0 piles 1-{half}, player_1 piles {half + 1}-{P}")
        return board_view_of(
            self, state, "ring", cells, [[str(i + 1) for i in range(P)]],
            seats=["player_0", "player_1 (dealer)"], score_name="points", details=details,
            focus=[str(reserved + 1)] if reserved >= 0 else [], marks=marks,
        )

    def _render_text(self, state: State) -> str:
        a = state.array
        lay = self._layout()
        head = lay["head"]
        piles = self._piles_json(a)
        lines = []
        half = self.piles // 2
        reserved = int(a[head + H_RESERVED])
        for i, pile in enumerate(piles):
            mark = ""
            if self.options["partial"]:
                mark += f" (player_{i // half})"
            if i == reserved:
                mark += " reserved"
            body = pile + " <top" if pile else "-- left the ring"
            lines.append(f"  {i + 1:>2} [{len(pile):>3}] {body}{mark}")
        ply = int(a[head + H_PLIES])
        status = self.status_text(state)
        header = f"{self.env_id} ply {ply}: {status}; {int(a[head + H_PILES_LEFT])} piles (bottom to top)"
        return "\n".join([header, *lines])


_EXPERT_DECK = {"piles": 16, "cards_per_pile": 7, "red_pairs": 27, "blue_pairs": 29}

VARIANTS = (
    Variant("rondell-v0", RondellGame, "Rondell, beginner deck: 9 piles of 6 red/blue cards"),
    Variant("rondell-expert-v0", RondellGame, "Rondell, expert deck: 16 piles of 7 red/blue cards", _EXPERT_DECK),
    Variant(
        "rondell-reservation-v0",
        RondellGame,
        "Rondell mit Reservierung: the mover may reserve a pile against the opponent's next move",
        {**_EXPERT_DECK, "reservation": True},
    ),
    Variant(
        "rondell-partial-v0",
        RondellGame,
        "Parteiisches Rondell: each player owns 8 consecutive piles and must start there",
        {**_EXPERT_DECK, "partial": True},
    ),
    Variant(
        "rondell-bottom-up-v0",
        RondellGame,
        "Michael's Rondell: lifted piles are sown from the bottom card up",
        {**_EXPERT_DECK, "bottom_up": True},
    ),
)
