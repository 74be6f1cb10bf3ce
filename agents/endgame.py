"""Endgame databases for the Kalah family: the exact value of every position with few seeds on the board.

In every Kalah rule set the future of a position depends only on the seeds in the holes and
on who is to move: the stores only add up. So one table per rule set and board width gives,
for every way of laying at most ``N`` seeds in the ``2 * pits`` holes, the best final margin
the player to move can still make (their future store gains minus the opponent's). Stored
positions are mover-relative (the mover's holes first), so a table serves both players.

Built by retrograde analysis in layers of seeds on the board: a move either keeps every seed
on the board or banks at least one, so a layer needs only the layers below and itself. Within
a layer a move that banks nothing has only moved seeds of the mover's row towards the
mover's store (one-way sowing), so no line returns to a position: each layer is solved by a
depth-first pass with memory, on every core (``threads``), every move played by the kernel
itself (``mancala_envs.games.kalah``'s ``apply``, inlined).

Indexing: the positions of a layer of ``k`` seeds are the compositions of ``k`` into
``2 * pits`` parts, numbered in lexicographic order (``_rank``); layer ``k`` starts at
``offsets[k]``. Values are ``int8`` (a margin is at most the seeds on the board).
Positions no game reaches (the mover without a playable hole) hold 0.

Cached on disk (``cache_folder()``: ``$MANCALA_ENVS_CACHE`` or ``~/.cache/mancala_envs``),
one ``.npy`` file per rule set and size with a JSON description beside it holding the
table's SHA-256; both are written atomically. A file whose description is missing, names
other rules, or whose size or checksum does not match is rebuilt, never trusted. A layer's
positions are numbered the same way whatever the table's size, so a table of ``N`` seeds is
the first layers of every larger one: a build starts from the largest sound cached table of
the same rules and fewer seeds and builds only the layers above it (a fraction of the whole
table's positions).

Supported: one-way sowing without a chosen start (every registered Kalah id but
``kalah-bidirectional-v0`` and ``kalah-chosen-start-v0``). The values are those of the game
without a ply cap: the solver uses a table only when the cap is at least
``CAP_MARGIN`` plies away.

Default size (``default_seeds``): the largest ``N`` whose table holds at most
``DEFAULT_POSITIONS`` positions (``N = 15`` on six holes: small enough that Kalah(6,4)'s
cold start, which includes the build, stays short), and below the game's seed total. Games of
``LARGE_GAME_SEEDS`` seeds or more (Kalah(6,5)) are solved many times per build (the
database is built once per machine and rule set, the solve is repeated), so they
get up to ``LARGE_POSITIONS`` (``N = 26`` on six holes, built once, layer on layer, and loaded
after). Each added layer cuts the solver's nodes on the same positions
(``benchmarks/solve.py --midgame``), which is what makes Kalah(6,5) solvable; the sizes,
build times and node counts are on the docs' solver page.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import threading
import time
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np
from numba import njit

from mancala_envs.core.announce import announce
from mancala_envs.core.files import atomic_output
from mancala_envs.core.compiled import cached_njit
from mancala_envs.core.game import Game, State
from mancala_envs.core.inline import inline_kernel, unowned
from mancala_envs.core.jit_helpers import copy_into
from mancala_envs.games.kalah import H_TO_MOVE, KalahGame, P_PITS

__all__ = ["Endgame", "EndgameError", "build", "cache_folder", "default_seeds", "endgame_for", "load_or_build"]

NO_VALUE = -(1 << 40)  # "not in the database" (the solver's oracle contract)
UNKNOWN = -128  # an entry not computed yet
DEFAULT_POSITIONS = 20_000_000
# games of this many seeds or more (Kalah(6,5): 60) get a larger table by default: built once,
# on disk, reused; their solve takes far longer than the build
LARGE_GAME_SEEDS = 60
LARGE_POSITIONS = 2_800_000_000
CAP_MARGIN = 300
FORMAT = 1
RULE_OPTIONS = ("pits", "extra_turn", "capture", "capture_needs_opposite", "skip_origin", "end", "leftover",
                "directions", "min_sow", "chosen_start")


class EndgameError(ValueError):
    """A game or size the endgame databases do not cover."""


class EndgameTables(NamedTuple):
    """What the jitted oracle reads."""

    values: np.ndarray  # int8[positions]      best margin of the mover, per position
    offsets: np.ndarray  # int64[N + 2]        first index of each layer
    ways: np.ndarray  # int64[2n + 1, N + 1, N + 2]  ways[j, r, v]: compositions of r into j parts whose first part is < v
    max_seeds: int  # N


def _compositions(parts: int, total: int) -> int:
    if parts == 0:
        return 1 if total == 0 else 0
    return math.comb(total + parts - 1, parts - 1)


def _ways_table(parts: int, max_seeds: int) -> np.ndarray:
    ways = np.zeros((parts + 1, max_seeds + 1, max_seeds + 2), np.int64)
    for j in range(1, parts + 1):
        for r in range(max_seeds + 1):
            for v in range(1, r + 2):
                ways[j, r, v] = ways[j, r, v - 1] + _compositions(j - 1, r - (v - 1))
    return ways


def _offsets(parts: int, max_seeds: int) -> np.ndarray:
    sizes = [_compositions(parts, k) for k in range(max_seeds + 1)]
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def positions_up_to(pits: int, max_seeds: int) -> int:
    """Positions in the table of ``pits`` holes a side and at most ``max_seeds`` seeds on the board."""
    return math.comb(max_seeds + 2 * pits, 2 * pits)


@njit(cache=True, inline="always")
def _rank(state, mine, theirs, n, seeds, ways):
    """Index within its layer of the holes ``state[mine:mine+n]`` then ``state[theirs:theirs+n]``."""
    index = 0
    rest = seeds
    parts = 2 * n
    for i in range(parts - 1):
        c = state[mine + i] if i < n else state[theirs + i - n]
        index += ways[parts - i, rest, c]
        rest -= c
    return index


@njit(cache=True, inline="always")
def kalah_locate(state, params, tables, me):
    """Where the table holds ``state`` (``me`` to move), or -1 if beyond it: its entry is the
    margin ``me`` can still make, to add to the stores' difference (the solver's contract)."""
    n = params[P_PITS]
    mine = me * (n + 1)
    theirs = (1 - me) * (n + 1)
    seeds = 0
    for i in range(n):
        seeds += state[mine + i] + state[theirs + i]
    if seeds > tables.max_seeds:
        return np.int64(-1)
    return tables.offsets[seeds] + _rank(state, mine, theirs, n, seeds, tables.ways)


@njit(cache=True, inline="always")
def kalah_oracle(state, params, tables, me):
    """The exact final margin from ``me``'s side (``me`` to move), or NO_VALUE if beyond the table."""
    index = kalah_locate(state, params, tables, me)
    if index < 0:
        return NO_VALUE
    n = params[P_PITS]
    return np.int64(state[me * (n + 1) + n] - state[(1 - me) * (n + 1) + n]) + np.int64(tables.values[index])


