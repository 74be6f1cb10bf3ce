"""Small jitted helpers the compiled loops share: a random generator, position hashes, a clock.

* ``splitmix64(s)``, ``random_below(s, count)`` and ``random_legal_action(s, mask, count)``
  (``random_legal_action_of_first(s, mask, count, width)``: the same over a mask's first entries;
  ``random_legal_action_of_words(s, words, count)``: the same draw read eight entries at a time,
  over the buffers of ``mask_with_words(num_actions)``; ``random_legal_action_of_bits(s, bits)``:
  the same draw from a bit set of legal actions, ``nth_set_bit(bits, k)`` its pick):
  the generator of the random playouts (``core.playout``), the batched engine's
  ``sample_actions`` (``vector``) and the Monte Carlo tree search (``mancala_envs.agents.mcts``). Its
  whole state is one ``uint64`` that the caller threads through (``s, bits =
  splitmix64(s)``), so a loop keeps it in a register and a seed reproduces a run on any
  machine.
* ``hash_state(state)`` and ``hash_observations(obs0, obs1, player)``: the 64-bit keys of
  the alpha-beta search's transposition table (``mancala_envs.agents.search``).
* ``now()`` and ``past_deadline(deadline, count, every)``: ``time.perf_counter()`` from
  jitted code, for time budgets.
* ``mask_from_bits(mask, bits, width)``: a kernel's ``legal_mask`` written from a bit set, eight
  entries a word.
* ``copy_into(target, source)``: an array copy without a temporary.
* ``move_within(array, target, source, count)``: ``count`` elements of ``array`` from index
  ``source`` to index ``target``, as one block move (a few vector loads and stores when
  ``count`` is a constant); ``store_low_bytes(array, index, word, count)``: a word's low bytes
  into a byte array as one store.
* ``unsigned_index(index)``: a never negative index as an unsigned one (no wraparound code).

All of them also run as plain Python under ``NUMBA_DISABLE_JIT=1`` (numpy's fixed-width
integers wrap as in compiled code; numpy warns of the overflow there).
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import config, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["FNV_OFFSET_BASIS", "FNV_PRIME", "bit_count", "copy_into", "hash_observations", "hash_state", "mask_from_bits", "move_within", "now", "past_deadline", "random_below", "random_legal_action", "random_legal_action_of_bits", "random_legal_action_of_first", "random_legal_action_of_words", "nth_set_bit", "splitmix64", "store_low_bytes", "unsigned_index"]

_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_SPLITMIX_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_SPLITMIX_MIX2 = np.uint64(0x94D049BB133111EB)
FNV_OFFSET_BASIS = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)
_U27 = np.uint64(27)
_U29 = np.uint64(29)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)


# -- raw memory moves (intrinsics: LLVM code numba does not write by itself) --------------------
@intrinsic
def _move_within(typingctx, array, target, source, count):
    if not (isinstance(array, types.Array) and array.ndim == 1 and array.layout == "C"
            and all(isinstance(t, types.Integer) for t in (target, source, count))):
        return None  # a typing error

    def codegen(context, builder, signature, args):
        view = context.make_array(array)(context, builder, value=args[0])
        to = cgutils.gep(builder, view.data, args[1])
        start = cgutils.gep(builder, view.data, args[2])
        cgutils.raw_memmove(builder, to, start, args[3], context.get_abi_sizeof(context.get_data_type(array.dtype)))
        return context.get_dummy_value()

    return types.none(array, target, source, count), codegen


@intrinsic
def _store_low_bytes(typingctx, array, index, word, count):
    if not (isinstance(array, types.Array) and array.ndim == 1 and array.layout == "C" and array.dtype.bitwidth == 8
            and all(isinstance(t, types.Integer) for t in (index, word, count))):
        return None  # a typing error

    def codegen(context, builder, signature, args):
        view = context.make_array(array)(context, builder, value=args[0])
        value = context.cast(builder, args[2], signature.args[2], types.uint64)
        held = cgutils.alloca_once_value(builder, value)
        source = builder.bitcast(held, view.data.type)
        cgutils.raw_memcpy(builder, cgutils.gep(builder, view.data, args[1]), source, args[3], 1)
        return context.get_dummy_value()

    return types.none(array, index, word, count), codegen


def _store_low_bytes_without_jit(array, index, word, count):
    array[index : index + count] = np.frombuffer(np.uint64(word).tobytes(), array.dtype)[:count]


# ``store_low_bytes(array, index, word, count)``: the ``count`` (<= 8) low bytes of ``word`` into
# the byte array ``array`` from ``index`` on, lowest first (little-endian machines: the order of
# the bytes in memory), as one store when ``count`` is a constant. LLVM does not merge eight byte
# stores of one word's bytes into one store. No bounds checks.
store_low_bytes = _store_low_bytes_without_jit if config.DISABLE_JIT else _store_low_bytes


@intrinsic
def _unsigned_index(typingctx, index):
    if not isinstance(index, (types.Integer, types.Boolean)):
        return None  # a typing error

    def codegen(context, builder, signature, args):
        return context.cast(builder, args[0], signature.args[0], types.uint64)

    return types.uint64(index), codegen


def _unsigned_index_without_jit(index):
    return np.uint64(index)


# ``unsigned_index(index)``: ``index`` (never negative) as an unsigned index into an array, the
# same value as ``np.uint64(index)``. Numba adds Python's negative-index wraparound to every
# *signed* index it cannot prove non-negative (a compare, a select and an extra address
# computation: 3-4 instructions an access), and the card games' indices come from values read
# from the state (heights, positions, counts). Wrapped in this, an access is one load or store.
# Only for indices that cannot be negative: a negative one would become a huge index, not count
# from the end. An intrinsic, not an inlined function: the card games' kernels use it at hundreds
# of places, and every inlined call is a copy of the function's IR and a new block in the caller
# for numba to type and lower; an intrinsic is one call, one cast in the code.
unsigned_index = _unsigned_index_without_jit if config.DISABLE_JIT else _unsigned_index


def _move_within_without_jit(array, target, source, count):
    array[target : target + count] = array[source : source + count].copy()


# ``move_within(array, target, source, count)``: ``array[target:target+count] =
# array[source:source+count]``, read before written (the two may overlap), as one LLVM memmove
# (no bounds checks: the caller keeps both ranges inside the array). With ``count`` a
# compile-time constant it compiles to a few vector loads and stores; a copy loop over the
# same array does not vectorise (LLVM cannot tell that the two ranges are apart) and takes
# two instructions a word. Without JIT (an intrinsic cannot run there) a slice copy.
move_within = _move_within_without_jit if config.DISABLE_JIT else _move_within


@njit(cache=True, inline="always")
def splitmix64(s):
    """One splitmix64 step from generator state ``s``: (new generator state, 64 random bits)."""
    s = s + _GOLDEN_GAMMA
    z = s
    z = (z ^ (z >> _U30)) * _SPLITMIX_MIX1
    z = (z ^ (z >> _U27)) * _SPLITMIX_MIX2
    return s, z ^ (z >> _U31)


@njit(cache=True, inline="always")
def random_below(s, count):
    """(new generator state, an integer uniform in [0, count)), from the top 32 of 64 bits.

    Multiply-shift rather than modulo: no division, and the bias is below count / 2**32.
    """
    s, bits = splitmix64(s)
    return s, np.int64(((bits >> _U32) * np.uint64(count)) >> _U32)


@njit(cache=True, inline="always")
def random_legal_action(s, mask, count):
    """(new generator state, the ``k``-th legal action of ``mask`` in action order), with ``k``
    uniform in [0, count) (``count``: the legal actions in ``mask``); -1 if there is none."""
    return random_legal_action_of_first(s, mask, count, mask.shape[0])


@njit(cache=True, inline="always")
def random_legal_action_of_first(s, mask, count, width):
    """``random_legal_action`` over the first ``width`` entries of ``mask`` (the same draw when
    ``width`` is its length). A loop that knows the mask's width when it is compiled passes it
    as a constant, and the scan unrolls: the batched engine's specialised step draws a little
    faster."""
    s, k = random_below(s, count)
    # Branch-free: which entry is the k-th legal one is random, so a branch on it is
    # mispredicted about once per call; selects and sums cost less than that.
    seen = 0
    action = -1
    for a in range(width):
        legal = mask[a] != 0
        action = a if legal & (seen == k) else action
        seen += 1 if legal else 0
    return s, action


_BYTES_ONE = np.uint64(0x0101010101010101)  # 1 in every byte
_BYTES_TOP = np.uint64(0x8080808080808080)  # the top bit of every byte
_U7 = np.uint64(7)
_U56 = np.uint64(56)


def mask_with_words(num_actions):
    """A zeroed ``int8`` mask of ``num_actions`` entries and the ``uint64`` words it is the first
    bytes of, as ``(mask, words)``: ``legal_mask`` fills ``mask``, and
    ``random_legal_action_of_words`` reads ``words``. A kernel's ``legal_mask`` never writes
    past its ``num_actions`` entries, so the padding of the last word stays zero."""
    words = np.zeros(-(-num_actions // 8), np.uint64)
    return words.view(np.int8)[:num_actions], words


@njit(cache=True, inline="always")
def random_legal_action_of_words(s, words, count):
    """``random_legal_action`` (the same draw, the same action) over a mask of 0/1 bytes read
    as ``uint64`` words: ``words`` is the mask's memory eight entries a word (a ``view`` of it,
    padded with zero entries to a whole word), so a 26-action mask is four words.

    Branch-free and about 15 instructions a word, where the entry by entry scan takes about 6
    an entry. In a word ``x`` of 0/1 bytes, ``x * 0x0101..01`` holds in byte ``i`` the legal
    entries among bytes 0..i (at most 8: no carries), its top byte the word's count; the
    ``k``-th legal entry of the word (from 0) sits after exactly the bytes whose running count
    is at most ``k``, and those bytes are counted with one subtraction (byte by byte, no
    borrows) and one more multiply.
    """
    s, k = random_below(s, count)
    seen = 0  # legal entries in the words before this one
    action = -1
    for w in range(words.shape[0]):
        running = words[w] * _BYTES_ONE
        in_word = np.int64(running >> _U56)
        rank = k - seen  # the wanted entry's rank within this word, if it is in it
        before = np.int64(_bytes_running_at_most(running, rank))
        action = w * 8 + before if (rank >= 0) & (rank < in_word) else action
        seen += in_word
    return s, action


@njit(cache=True, inline="always")
def bit_count(bits):
    """How many bits of ``bits`` (an integer >= 0) are 1. The textbook SWAR count, which LLVM
    compiles to one ``popcnt`` where the CPU has it; branch-free either way."""
    return np.int64((_byte_counts(bits) * _BYTES_ONE) >> _U56)


@njit(cache=True, inline="always")
def _byte_counts(bits):
    """Byte ``i`` of the result: how many bits of byte ``i`` of ``bits`` are 1 (SWAR)."""
    x = np.uint64(bits)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))  # each pair of bits: its count
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    return (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)  # each byte: its count


@njit(cache=True, inline="always")
def _bytes_running_at_most(running, rank):
    """How many bytes of ``running`` (byte ``i``: a running count, rising, each at most 64) are
    at most ``rank`` (meaningful for 0 <= rank < 128): one subtraction byte by byte (no borrows) and a multiply."""
    at_most = ((np.uint64(rank) * _BYTES_ONE) | _BYTES_TOP) - running  # top bit of byte i: running_i <= rank
    return (((at_most & _BYTES_TOP) >> _U7) * _BYTES_ONE) >> _U56


def _select_in_byte_table():
    """Entry ``v * 8 + j``: the position of set bit number ``j`` of the byte ``v`` (0 if none)."""
    table = np.zeros(256 * 8, np.uint8)
    for v in range(256):
        for j, position in enumerate(p for p in range(8) if v >> p & 1):
            table[v * 8 + j] = position
    return table


_SELECT_IN_BYTE = _select_in_byte_table()
_U8 = np.uint64(8)
_BYTE = np.uint64(0xFF)


@njit(cache=True, inline="always")
def nth_set_bit(bits, n):
    """The position of set bit number ``n`` of ``bits`` (an integer >= 0; from 0, lowest bit
    first), or -1 if ``bits`` has ``n`` or fewer set bits (``0 <= n < 64``).

    Branch-free and without selects (which bit is wanted is random in a playout, and LLVM turns
    a chain of selects into branches): ``random_legal_action_of_words``' byte arithmetic finds
    the byte that holds the bit, a table (2 KB) the bit within that byte."""
    x = np.uint64(bits)
    k = np.uint64(n)
    running = _byte_counts(x) * _BYTES_ONE  # byte i: the set bits of bytes 0 .. i (at most 64: no carries)
    byte = _bytes_running_at_most(running, k) & _U7  # bytes wholly before the bit
    shift = byte * _U8
    before = ((running << _U8) >> shift) & _BYTE  # the set bits below that byte
    within = _SELECT_IN_BYTE[((x >> shift) & _BYTE) * _U8 + ((k - before) & _U7)]
    return np.int64(shift + within) if k < (running >> _U56) else -1


@njit(cache=True, inline="always")
def random_legal_action_of_bits(s, bits):
    """``random_legal_action`` (the same draw, the same action) over the legal actions given as
    a bit set (bit ``a``: action ``a``, for up to 64 actions), as a kernel's ``legal_bits`` hook
    returns them (``Game.legal_bits``): no mask is written or read."""
    s, k = random_below(s, bit_count(bits))
    return s, nth_set_bit(bits, k)


_BIT_OF_BYTE = np.uint64(0x8040201008040201)  # bit i of byte i
_BYTES_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)


@njit(cache=True, inline="always")
def mask_from_bits(mask, bits, width):
    """Write entries ``0 .. width-1`` of the int8 ``mask`` as the bits of ``bits`` (entry ``a``: bit
    ``a``, 0 or 1); return how many are 1. For a ``legal_mask`` that finds its moves as a bit set:
    with ``width`` a constant, each eight entries take a handful of instructions (a byte per bit
    by two multiplies, one store) where a store per entry, each bit shifted out on its own,
    takes three or four."""
    count = 0
    for g in range(0, width, 8):
        # ``eight * 0x0101..01`` repeats the eight bits in every byte; byte i keeps its bit i,
        # and adding 0x7F carries it to the byte's top bit (no byte overflows into the next)
        eight = np.uint64((bits >> g) & 0xFF)
        spread = ((((eight * _BYTES_ONE) & _BIT_OF_BYTE) + _BYTES_LOW7) >> _U7) & _BYTES_ONE
        count += np.int64((spread * _BYTES_ONE) >> _U56)
        store_low_bytes(mask, g, spread, min(8, width - g))
    return count


@njit(cache=True, inline="always")
def copy_into(target, source):
    """``target[:] = source`` as an element loop: numba's slice assignment checks the two
    for overlap and may copy through a temporary array."""
    for i in range(source.shape[0]):
        target[i] = source[i]


@njit(cache=True, inline="always")
def _finish_hash(h):
    """Spread the FNV hash's high bits into the low bits that index the table."""
    h = (h ^ (h >> _U29)) * _GOLDEN_GAMMA
    return h ^ (h >> _U29)


