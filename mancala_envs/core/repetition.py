"""Exact repetition detection inside the flat state, for games that end on a repeated position.

A position can repeat only within the stretch since the last irreversible event (in the
card games: the last capture, which removes cards for good). So a game keeps, inside its
flat ``int32`` state, a *record* of that stretch and nothing older:

* a **snapshot** of the position at the start of the stretch (game-specific layout, kept
  by the game itself), and
* a **block** of entries, half a word per ply since the snapshot: the action played and 10
  bits of the hash of the position it led to (``NOT_A_CHECKPOINT`` for positions that are
  never compared, e.g. a mid-turn decision step). Entry 0 is the snapshot position itself.

Checking a new position: ``rep_find`` scans the block for an equal hash. A hash is only a
filter: the game **confirms** every match exactly, by replaying the recorded actions from
the snapshot on a scratch copy and comparing the whole position. A hash collision therefore
costs a replay and can never end a game. (Storing the positions themselves would need a
packed position per ply; the hash-plus-replay record needs half a word per ply. Search
copies and hashes the whole state at every node, so the record's size is paid there: it is
sized for the ply cap, thousands of entries, where random games of the card games last 40 to
250 plies, so most of it is zeros that every node copies. With 10 hash bits a scanned entry
matches by chance once in 1,024, and a stretch is a few plies long on average (a capture
ends it), so the replays they cost are rare.)

After an irreversible ply the game calls ``rep_clear`` and writes a new snapshot. Because
the env, the batched engine and every search agent call the same kernel on the same state,
they all see the same ending.

Block layout at offset ``off`` with capacity ``cap`` (``rep_block_size(cap)`` words)::

    off+0                     count: entries in use (0..cap)
    off+1 ..                  entries, two 16-bit entries a word (entry i in word i // 2, the
                              low half for even i): (hash bits << 6) | (action + 1), the hash
                              bits being the low 10 bits of the position's hash (all ones for
                              NOT_A_CHECKPOINT) and the action -1 for entry 0 (the snapshot)

Entries past ``count`` are always zero, so two states holding the same record are equal as
arrays. A game sizes ``cap`` so that the block cannot fill before its ply cap (``max_plies
+ 1``); if play goes on past the cap (only possible through the ``State`` API) and the block
fills, ``rep_push`` returns False and the game restarts the stretch at the current position
(documented per game: a repetition of a position older than the restart is then missed).

Stacked-card games
------------------
The card games keep their board as ``stacks`` stacks of ``cells`` cells each (stack ``i``
in ``state[i*cells : (i+1)*cells]``, bottom card first), the stack heights at ``heights``
and a header at ``head``. For them this module also holds the rest of the record, written
once: the position hash (``stacks_hash``: a Zobrist hash, the XOR of one key per card and
position field, which the games update move by move from ``cell_key`` and ``stack_hash``
and check against ``cells_hash``), the snapshot (``snapshot_take``/``snapshot_restore``,
``stacks_equal``), the exact confirmation by replay (``repeats_exactly``) and one ply of
record-keeping (``record_ply``). ``fields`` names the header entries that belong to the
position (the player to move, a phase, ...). Snapshot layout at ``snap``::

    snap+0 .. snap+stacks                 stack heights
    snap+stacks .. +cells+SNAPSHOT_BLOCK  the cards, stack after stack (unused cells zero; the
                                          last SNAPSHOT_BLOCK cells are room for snapshot_take's
                                          block copies)
    snap+stacks+cells+SNAPSHOT_BLOCK ..   the header ``fields``, in order (``snapshot_field``)

``cells`` must be at least the number of cards in play. The game-specific steps (its ply
without the record, its snapshot wrappers) are passed in as jitted functions; the functions
taking them are inlined into the game's caller (``inline="always"``), because a jitted
function passed as a value at run time is an address that numba cannot cache.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .jit_helpers import move_within, unsigned_index  # unsigned_index: the kernels import it from here


NOT_A_CHECKPOINT = -1

R_COUNT = 0
R_ENTRIES = 1
ACTION_BITS = 6  # actions -1 .. 62 fit in an entry
HASH_BITS = 10
ENTRY_BITS = ACTION_BITS + HASH_BITS  # 16: two entries a word
_ENTRY_MASK = (1 << ENTRY_BITS) - 1
_SIGN = 1 << 31
_WORD = (1 << 32) - 1
_ACTION_MASK = (1 << ACTION_BITS) - 1
_HASH_MASK = (1 << HASH_BITS) - 1  # also the bits stored for NOT_A_CHECKPOINT

_U33 = np.uint64(33)


SNAPSHOT_BLOCK = 16  # snapshot_take copies each stack as a block of this many cells


def snapshot_size(stacks: int, cells: int, fields: int) -> int:
    """Words of a snapshot of ``stacks`` stacks of ``cells`` cells and ``fields`` header fields."""
    return stacks + cells + SNAPSHOT_BLOCK + fields


def snapshot_field(stacks: int, cells: int, n: int) -> int:
    """Where header field ``n`` (its index in ``fields``) sits in a snapshot, from its start."""
    return stacks + cells + SNAPSHOT_BLOCK + n


def rep_block_size(cap: int) -> int:
    """Words of a block holding ``cap`` entries (two a word)."""
    return R_ENTRIES + (cap + 1) // 2


_FIBONACCI = np.uint64(0x9E3779B97F4A7C15)  # 2**64 divided by the golden ratio


@njit(cache=True, inline="always")
def fibonacci_key(n):
    """A 31-bit Zobrist key for the number ``n`` (>= -1): ``n + 1`` times 2**64 divided by the
    golden ratio, the top 31 bits of the 64-bit product kept (Fibonacci hashing: one multiply,
    and consecutive numbers get keys spread over the whole range)."""
    return np.int32((np.uint64(n + 1) * _FIBONACCI) >> _U33)


@njit(cache=True, inline="always")
def cell_key(index, value):
    """The 31-bit Zobrist key of ``value`` (-1 .. 126) held at ``index`` of a position.

    A position's hash is the XOR of the keys of what it holds, so a move updates it by
    XOR-ing out what it takes away and XOR-ing in what it puts down, without reading the rest
    of the board. The keys are computed, not stored in a table: ``fibonacci_key`` of the
    (index, value) pair numbered as ``index * 128 + value``.
    """
    return fibonacci_key((np.int64(index) << 7) + value)


@njit(cache=True)
def rep_count(state, off):
    return state[off + R_COUNT]


@njit(cache=True, inline="always")
def _hash_bits(h):
    """The bits of hash ``h`` (>= 0, or NOT_A_CHECKPOINT) that an entry keeps."""
    return h & _HASH_MASK


@njit(cache=True, inline="always")
def _entry(state, off, i):
    """Entry ``i`` of the block (16 bits)."""
    return (state[unsigned_index(off + R_ENTRIES + (i >> 1))] >> ((i & 1) * ENTRY_BITS)) & _ENTRY_MASK


@njit(cache=True)
def rep_hash(state, off, cap, i):
    """The hash bits of entry ``i`` (``_HASH_MASK`` for NOT_A_CHECKPOINT)."""
    return _entry(state, off, i) >> ACTION_BITS


@njit(cache=True)
def rep_action(state, off, cap, i):
    return (_entry(state, off, i) & _ACTION_MASK) - 1


def rep_actions(state: np.ndarray, off: int) -> list[int]:
    """The actions of entries 1 .. count-1 (the plies since the snapshot), for Python callers."""
    n = int(state[off + R_COUNT])
    words = state[off + R_ENTRIES : off + R_ENTRIES + (n + 1) // 2].astype(np.int64) & 0xFFFFFFFF
    entries = np.stack([words & _ENTRY_MASK, words >> ENTRY_BITS], axis=1).ravel()[1:n]
    return [int(x) for x in (entries & _ACTION_MASK) - 1]


@njit(cache=True)
def rep_clear(state, off, cap):
    """Forget the stretch: zero the entries in use and set the count to 0."""
    n = state[unsigned_index(off + R_COUNT)]
    for i in range((n + 1) >> 1):
        state[unsigned_index(off + R_ENTRIES + i)] = 0
    state[unsigned_index(off + R_COUNT)] = 0


@njit(cache=True, inline="always")
def wrap_int32(value):
    """``value``'s low 32 bits as a signed int32 value (bit 31 is the sign bit), for a store into
    the ``int32`` state. The wrap is written out, without a branch, so that it also holds
    without JIT, where numpy refuses an overflowing store."""
    return ((value + _SIGN) & _WORD) - _SIGN


@njit(cache=True)
def rep_push(state, off, cap, h, action):
    """Append (hash, action) (``action`` -1 .. 62); False (and nothing written) when the block is full."""
    n = state[unsigned_index(off + R_COUNT)]
    if n >= cap:
        return False
    entry = np.int64((_hash_bits(h) << ACTION_BITS) | (action + 1))
    w = unsigned_index(off + R_ENTRIES + (n >> 1))
    # the half is zero (entries past the count are); the high half's top bit is the sign bit
    state[w] = wrap_int32(np.int64(state[w]) | (entry << ((n & 1) * ENTRY_BITS)))
    state[unsigned_index(off + R_COUNT)] = n + 1
    return True


@njit(cache=True)
def rep_find(state, off, cap, h, start):
    """The first entry index >= start whose hash bits are those of ``h``, or -1 (``h`` must be
    >= 0; a NOT_A_CHECKPOINT entry can match too, and then fails the exact confirmation)."""
    n = state[unsigned_index(off + R_COUNT)]
    bits = _hash_bits(h)
    for i in range(start, n):
        if _entry(state, off, i) >> ACTION_BITS == bits:
            return i
    return -1


# -- stacked-card games ----------------------------------------------------------------------
@njit(cache=True, inline="always")
def stack_hash(state, i, cells, n):
    """The XOR of the keys of the first ``n`` cards of stack ``i`` (its hash share when it holds ``n``)."""
    h = np.int32(0)
    base = i * cells
    for j in range(n):
        card = state[unsigned_index(base + j)]
        # Never true below the height (cards are nonzero), but a loop that may stop early is not
        # vectorised by LLVM: a stack holds a few cards, and the vector loop with its scalar
        # remainder is many times the code, which every function that calls this compiles again.
        if card == 0:
            break
        h ^= cell_key(base + j, card)
    return h


@njit(cache=True)
def cells_hash(state, stacks, cells, heights):
    """The hash share of the stacks, computed from scratch: the XOR of ``cell_key(i*cells + j,
    card)`` over every card. The games keep it in their header and update it move by move."""
    h = np.int32(0)
    for i in range(stacks):
        h ^= stack_hash(state, i, cells, state[unsigned_index(heights + i)])
    return h


@njit(cache=True, inline="always")
def fields_hash(state, stacks, cells, head, fields):
    """The hash share of the header ``fields`` (keyed past the cells)."""
    h = np.int32(0)
    for n, f in enumerate(fields):
        h ^= cell_key(stacks * cells + n, state[unsigned_index(head + f)])
    return h


@njit(cache=True)
def stacks_hash(state, stacks, cells, heights, head, fields):
    """The 31-bit hash of the stacks and the header ``fields``, from scratch (``cells_hash ^
    fields_hash``). A stack's height is implied: its cards are nonzero and the cells above are
    zero."""
    return cells_hash(state, stacks, cells, heights) ^ fields_hash(state, stacks, cells, head, fields)


@njit(cache=True)
def snapshot_take(state, stacks, cells, heights, head, fields, snap):
    """Copy the stacks (packed) and the header ``fields`` into the snapshot at ``snap``.

    Every stack is copied as one block of ``SNAPSHOT_BLOCK`` cells (``jit_helpers.move_within``:
    a few vector moves), whatever its height, and only a taller stack's rest cell by cell: a
    copy loop of the stack's height mispredicts its exit on most stacks (the heights change from
    capture to capture), and a block copy has no loop. A block runs past the stack's cards; the
    next stack's block overwrites what it copied there, and past the last stack it is zeroed.
    The card cells are zeroed first, so the cells after the cards (an older, longer snapshot's
    among them) are zero.
    """
    cards = snap + stacks
    for j in range(cells + SNAPSHOT_BLOCK):
        state[unsigned_index(cards + j)] = 0
    k = 0
    for i in range(stacks):
        n = state[unsigned_index(heights + i)]
        state[unsigned_index(snap + i)] = n
        source = i * cells
        move_within(state, unsigned_index(cards + k), unsigned_index(source), SNAPSHOT_BLOCK)
        for j in range(SNAPSHOT_BLOCK, n):  # a stack taller than a block: rare
            card = state[unsigned_index(source + j)]
            if card == 0:  # never (cards are nonzero): keeps LLVM from vectorising this rare loop (see stack_hash)
                break
            state[unsigned_index(cards + k + j)] = card
        k += n
    for j in range(SNAPSHOT_BLOCK):  # the last block's overshoot
        state[unsigned_index(cards + k + j)] = 0
    fields_at = cards + cells + SNAPSHOT_BLOCK
    for n, f in enumerate(fields):
        state[unsigned_index(fields_at + n)] = state[unsigned_index(head + f)]


@njit(cache=True)
def snapshot_restore(state, stacks, cells, heights, head, fields, snap):
    """Put the snapshot's stacks and header ``fields`` back on the board (other fields untouched)."""
    for i in range(stacks * cells):
        state[unsigned_index(i)] = 0
    k = 0
    for i in range(stacks):
        n = state[unsigned_index(snap + i)]
        state[unsigned_index(heights + i)] = n
        base = i * cells
        for j in range(n):
            state[unsigned_index(base + j)] = state[unsigned_index(snap + stacks + k)]
            k += 1
    for n, f in enumerate(fields):
        state[unsigned_index(head + f)] = state[unsigned_index(snap + stacks + cells + SNAPSHOT_BLOCK + n)]


