"""Batched engine: B games of one id stepped in one numba-parallel call.

``BatchEnv(env_id, num_envs, seed=None, **options)`` keeps every game as one row of a
``(B, state_size)`` int32 array and calls the same kernel functions as everything else.

=========================  ========================================================================
``reset(seed=None)``        start every game; returns ``obs`` (B, obs) float32, as the player to move
                            sees it, and fills ``masks`` (B, A) int8 and ``players`` (B,)
``step(actions, active)``   play ``actions[i]`` in every game ``i`` where ``active[i]`` (default: all);
                            returns a ``BatchStep`` (see below)
``sample_actions()``        a uniformly random legal action per game (numba, seeded)
``states``, ``masks``,     the live arrays (read them; do not write them)
``players``, ``obs``
``state(i)``                game ``i`` as a ``State`` (a copy)
=========================  ========================================================================

After each step, games that ended (terminated by the rules, or truncated at ``max_plies``)
are reset at once: their row of ``obs``/``masks``/``players`` already belongs to the next
game, and ``BatchStep.final_obs[i, p]`` keeps the last observation of the game that ended,
as player ``p`` saw it. ``BatchStep.rewards[i, p]`` is +1/-1/0 for player ``p`` where the game
ended by the rules, else 0. New games are dealt by one ``Generator`` made from ``seed``, in
slot order after each step (outside the parallel part), so the same seed and the same
actions give the same games, row by row, whatever the number of threads.

Dealing
-------
The generator deals ahead, in order (the kernel's ``init``), into a pool of
``B + max(B, 8)`` start positions from which the step takes the next one for every game
that ends; the pool is topped up after a reset or step that leaves it with fewer than ``B``
(the next step may end every game), so the generator runs about once per ``B`` finished
games (a smaller pool topped up far more often, each top-up moving every unused row to the
front). The games are the same as if each were dealt when its slot needed it (``init`` fills the
whole state from the params and the generator alone), but the step does not take the
``Generator``: unboxing one costs numba more per call than a whole step of a small batch.

Random actions
--------------
``sample_actions()`` draws row ``i``'s action from its own splitmix64 stream (the streams are
seeded from ``seed``), so a draw does not depend on the order in which rows are visited.
While a caller uses it (it was called since the previous step), each step also draws the
next actions at the end of every game's move, on the step's threads, while the game's mask
is still in the cache; the next ``sample_actions()`` returns that draw, and a second call
before the next step draws anew. The draws are the same either way, and the same seed and
the same calls give the same actions, whatever the number of threads.

Actions are integers: an array of an integer dtype (or a list of ints), checked by its dtype
and shape once per call (``core.checks``); floats (``2.0`` too), bools, strings and None
raise ``IllegalActionError`` with the same words as the single-game envs, and so does an
action out of range or not legal (naming the game, the action and the legal ones); no game
of the batch is changed by that call. ``seed`` (here and in ``reset``): None or an integer
from 0 to ``2**64 - 1``, else ``InvalidOptionError``.

Compiled step and threads
-------------------------
The step is compiled per kernel with the kernel's functions inlined (``core.inline``) and
cached on disk (``core.compiled``): the first process ever pays the compilation (tens of
seconds for a parallel step), later ones load it. A batch of ``PARALLEL_MIN_GAMES`` games or
more runs its step on numba's threads, with the thread count of each step chosen by
timing (``ThreadChooser``): all threads on a quiet machine, one when a worker thread would
have to wait for a busy core.

The step is one pass over the batch when serial: each game plays its move, writes its
flags, reward, mask and observation, draws its next random action, and if it ended takes
its next game from the pool right there (in slot order, as the dealing requires). The
parallel step deals after its loop, on one thread, reading the terminated and truncated
flags eight games at a time (their arrays are padded to whole 8-byte words). After its first
call, the step is called through its compiled entry rather than numba's dispatcher
(``_entry_point``). Most of a serial step's time per game is the kernel's own work (the
move, the legal mask and the random draw); the observation, the legality check and the
fixed cost per call (Python, argument unboxing, dispatch) are small beside it
(``benchmarks/run.py``'s ``batch_modes``; figures on the docs' performance page).

``BatchEnv(..., specialise=True)`` also compiles the game's option values (its params
vector) into the step as constants, one step per option set (as ``random_playouts`` does):
sizes and rule switches fold into the code, loops over the holes unroll, and so does the
random draw's scan over the mask (its width is a constant too). The games are
the same, and the step is faster (``benchmarks/run.py``'s ``batch_modes``). The price is a
compilation per option set instead of per family (once per machine: the step is cached on
disk).
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from .core.compiled import cached_njit
from .core.checks import action_array, checked_seed, out_of_range_action
from .core.errors import IllegalActionError, InvalidOptionError
from .core.game import Game, Kernel, State
from .core.inline import inline_kernel, inlined, unowned
from .core.jit_helpers import random_legal_action, random_legal_action_of_first
from .registry import game_of

# Below this many games a step runs on one thread: the cost of waking the worker threads
# (large on a busy machine) exceeds the work of a small batch.
PARALLEL_MIN_GAMES = 256

# What a step returns when every action was legal: whether the pool of dealt games must be
# topped up before the next step (see "Dealing"); an illegal action returns its game instead.
POOL_OK = -1
POOL_LOW = -2



class ThreadChooser:
    """Picks, step by step, the serial step or the parallel one (on numba's threads), by timing both.

    On a quiet machine the threads split the batch; on a busy one a worker thread waits for a
    core, and a step that waits for it takes many times longer than one thread alone. So from
    time to time a probe runs ``trials + 1`` serial steps, then ``trials + 1`` parallel ones, and the parallel step is
    used until the next probe if its median time is below ``MARGIN`` (0.9) times the serial
    one's. The first step of each block is not compared: the first parallel step after a
    serial stretch wakes numba's worker thread, which has gone to sleep, and waits for a core
    when another process holds it (far longer than the steps after it), and the first serial
    step after parallel ones reads back the games the worker thread wrote. Probing one step of
    each in turn made every probe lose in such phases, for seconds. A compared parallel step slower than ``GIVE_UP`` (4)
    times the serial median ends the probe at once.

    The first probe starts at the first step, the next ones ``every`` steps after the end of
    the last; while the serial step keeps winning, that gap doubles at each probe (up to
    ``MAX_BACKOFF * every``), and when the parallel step wins it is ``every`` again. A lost
    probe also sets the gap long enough that its cost (its parallel steps' time beyond the
    serial median) is at most ``PROBE_SHARE`` (5%) of the serial steps' time until the next
    probe, divided by the same doubling while lost probes follow each other, and at most
    ``MAX_HOLD_SECONDS`` (0.2 s) of serial steps (or ``MAX_BACKOFF * every`` if that is longer):
    with a busy core one parallel step can cost as much as hundreds of serial ones, which
    made the chosen step far slower than the serial one when probes came every few hundred
    steps. Between probes, two parallel steps in a
    row slower than ``GIVE_UP`` times the last probe's serial median switch to the serial step at
    once, as a lost probe does: a probe can win in the moment a busy core is free, and the
    ``every`` parallel steps after it then each waited for that core (the busy-core figures of
    ``benchmarks/run.py``'s ``batch_modes``). One slow step alone does not: it is the
    worker's wake-up after a pause (the caller did something else between two steps). The games
    are the same either way.

    The choice is between two compiled steps, not two thread counts: numba's
    ``set_num_threads`` costs a sizeable share of a whole step per call from Python, and calling it inside the step would make the step uncacheable.
    A caller that set numba to one thread (``numba.set_num_threads(1)``) gets one thread.
    """

    # At most 8 * every steps between two probes that lose
    # narrowly: a phase where the parallel step lost must not hold the serial step for seconds.
    MAX_BACKOFF = 8
    # The longest a lost probe's cost may hold the serial step, in seconds of serial steps (at the
    # probe's serial median): one probe that lost to a moment's load, or one stall of the worker
    # thread, must not hold the serial step for a whole second. With a longer hold (64 * every),
    # a third of the interleaved rounds of a quiet run (benchmarks/run.py's
    # batch_vs_openspiel_rounds) held the serial step without a probe. A lost probe with a busy
    # core costs one or two of the scheduler's time slices, so a lasting load costs a few
    # percent of the serial speed.
    MAX_HOLD_SECONDS = 0.2
    # The parallel step must beat the serial one by this factor. Its downside, a worker waiting
    # for a busy core (30x and more), is cut short between probes (GIVE_UP), so the margin only
    # covers the probes' noise: at 0.8 a quiet machine whose parallel step was clearly faster
    # than the serial one still kept the serial step.
    MARGIN = 0.9
    # A compared parallel probe step this many times slower than the serial ones ends the probe
    # at once: with a busy core a parallel step can take a hundred times a serial one, so the probe's other parallel steps would cost more than the
    # hundreds of steps between probes.
    GIVE_UP = 4.0
    # A lost probe may cost at most this share of the serial steps' time until the next one.
    PROBE_SHARE = 0.05

    def __init__(self, every: int = 500, trials: int = 5):
        if every < 1 or trials < 1:
            raise ValueError(f"ThreadChooser needs every >= 1 and trials >= 1, got every={every}, trials={trials}")
        self.every = every
        self.trials = trials
        self.current = True  # parallel
        self.gap = every  # steps from the end of one probe to the next
        self.serial_wins = 0  # probes in a row that the serial step won
        self.until_probe = 0  # steps left before the next probe (a probe at the start)
        self.probing = 0  # steps of the current probe done
        self.timings: dict[bool, list[float]] = {False: [], True: []}  # the probe's compared steps
        self.parallel_seconds: list[float] = []  # every parallel step of the probe (its cost)
        self.serial_median = 0.0  # the last probe's serial median (0: none yet)
        self.slow_steps = 0  # parallel steps in a row slower than GIVE_UP serial medians, between probes
        # steps run serial and parallel since it was made: what a benchmark reads to tell a slow
        # parallel step from a chooser that ran serial
        self.steps_run = {False: 0, True: 0}
        self.probes_won = {False: 0, True: 0}  # probes (and switches back between probes) won by each step

    @classmethod
    def always(cls, parallel: bool) -> "ThreadChooser":
        """A chooser that never probes and always picks ``parallel`` (for measurements)."""
        chooser = cls()
        chooser.current = parallel
        chooser.until_probe = -1
        return chooser

    def next_choice(self) -> bool:
        """Whether the coming step runs in parallel."""
        return self.probing > self.trials if self.until_probe == 0 else self.current

    def record(self, parallel: bool, seconds: float) -> None:
        """The step just run (parallel or not) took ``seconds``."""
        self.steps_run[parallel] += 1
        if self.until_probe != 0:
            self._between_probes(parallel, seconds)
            return
        first_of_block = self.probing in (0, self.trials + 1)
        self.probing += 1
        if parallel:
            self.parallel_seconds.append(seconds)
        if first_of_block:
            return
        self.timings[parallel].append(seconds)
        if parallel and seconds > self.GIVE_UP * _median(self.timings[False]):
            self._conclude(False)  # no need to wait for the worker thread again
        elif self.probing == 2 * (self.trials + 1):
            self._conclude(_median(self.timings[True]) < self.MARGIN * _median(self.timings[False]))

    def _between_probes(self, parallel: bool, seconds: float) -> None:
        """Count down to the next probe; leave a parallel step that waits for a busy core."""
        slow = parallel and self.serial_median > 0 and seconds > self.GIVE_UP * self.serial_median
        self.slow_steps = self.slow_steps + 1 if slow else 0
        if self.slow_steps == 2:  # the core the parallel step won with is busy again: as a lost probe
            self.timings[False].append(self.serial_median)
            self.parallel_seconds.append(seconds)
            self._conclude(False)
        elif self.until_probe > 0:
            self.until_probe -= 1

    def parallel_share(self) -> float | None:
        """The share of the steps run so far that ran in parallel (None before the first)."""
        total = self.steps_run[False] + self.steps_run[True]
        return self.steps_run[True] / total if total else None

    def _conclude(self, parallel_wins: bool) -> None:
        """End the probe: use the winner until the next one, and set when that is."""
        self.current = parallel_wins
        self.probes_won[parallel_wins] += 1
        self.serial_wins = 0 if self.current else self.serial_wins + 1
        backoff = min(2 ** max(self.serial_wins - 1, 0), self.MAX_BACKOFF)
        self.gap = self.every * backoff
        serial = self.timings[False]
        if serial:
            self.serial_median = _median(serial)
        if not parallel_wins and self.serial_median > 0:
            # the cost's share falls with the lost probes in a row too: under a load that lasts, one
            # lost probe per PROBE_SHARE of the time cost a few percent of the rounds' speed
            cost = sum(t - self.serial_median for t in self.parallel_seconds if t > self.serial_median)
            longest = math.ceil(self.MAX_HOLD_SECONDS / self.serial_median)
            self.gap = max(self.gap, min(math.ceil(backoff * cost / (self.PROBE_SHARE * self.serial_median)), longest))
        self.until_probe = self.gap
        self.probing = 0
        self.slow_steps = 0
        self.parallel_seconds.clear()
        for times in self.timings.values():
            times.clear()


def _median(times: list[float]) -> float:
    """The median of a probe's step times (the upper one of an even count)."""
    return sorted(times)[len(times) // 2]


@functools.cache
def _compile(kernel: Kernel, parallel: bool, fixed_params: tuple[int, ...] | None = None,
             guard: tuple | None = None, num_actions: int | None = None) -> tuple:
    """The batch functions of one kernel (and threading mode), with the kernel compiled in.

    The kernel's functions are closure variables (``core.inline``), so numba inlines them
    into the step, and every array is used through an ``unowned`` view; the functions are
    cached on disk per kernel (``core.compiled``), so only the first process ever compiles them.
    ``fixed_params``: the params vector as compile-time constants of the step
    (``specialise=True``), or None to read the caller's array. ``guard``: the game's
    ``batch_guard`` (a kernel whose ``apply`` can raise), used by the parallel step only: its loop
    plays the recording ``apply`` and after the loop raises for a flagged game, since a raise
    inside a ``prange`` loop makes numba run the loop serially. ``num_actions``: the game's, with
    ``fixed_params`` (a constant too: the random draw's scan over the mask unrolls).
    """
    init, legal_mask, apply, current_player, scores, returns, observe, plies = inline_kernel(kernel)
    checked = parallel and guard is not None
    if checked:
        apply, raise_if_flagged = (inlined(f) for f in guard)
    else:
        @njit(inline="always")
        def raise_if_flagged(row, params):
            pass  # a plain apply raises itself
    if fixed_params is None:
        params_of = unowned

        @njit(inline="always")
        def mask_width(masks):
            return masks.shape[1]
    else:
        @njit(inline="always")
        def params_of(params_owned):
            return fixed_params  # a tuple constant: every params[P_...] folds into the code

        @njit(inline="always")
        def mask_width(masks):
            return num_actions

    @njit(inline="always")
    def play_one(states, params, actions, max_plies, masks, counts, obs, players, rewards, terminated, truncated,
                 final_obs, final_scores, i):
        """Play game ``i``'s action; fill its next mask and observation, or its final ones. Returns
        whether the game ended."""
        row = states[i]
        apply(row, params, actions[i])
        player = current_player(row, params)
        ended_by_rules = player < 0
        capped = not ended_by_rules and plies(row, params) >= max_plies
        terminated[i] = ended_by_rules
        truncated[i] = capped
        if ended_by_rules:
            returns(row, params, rewards[i])
        else:
            rewards[i, 0] = 0.0
            rewards[i, 1] = 0.0
        if ended_by_rules or capped:
            observe(row, params, 0, final_obs[i, 0])
            observe(row, params, 1, final_obs[i, 1])
            scores(row, params, final_scores[i])
            return True
        players[i] = player
        counts[i] = legal_mask(row, params, masks[i])
        observe(row, params, player, obs[i])
        return False

    @njit(inline="always")
    def deal(states, params, pool, pool_at, masks, counts, obs, players, episodes, i):
        """The next dealt game (``pool[pool_at[0]]``) in slot ``i``, with its mask, observation and player."""
        row = states[i]
        start = pool[pool_at[0]]
        for k in range(row.shape[0]):
            row[k] = start[k]
        pool_at[0] += 1
        episodes[i] += 1
        player = current_player(row, params)
        players[i] = player
        counts[i] = legal_mask(row, params, masks[i])
        observe(row, params, max(player, 0), obs[i])

    @njit(inline="always")
    def draw(masks, counts, streams, drawn, i):
        """Game ``i``'s next random legal action, from its own stream (see "Random actions")."""
        streams[i], drawn[i] = random_legal_action_of_first(streams[i], masks[i], counts[i], mask_width(masks))

    @njit(inline="always")
    def restart(states, params, pool, pool_at, masks, counts, obs, players, episodes, draw_next, streams, drawn, i):
        """Deal slot ``i`` its next game (and draw that game's first random action)."""
        deal(states, params, pool, pool_at, masks, counts, obs, players, episodes, i)
        if draw_next:
            draw(masks, counts, streams, drawn, i)

    # Where games that ended get their next one (see "Dealing"): in slot order, so the same seed
    # gives the same games whatever the thread count. The serial step deals in its one loop over
    # the batch; the parallel one after its loop, reading the flags eight games at a time (the
    # flag arrays are padded to whole 8-byte words).
    if parallel:
        @njit(inline="always")
        def restart_in_loop(states, params, pool, pool_at, masks, counts, obs, players, episodes, draw_next, streams,
                            drawn, i):
            pass

        @njit(inline="always")
        def restart_after_loop(states, params, pool, pool_at, masks, counts, obs, players, episodes, draw_next,
                               streams, drawn, terminated, truncated):
            terminated_words, truncated_words = terminated.view(np.uint64), truncated.view(np.uint64)
            for word in range(terminated_words.shape[0]):
                if terminated_words[word] | truncated_words[word]:  # one of these eight games ended
                    for i in range(8 * word, 8 * word + 8):
                        if terminated[i] or truncated[i]:
                            restart(states, params, pool, pool_at, masks, counts, obs, players, episodes, draw_next,
                                    streams, drawn, i)
    else:
        restart_in_loop = restart

        @njit(inline="always")
        def restart_after_loop(states, params, pool, pool_at, masks, counts, obs, players, episodes, draw_next,
                               streams, drawn, terminated, truncated):
            pass

    def step(states_owned, params_owned, actions_owned, active_owned, max_plies, pool_owned, pool_at_owned,
             masks_owned, counts_owned, obs_owned, players_owned, rewards_owned, terminated_owned, truncated_owned,
             final_obs_owned, final_scores_owned, episodes_owned, movers_owned, draw_next, streams_owned,
             drawn_owned):
        """Play the active games. Returns the first game with an illegal action (then nothing moves), or
        ``POOL_LOW`` when the pool now holds fewer than ``n`` new games, else ``POOL_OK``.

        With ``draw_next``, also draws every game's next random action into ``drawn``.
        ``terminated`` and ``truncated`` are padded to a multiple of 8 games."""
        # Views without reference counts (the caller's arrays outlive this call), every one of
        # them: an array handed to an inlined function is counted on each call, and on two
        # threads both count on the same counter, whose cache line then moves between the cores.
        states, masks, obs, pool, pool_at = unowned((states_owned, masks_owned, obs_owned, pool_owned, pool_at_owned))
        params = params_of(params_owned)
        actions, active, counts, players, episodes, movers = unowned(
            (actions_owned, active_owned, counts_owned, players_owned, episodes_owned, movers_owned))
        rewards, terminated, truncated, final_obs, final_scores = unowned(
            (rewards_owned, terminated_owned, truncated_owned, final_obs_owned, final_scores_owned))
        streams, drawn = unowned((streams_owned, drawn_owned))
        n = states.shape[0]
        num_actions = mask_width(masks)
        for i in range(n):  # checked first, serially: a refused batch must stay unchanged
            if active[i]:
                a = actions[i]
                if a < 0 or a >= num_actions or masks[i, a] == 0:
                    return i
        for i in prange(n):
            ended = False
            if active[i]:
                movers[i] = players[i]
                ended = play_one(states, params, actions, max_plies, masks, counts, obs, players, rewards, terminated,
                                 truncated, final_obs, final_scores, i)
            else:
                movers[i] = -1
                rewards[i, 0] = 0.0
                rewards[i, 1] = 0.0
                terminated[i] = False
                truncated[i] = False
            if ended:
                restart_in_loop(states, params, pool, pool_at, masks, counts, obs, players, episodes, draw_next,
                                streams, drawn, i)
            elif draw_next:
                draw(masks, counts, streams, drawn, i)
        if checked:  # the guard's error, raised once the loop has ended (see guard above)
            for i in range(n):
                if active[i]:
                    raise_if_flagged(states[i], params)
        restart_after_loop(states, params, pool, pool_at, masks, counts, obs, players, episodes, draw_next, streams,
                           drawn, terminated, truncated)
        return POOL_LOW if pool_at[1] - pool_at[0] < n else POOL_OK

    def reset_all(states_owned, params_owned, pool_owned, pool_at_owned, masks_owned, counts_owned, obs_owned,
                  players_owned, episodes_owned):
        states, params, masks, obs, pool = unowned((states_owned, params_owned, masks_owned, obs_owned, pool_owned))
        pool_at, counts, players, episodes = unowned((pool_at_owned, counts_owned, players_owned, episodes_owned))
        for i in range(states.shape[0]):
            deal(states, params, pool, pool_at, masks, counts, obs, players, episodes, i)

    def refill(pool_owned, pool_at, params_owned, rng):
        """Move the pool's unused games to its front and deal new ones after them, in order."""
        pool, params = unowned((pool_owned, params_owned))
        kept = 0
        for j in range(pool_at[0], pool_at[1]):
            for k in range(pool.shape[1]):
                pool[kept, k] = pool[j, k]
            kept += 1
        for j in range(kept, pool.shape[0]):
            init(pool[j], params, rng)
        pool_at[0] = 0
        pool_at[1] = pool.shape[0]

    # Only the prange loop runs on threads: with parallel=True numba would also make a
    # parallel region of every slice assignment in the kernel (legal_mask's ``mask[:] = 0``),
    # one region per game dealt in the serial part.
    threads = {"prange": True, "comprehension": False, "reduction": False, "inplace_binop": False, "setitem": False,
               "numpy": False, "stencil": False, "fusion": False} if parallel else False
    return cached_njit(step, what="the batched step", parallel=threads), cached_njit(reset_all), cached_njit(refill)


def _entry_point(dispatcher) -> Any:
    """The compiled function's own entry (it unboxes the arguments and runs the machine code),
    or ``dispatcher`` itself when it has not exactly one compiled signature (or under
    ``NUMBA_DISABLE_JIT``).

    Numba's dispatcher first types every argument to pick the compiled version, and the step
    takes 21 arrays, so typing them was a large share of the step's fixed cost per call. The
    entry does not check the arguments' types:
    ``BatchEnv.step`` passes its own arrays, and the caller's actions and active flags only
    after making them contiguous ``int64`` and ``bool`` arrays of the batch's length.
    """
    overloads = getattr(dispatcher, "overloads", None)
    if not overloads or len(overloads) != 1:
        return dispatcher
    return next(iter(overloads.values())).entry_point


def _sample_actions_loop(masks, counts_owned, streams_owned, out_owned):
    """A uniformly random legal action per row (-1 where none), row ``i``'s from the splitmix64
    stream ``streams[i]``; ``counts``: the legal actions of every row, as the step counted them."""
    # views without reference counting (core.inline)
    rows, counts, streams, out = unowned((masks, counts_owned, streams_owned, out_owned))
    for i in range(rows.shape[0]):
        streams[i], out[i] = random_legal_action(streams[i], rows[i], counts[i])


# keyed by fingerprint (core.compiled), not numba's cache=True: that one keys a function by
# its own file, and kept loading the old sampler after random_legal_action changed
_sample_actions = cached_njit(_sample_actions_loop)


@dataclass
class BatchStep:
    """What ``BatchEnv.step`` returns: the batch's live arrays (length B), so every step returns the
    same record and its contents change with the next step (copy what you keep)."""

    obs: np.ndarray  # (B, obs) float32: the next position of every game, as its player to move sees it
    players: np.ndarray  # (B,) int64: the player to move in every game (after auto-reset)
    rewards: np.ndarray  # (B, 2) float64: +1/-1/0 per player where a game ended by the rules
    terminated: np.ndarray  # (B,) bool: the game ended by the rules and was reset
    truncated: np.ndarray  # (B,) bool: the game reached max_plies and was reset
    final_obs: np.ndarray  # (B, 2, obs) float32: last observation per player of games that ended
    final_scores: np.ndarray  # (B, 2) float64: scores of games that ended (by rules or truncation)
    movers: np.ndarray  # (B,) int64: who played in this step (-1 where the game was not active)


class BatchEnv:
    """B games of one registered id stepped together (see the module docstring)."""

    def __init__(
        self, env_id: str | Game, num_envs: int, seed: int | None = None, parallel: bool | None = None,
        specialise: bool = False, **options: Any
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InvalidOptionError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.game = game_of(env_id, **options)
        game = self.game
        self.num_envs = int(num_envs)
        self.num_actions = game.num_actions
        self.observation_size = game.observation_size
        self.max_plies = game.ply_cap
        # parallel: None picks by size (and needs more than one thread); a caller making many
        # small partial steps may prefer False
        if parallel is None:
            parallel = self.num_envs >= PARALLEL_MIN_GAMES and numba.config.NUMBA_NUM_THREADS > 1
        self.parallel = bool(parallel)
        # the serial step, and the parallel one when threads may help (ThreadChooser picks per step)
        fixed = tuple(int(v) for v in game.params) if specialise else None
        width = game.num_actions if specialise else None
        self._step = _compile(game.kernel, False, fixed, None, width)[0]
        self._reset_all, self._refill = _compile(game.kernel, False)[1:]
        self._parallel_step = _compile(game.kernel, True, fixed, game.batch_guard, width)[0] if self.parallel else None
        self.threads = ThreadChooser() if self.parallel else None
        self._entries: list[Any] = [None, None]  # the compiled steps' entries, serial and parallel (_call_step)
        B = self.num_envs
        self.states = np.zeros((B, game.state_size), dtype=np.int32)
        self.masks = np.zeros((B, game.num_actions), dtype=np.int8)
        self.obs = np.zeros((B, game.observation_size), dtype=np.float32)
        self.players = np.zeros(B, dtype=np.int64)
        self._rewards = np.zeros((B, 2), dtype=np.float64)
        # padded to whole 8-byte words: the parallel step reads them eight games at a time
        padded = -(-B // 8) * 8
        self._terminated_padded = np.zeros(padded, dtype=np.bool_)
        self._truncated_padded = np.zeros(padded, dtype=np.bool_)
        self._terminated, self._truncated = self._terminated_padded[:B], self._truncated_padded[:B]
        self._final_scores = np.zeros((B, 2), dtype=np.float64)
        self._final_obs = np.zeros((B, 2, game.observation_size), dtype=np.float32)
        self._all = np.ones(B, dtype=np.bool_)
        self._drawn = np.zeros(B, dtype=np.int64)  # random legal actions drawn ahead (see "Random actions")
        self._streams = np.zeros(B, dtype=np.uint64)  # every game's random stream, seeded by reset
        self._draw_arguments = (self._streams, self._drawn)
        self._drawn_fresh = False  # _drawn holds a draw no sample_actions call has returned yet
        self._draw_next = False  # the next step draws the following actions (sample_actions is in use)
        self._legal_counts = np.zeros(B, dtype=np.int64)  # legal actions of every game (for sample_actions)
        self._movers = np.full(B, -1, dtype=np.int64)
        self.episodes = np.zeros(B, dtype=np.int64)  # games started in each slot since reset
        # every step returns this one record: its arrays are the live ones
        self._result = BatchStep(
            self.obs, self.players, self._rewards, self._terminated, self._truncated, self._final_obs,
            self._final_scores, self._movers,
        )
        # New games dealt ahead by the batch's generator (see "Dealing" in the module docstring):
        # rows pool_at[0] .. pool_at[1]-1 are dealt and not yet played.
        self._pool = np.zeros((B + max(B, 8), game.state_size), dtype=np.int32)
        self._pool_at = np.zeros(2, dtype=np.int64)
        self._rng: np.random.Generator | None = None  # the batch's generator (deals), set by reset
        # the step's arguments other than the actions and the drawing switch, built once
        self._step_arguments = (
            (self.states, game.params),
            (self.max_plies, self._pool, self._pool_at, self.masks, self._legal_counts, self.obs, self.players,
             self._rewards, self._terminated_padded, self._truncated_padded, self._final_obs, self._final_scores,
             self.episodes, self._movers),
        )
        self.reset(seed)

    # -- episodes ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> np.ndarray:
        """Start a new game in every slot. With a seed (an integer from 0 to 2**64 - 1), the
        batch's generator starts over."""
        seed = checked_seed(seed, f"{self.game.env_id}: BatchEnv seed")
        if seed is not None or self._rng is None:
            root = np.random.SeedSequence(seed)
            deal_seq, sample_seq = root.spawn(2)
            self._rng = np.random.default_rng(deal_seq)
            self._streams[:] = sample_seq.generate_state(self.num_envs, dtype=np.uint64)  # one per game
            self.seed = seed
            self._pool_at[:] = 0  # the games dealt by the previous generator are dropped
        self.episodes[:] = 0
        self._drawn_fresh = False
        self._deal_ahead()
        self._reset_all(self.states, self.game.params, self._pool, self._pool_at, self.masks, self._legal_counts,
                        self.obs, self.players, self.episodes)
        self._deal_ahead()  # the first step may end every game
        return self.obs

    def _deal_ahead(self) -> None:
        """Make sure the pool holds a new game for every slot (a step may end them all)."""
        if self._pool_at[1] - self._pool_at[0] < self.num_envs:
            self._refill(self._pool, self._pool_at, self.game.params, self._rng)

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> BatchStep:
        """Play one action in every active game; finished games are reset at once."""
        if not (isinstance(actions, np.ndarray) and actions.dtype.kind == "i"):  # integers only (core.checks)
            actions = action_array(actions, self.game.env_id, self.num_actions)
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        if actions.shape != (self.num_envs,):
            raise IllegalActionError(
                f"{self.game.env_id}: actions must have shape ({self.num_envs},), got {actions.shape}")
        active = self._all if active is None else np.ascontiguousarray(active, dtype=np.bool_)
        if active.shape != (self.num_envs,):
            raise IllegalActionError(f"active must have shape ({self.num_envs},), got {active.shape}")
        head, tail = self._step_arguments
        arguments = (*head, actions, active, *tail, self._draw_next, *self._draw_arguments)
        if self.threads is None:
            bad = self._call_step(False, arguments)
        else:
            parallel = self.threads.next_choice()
            first_call = self._entries[parallel] is None  # loads or compiles the step: not timed
            start = time.perf_counter()
            bad = self._call_step(parallel, arguments)
            if not first_call:
                self.threads.record(parallel, time.perf_counter() - start)
        if bad == POOL_LOW:  # top the pool up now, so the next step may end every game
            self._deal_ahead()
        elif bad >= 0:
            self._drawn_fresh = False
            if not 0 <= actions[bad] < self.num_actions:
                raise out_of_range_action(self.game.env_id, self.num_actions, int(actions[bad]), f"game {bad}: ")
            legal = np.flatnonzero(self.masks[bad]).tolist()
            raise IllegalActionError(
                f"{self.game.env_id}: game {bad}: action {int(actions[bad])} is not legal for player "
                f"{int(self.players[bad])}; legal actions are {legal}"
            )
        self._drawn_fresh = self._draw_next
        self._draw_next = False
        return self._result

    def _call_step(self, parallel: bool, arguments: tuple) -> int:
        """Run the serial or the parallel compiled step: through numba's dispatcher the first
        time, then through the compiled function's own entry (see ``_entry_point``)."""
        entry = self._entries[parallel]
        if entry is not None:
            return entry(*arguments)
        dispatcher = self._parallel_step if parallel else self._step
        bad = dispatcher(*arguments)
        self._entries[parallel] = _entry_point(dispatcher)
        return bad

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game (seeded by ``reset``'s seed)."""
        if not self._drawn_fresh:  # no step has drawn them (see "Random actions")
            _sample_actions(self.masks, self._legal_counts, self._streams, self._drawn)
        self._drawn_fresh = False
        self._draw_next = True
        return self._drawn.copy()

    def state(self, i: int) -> State:
        """Game ``i`` as a ``State`` (a copy: changing it does not change the batch)."""
        return State(self.game, self.states[i].copy())