@njit(cache=True, inline="always")
def _unrank(index, seeds, n, ways, state):
    """Lay out position ``index`` of layer ``seeds`` in player 0's (mover's) and player 1's holes."""
    rest = seeds
    parts = 2 * n
    for i in range(parts):
        c = rest
        if i < parts - 1:
            c = 0
            while c < rest and ways[parts - i, rest, c + 1] <= index:
                c += 1
            index -= ways[parts - i, rest, c]
        state[i if i < n else i + 1] = c
        rest -= c
    state[n] = 0
    state[2 * n + 1] = 0


def _build_layer_function(kernel):
    k = inline_kernel(kernel)
    legal_mask, apply, current_player = k.legal_mask, k.apply, k.current_player

    @njit(inline="always")
    def evaluate(params, template, position, child, mask, values, offsets, ways, seeds, n):
        """(value, -1), or (-1, index) of an unknown child of the same layer to solve first."""
        if legal_mask(position, params, mask) == 0:
            return 0, -1  # no game reaches it (the mover would have no move)
        best = -1000
        for a in range(mask.shape[0]):
            if mask[a] == 0:
                continue
            copy_into(child, position)
            apply(child, params, a)
            gain = np.int64(child[n] - child[2 * n + 1])
            cp = current_player(child, params)
            if cp < 0:
                v = gain
            else:
                left = 0
                for i in range(n):
                    left += child[i] + child[n + 1 + i]
                index = offsets[left] + _rank(child, cp * (n + 1), (1 - cp) * (n + 1), n, left, ways)
                known = np.int64(values[index])
                if known == UNKNOWN:
                    return 0, index - offsets[seeds]
                v = gain + (known if cp == 0 else -known)
            if v > best:
                best = v
        return best, -1

    def build_range(params_owned, template_owned, values_owned, offsets_owned, ways_owned, seeds, first, last,
                    done_owned):
        """Solve positions ``first`` to ``last - 1`` of layer ``seeds`` (and what they need)."""
        # without reference counts: the threads' atomic counts on shared arrays slowed the build
        params = unowned(params_owned)
        template = unowned(template_owned)
        values = unowned(values_owned)
        offsets = unowned(offsets_owned)
        ways = unowned(ways_owned)
        done = unowned(done_owned)
        n = params[P_PITS]
        position_owned = template.copy()
        child_owned = template.copy()
        mask_owned = np.zeros(n, np.int8)
        stack_owned = np.zeros(seeds * n + 2, np.int64)
        position = unowned(position_owned)
        child = unowned(child_owned)
        mask = unowned(mask_owned)
        stack = unowned(stack_owned)
        base = offsets[seeds]
        for start in range(first, last):
            if values[base + start] != UNKNOWN:
                continue
            top = 0
            stack[0] = start
            while top >= 0:
                current = stack[top]
                copy_into(position, template)
                _unrank(current, seeds, n, ways, position)
                value, pending = evaluate(params, template, position, child, mask, values, offsets, ways, seeds, n)
                if pending >= 0:
                    top += 1
                    stack[top] = pending
                    continue
                values[base + current] = value
                top -= 1
            if (start & 4095) == 0:
                done[0] += 4096 if start + 4096 <= last else last - start
        return 0

    return cached_njit(build_range, what="the endgame database builder", nogil=True)  # on disk: a new process loads it instead of compiling