@njit(cache=True)
def stacks_equal(a, b, stacks, cells, heights, head, fields):
    """Whether ``a`` and ``b`` hold the same stacks and header ``fields``."""
    for i in range(stacks * cells):
        if a[unsigned_index(i)] != b[unsigned_index(i)]:
            return False
    for i in range(stacks):
        if a[unsigned_index(heights + i)] != b[unsigned_index(heights + i)]:
            return False
    for f in fields:
        if a[unsigned_index(head + f)] != b[unsigned_index(head + f)]:
            return False
    return True


@njit(cache=True, inline="always")
def repeats_exactly(state, params, rep, cap, j, restore_snapshot, play, same_position):
    """Whether the position after record entry ``j`` is the current one, checked exactly:
    replay the recorded actions from the snapshot on a scratch copy and compare.

    ``restore_snapshot(state, params)`` puts the snapshot on the board, ``play(state,
    params, action)`` plays one ply without the record, ``same_position(a, b, params)``
    compares two positions.
    """
    scratch = state.copy()
    restore_snapshot(scratch, params)
    for i in range(1, j + 1):
        play(scratch, params, np.int64(rep_action(state, rep, cap, i)))  # the action type of apply: one compile of play
    return same_position(scratch, state, params)


@njit(cache=True, inline="always")
def record_ply(state, params, rep, cap, action, h, look, new_stretch, restore_snapshot, play, same_position):
    """Record a reversible ply that led to a position with hash ``h`` (``NOT_A_CHECKPOINT``
    for one never compared). With ``look``, return True when the position repeats one of the
    stretch (every hash match confirmed by ``repeats_exactly``). A full block restarts the
    stretch with ``new_stretch(state, params)``.
    """
    repeated = False
    if look:
        j = rep_find(state, rep, cap, h, np.int64(0))  # the type of j + 1 below: one compile of rep_find
        while j >= 0:
            if repeats_exactly(state, params, rep, cap, j, restore_snapshot, play, same_position):
                repeated = True
                break
            j = rep_find(state, rep, cap, h, j + 1)
    if not rep_push(state, rep, cap, h, action):
        new_stretch(state, params)
    return repeated


@njit(cache=True, inline="always")
def replay_checked(state, params, actions, out, num_actions, current_player, legal_mask, apply):
    """Apply ``actions`` with the kernel's legality checks. ``out[0]``: the index of the first
    action that could not be played (-1: all were), ``out[1]``: why (1: the game was already
    over, 2: not legal)."""
    mask = np.zeros(num_actions, np.int8)
    out[0] = -1
    out[1] = 0
    for i in range(actions.shape[0]):
        if current_player(state, params) < 0:
            out[0] = i
            out[1] = 1
            return
        legal_mask(state, params, mask)
        a = actions[i]
        if a < 0 or a >= num_actions or mask[a] == 0:
            out[0] = i
            out[1] = 2
            return
        apply(state, params, a)