@njit(cache=True)
def hash_state(state):
    """A 64-bit FNV-style hash of a whole state array (every field, history included).

    Four FNV lanes take every fourth word each and are folded together at the end: one
    chain's multiplies wait for each other, four independent chains overlap, which makes
    the hash of a long state (the card games' repetition record) several times faster.
    The lanes are the "lane hash" section's (the end of this file), which a game's
    ``search_hooks`` key also uses to hash only the words in use, to the same value.
    """
    return lanes_end(lanes_take(lanes_start(), state, 0, state.shape[0] >> 2), state)


@njit(cache=True)
def hash_observations(obs0, obs1, player):
    """A 64-bit hash of both players' observations and the player to move.

    Observations are floats: each is rounded to a multiple of 1/65536 before hashing, so
    that values computed by different arithmetic still meet.
    """
    h = FNV_OFFSET_BASIS ^ np.uint64(player + 2)
    for i in range(obs0.shape[0]):
        h = (h ^ np.uint64(np.int64(np.round(obs0[i] * 65536.0)))) * FNV_PRIME
    for i in range(obs1.shape[0]):
        h = (h ^ np.uint64(np.int64(np.round(obs1[i] * 65536.0)))) * FNV_PRIME
    return _finish_hash(h)


@njit(cache=True)
def now():
    """``time.perf_counter()`` from jitted code (through object mode: about a microsecond)."""
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True, inline="always")
def past_deadline(deadline, count, every):
    """Whether ``deadline`` (a ``perf_counter()`` time; <= 0: none) has passed.

    The clock is read only when ``count`` (of nodes, simulations) is a multiple of ``every``,
    a power of two: reading it costs as much as hundreds of moves.
    """
    return deadline > 0.0 and (count & (every - 1)) == 0 and now() > deadline