_BUILDERS: dict = {}


def _builder(kernel):
    if kernel not in _BUILDERS:
        _BUILDERS[kernel] = _build_layer_function(kernel)
    return _BUILDERS[kernel]


def rules_of(game: Game) -> dict:
    """The options that decide a table's values (``seeds`` and the ply cap do not)."""
    return {name: game.options[name] for name in RULE_OPTIONS}


def check_supported(game: Game) -> None:
    if not isinstance(game, KalahGame):
        raise EndgameError(f"{game.env_id}: endgame databases exist for the Kalah family only")
    if game.options["directions"] != 1 or game.options["chosen_start"]:
        raise EndgameError(f"{game.env_id}: endgame databases need one-way sowing and no chosen start")


def build(game: Game, max_seeds: int, threads: int = 2,
          progress: Callable[[int, int], None] | None = None, smaller: EndgameTables | None = None) -> EndgameTables:
    """Build the table of ``game``'s rules up to ``max_seeds`` seeds on the board (no cache).

    ``progress(done, total)`` is called as positions are solved. ``smaller``: a table of the same
    rules and fewer seeds, whose layers are the first ones of this table (a layer's index does
    not depend on the table's size): only the layers above it are built.
    """
    check_supported(game)
    if not 0 <= max_seeds <= 120:
        raise EndgameError(f"max_seeds must be from 0 to 120, got {max_seeds}")
    n = game.options["pits"]
    offsets = _offsets(2 * n, max_seeds)
    ways = _ways_table(2 * n, max_seeds)
    values = np.full(int(offsets[-1]), UNKNOWN, np.int8)
    first_layer = 0
    if smaller is not None:
        if smaller.max_seeds >= max_seeds or smaller.values.shape[0] != offsets[smaller.max_seeds + 1]:
            raise EndgameError(f"a table of {smaller.max_seeds} seeds cannot start one of {max_seeds}")
        values[: smaller.values.shape[0]] = smaller.values
        first_layer = smaller.max_seeds + 1
    template = game.new_state(0).array.copy()
    template[: 2 * n + 2] = 0
    template[2 * n + 2 + H_TO_MOVE] = 0
    build_range = _builder(game.kernel)
    done = np.zeros(1, np.int64)
    total = int(offsets[-1])
    for seeds in range(first_layer, max_seeds + 1):
        first, last = 0, int(offsets[seeds + 1] - offsets[seeds])
        cut = np.linspace(first, last, max(1, threads) + 1).astype(np.int64)
        if threads <= 1 or last < 4096:
            build_range(game.params, template, values, offsets, ways, seeds, first, last, done)
        else:
            workers = [threading.Thread(target=build_range, args=(game.params, template, values, offsets, ways, seeds,
                                                                   int(cut[t]), int(cut[t + 1]), done))
                       for t in range(threads)]
            for w in workers:
                w.start()
            while any(w.is_alive() for w in workers):
                if progress is not None:
                    progress(int(offsets[seeds] + min(done[0], last)), total)
                time.sleep(0.2)
            for w in workers:
                w.join()
        done[0] = 0
        if progress is not None:
            progress(int(offsets[seeds + 1]), total)
    return EndgameTables(values, offsets, ways, int(max_seeds))


class Endgame:
    """A table with the oracle that reads it (``solve(endgame=...)``, ``analysis.value``)."""

    oracle = staticmethod(kalah_oracle)
    locate = staticmethod(kalah_locate)  # not a bound method: the solver compiles once per function

    def __init__(self, game: Game, tables: EndgameTables, build_seconds: float = 0.0, loaded: bool = False):
        """``build_seconds``: how long the build took (for a loaded table, the build that wrote it)."""
        self.rules = rules_of(game)
        self.tables = tables
        self.max_seeds = tables.max_seeds
        self.build_seconds = build_seconds
        self.loaded = loaded

    def covers(self, game: Game) -> bool:
        return isinstance(game, KalahGame) and rules_of(game) == self.rules

    def usable_from(self, state: State) -> bool:
        """Whether the solver may use the table below ``state``: same rules, cap far enough."""
        game = state.game
        return self.covers(game) and (game.max_plies is None or game.max_plies - state.plies >= CAP_MARGIN)

    def seeds_on_board(self, state: State) -> int:
        n = state.game.options["pits"]
        a = state.array
        return int(a[:n].sum() + a[n + 1 : 2 * n + 1].sum())

    def mover_value(self, state: State) -> int | None:
        """The exact final margin from the mover's side, or None beyond the table."""
        if state.is_terminal() or not self.covers(state.game) or self.seeds_on_board(state) > self.max_seeds:
            return None
        v = kalah_oracle(state.array, state.game.params, self.tables, state.current_player)
        return None if v == NO_VALUE else int(v)


def default_seeds(game: Game, positions: int | None = None) -> int:
    """The largest table of at most ``positions`` positions (default ``DEFAULT_POSITIONS``, or
    ``LARGE_POSITIONS`` for games of ``LARGE_GAME_SEEDS`` seeds or more), below the game's seed total."""
    n = game.options["pits"]
    total = game.total_seeds_bound()
    if positions is None:
        positions = LARGE_POSITIONS if total >= LARGE_GAME_SEEDS else DEFAULT_POSITIONS
    seeds = 0
    while seeds + 1 < total and positions_up_to(n, seeds + 1) <= positions:
        seeds += 1
    return seeds


def cache_folder() -> Path:
    """``$MANCALA_ENVS_CACHE/endgame``, else ``$XDG_CACHE_HOME`` (or ``~/.cache``)``/mancala_envs/endgame``."""
    root = os.environ.get("MANCALA_ENVS_CACHE")
    if root:
        return Path(root) / "endgame"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mancala_envs" / "endgame"