# -- lane hash --------------------------------------------------------------------------------
# ``hash_state``'s four FNV lanes as a value, ``lanes = (h0, h1, h2, h3)``, that a caller threads
# through: ``lanes_start()``, then ``lanes_take`` over groups of four words (group ``g``: words
# ``4g .. 4g+3``, one to each lane) and ``lanes_skip`` over groups known to be zero, in order,
# up to the state's last whole group; ``lanes_end`` adds the last ``len % 4`` words and folds the
# lanes into the hash. Taking every group gives ``hash_state``; a game whose state is mostly
# zeros (``Game.search_hooks``' key) takes the groups in use and skips the rest, to the same
# value: a zero word turns its lane ``h`` into ``h * FNV_PRIME``, so ``k`` zero groups multiply
# every lane by ``FNV_PRIME ** k`` (one multiply a lane, from a table).
_LANE_POWERS = np.array([pow(int(FNV_PRIME), k, 2**64) for k in range(256)], np.uint64)


@njit(cache=True, inline="always")
def lanes_start():
    """The four lanes before any word."""
    return (FNV_OFFSET_BASIS, FNV_OFFSET_BASIS ^ np.uint64(1), FNV_OFFSET_BASIS ^ np.uint64(2),
            FNV_OFFSET_BASIS ^ np.uint64(3))