def _paths(game: Game, max_seeds: int, folder: Path) -> tuple[Path, Path]:
    rules = json.dumps(rules_of(game), sort_keys=True)
    tag = hashlib.sha256(rules.encode()).hexdigest()[:12]
    stem = f"kalah-{game.options['pits']}pits-{max_seeds}seeds-{tag}"
    return folder / f"{stem}.npy", folder / f"{stem}.json"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def _load(game: Game, max_seeds: int, folder: Path) -> tuple[EndgameTables, float] | None:
    """The cached table and the seconds its build took, or None if missing, partial, corrupt or of other rules."""
    data_path, meta_path = _paths(game, max_seeds, folder)
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        n = game.options["pits"]
        offsets = _offsets(2 * n, max_seeds)
        if (meta.get("format") != FORMAT or meta.get("rules") != rules_of(game) or meta.get("max_seeds") != max_seeds
                or meta.get("positions") != int(offsets[-1]) or meta.get("sha256") != _sha256(data_path)):
            return None
        values = np.load(data_path, allow_pickle=False)
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    if values.dtype != np.int8 or values.shape != (int(offsets[-1]),) or (values == UNKNOWN).any():
        return None
    return EndgameTables(values, offsets, _ways_table(2 * n, max_seeds), max_seeds), float(meta.get("build_seconds", 0))


def _save(game: Game, tables: EndgameTables, folder: Path, seconds: float, extended_from: int | None = None) -> None:
    data_path, meta_path = _paths(game, tables.max_seeds, folder)
    with atomic_output(data_path, suffix=".npy") as tmp:
        np.save(tmp, tables.values, allow_pickle=False)
        digest = _sha256(tmp)
    meta = {"format": FORMAT, "rules": rules_of(game), "max_seeds": tables.max_seeds,
            "positions": int(tables.values.shape[0]), "sha256": digest, "build_seconds": round(seconds, 3),
            "extended_from": extended_from}  # the build started from the cached table of this many seeds
    with atomic_output(meta_path) as tmp:
        tmp.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def _largest_cached_below(game: Game, max_seeds: int, folder: Path) -> EndgameTables | None:
    """The largest sound cached table of ``game``'s rules with fewer seeds (a head start for a build)."""
    for seeds in range(max_seeds - 1, 0, -1):
        if _paths(game, seeds, folder)[0].exists():
            cached = _load(game, seeds, folder)
            if cached is not None:
                return cached[0]
    return None


def load_or_build(game: Game, max_seeds: int | None = None, *, folder: str | os.PathLike | None = None,
                  threads: int = 2, progress: Callable[[int, int], None] | None = None) -> Endgame:
    """The table of ``game``'s rules up to ``max_seeds`` (default ``default_seeds``): from the
    cache if a sound copy is there, else built and cached."""
    check_supported(game)
    max_seeds = default_seeds(game) if max_seeds is None else int(max_seeds)
    where = Path(folder) if folder is not None else cache_folder()
    cached = _load(game, max_seeds, where)
    if cached is not None:
        return Endgame(game, cached[0], build_seconds=cached[1], loaded=True)
    positions = positions_up_to(game.options["pits"], max_seeds)
    announce(f"building the endgame database for kalah with {game.options['pits']} pits, up to {max_seeds} seeds "
             f"on the board: {positions:,} positions (first use; cached after, in {where})")
    start = time.perf_counter()
    smaller = _largest_cached_below(game, max_seeds, where)
    tables = build(game, max_seeds, threads=threads, progress=progress, smaller=smaller)
    seconds = time.perf_counter() - start
    try:
        _save(game, tables, where, seconds, None if smaller is None else smaller.max_seeds)
    except OSError:
        pass  # a read-only cache: the table still serves this process
    return Endgame(game, tables, build_seconds=seconds)


_LOADED: dict = {}


def endgame_for(game: Game, max_seeds: int | None = None, progress: Callable[[int, int], None] | None = None,
                threads: int = 2) -> Endgame | None:
    """The table for ``game`` (memoised per process), or None where none applies."""
    try:
        check_supported(game)
    except EndgameError:
        return None
    seeds = default_seeds(game) if max_seeds is None else int(max_seeds)
    key = (json.dumps(rules_of(game), sort_keys=True), seeds)
    if key not in _LOADED:
        _LOADED[key] = load_or_build(game, seeds, threads=threads, progress=progress)
    return _LOADED[key]