@njit(cache=True, inline="always")
def lanes_take(lanes, state, first, stop):
    """``lanes`` having taken the words of groups ``first .. stop - 1`` (``first`` >= 0)."""
    h0, h1, h2, h3 = lanes
    for g in range(first, stop):
        i = np.uint64(4 * g)  # unsigned: no negative-index wraparound (4 instructions a load)
        h0 = (h0 ^ np.uint64(np.uint32(state[i]))) * FNV_PRIME
        h1 = (h1 ^ np.uint64(np.uint32(state[i + np.uint64(1)]))) * FNV_PRIME
        h2 = (h2 ^ np.uint64(np.uint32(state[i + np.uint64(2)]))) * FNV_PRIME
        h3 = (h3 ^ np.uint64(np.uint32(state[i + np.uint64(3)]))) * FNV_PRIME
    return (h0, h1, h2, h3)


@njit(cache=True, inline="always")
def lanes_skip(lanes, groups):
    """``lanes`` having taken ``groups`` (>= 0) groups of zero words."""
    if groups < _LANE_POWERS.shape[0]:
        p = _LANE_POWERS[np.uint64(groups)]
    else:
        p = np.uint64(1)
        base = FNV_PRIME
        k = groups
        while k > 0:
            if k & 1:
                p *= base
            base *= base
            k >>= 1
    h0, h1, h2, h3 = lanes
    return (h0 * p, h1 * p, h2 * p, h3 * p)


@njit(cache=True, inline="always")
def lanes_end(lanes, state):
    """The hash, from ``lanes`` that have taken (or skipped) every whole group of ``state``:
    the last ``len % 4`` words go to lane 0, then the lanes are folded and finished."""
    h0, h1, h2, h3 = lanes
    n = state.shape[0]
    for i in range(n & ~3, n):
        h0 = (h0 ^ np.uint64(np.uint32(state[i]))) * FNV_PRIME
    h = (h0 ^ _finish_hash(h1)) * FNV_PRIME
    h = (h ^ _finish_hash(h2)) * FNV_PRIME
    h = (h ^ _finish_hash(h3)) * FNV_PRIME
    return _finish_hash(h)
