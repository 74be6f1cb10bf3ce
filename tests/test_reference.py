"""Every registered id against its plain-Python reference (``tests/reference/``), move by move.

Random games are played on the kernel and on the reference side by side; at every ply the
full ``to_json`` position, the legal actions, the action mask, the player to move, whether
the game is over, the scores and the returns must agree. Each family also plays random
option combinations (``OptionSweep``), every legal action of hand-made positions that random
play rarely reaches (``Positions``), and checks that a fresh seeded batch exercises every rule
of its reference (``RuleCoverage``), or agreeing would prove little.

The family of an id is chosen by its game class, never by its name: an id whose class has
no entry in ``FAMILIES`` fails, so a new game cannot go unchecked. Every random choice comes
from a ``numpy.random.default_rng`` with a fixed seed, and every assertion message names the
seed, the options, the game, the ply and the actions so far, so a failure can be replayed.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Hashable

import numpy as np
import pytest

import mancala_envs
from mancala_envs.games.afrika import AfrikaGame
from mancala_envs.games.kalah import KalahGame
from mancala_envs.games.progressive import ProgressiveGame
from mancala_envs.games.rondell import RondellGame
from mancala_envs.games.widdershins import WiddershinsGame
from reference.afrika_ref import AfrikaReference
from reference.kalah_ref import KalahReference
from reference.progressive_ref import ProgressiveReference
from reference.rondell_ref import RondellReference
from reference.widdershins_ref import WiddershinsReference

# --------------------------------------------------------------------------------------------
# Per-family data: option samplers and hand-made positions
# --------------------------------------------------------------------------------------------


def kalah_options(rng: np.random.Generator, game_index: int = 0) -> dict:
    """One random Kalah option combination (every rule switch, pits 1..8, seeds 1..6)."""
    opts = {
        "pits": int(rng.integers(1, 9)),
        "seeds": int(rng.integers(1, 7)),
        "extra_turn": bool(rng.integers(2)),
        "capture": bool(rng.integers(2)),
        "capture_needs_opposite": bool(rng.integers(2)),
        "skip_origin": bool(rng.integers(2)),
        "end": ["mover_empty", "side_empty"][int(rng.integers(2))],
        "leftover": ["owner", "discard"][int(rng.integers(2))],
        "directions": int(rng.integers(1, 3)),
        "chosen_start": bool(rng.random() < 0.3),
    }
    if opts["chosen_start"]:
        opts["max_setup_seeds"] = int(rng.integers(1, 5))
        opts["min_sow"] = int(rng.integers(1, 4))  # may exceed seeds with a chosen start
    else:
        opts["min_sow"] = int(rng.integers(1, min(3, opts["seeds"]) + 1))
    return opts


def kalah_position(rng: np.random.Generator, ids: list[str], index: int):
    """A play-phase position, often with one heavy hole (multi-lap sowing)."""
    opts = kalah_options(rng)
    opts.pop("max_setup_seeds", None)
    opts["chosen_start"] = False
    opts["min_sow"] = int(rng.integers(1, min(3, opts["seeds"]) + 1))
    n = opts["pits"]
    rows = [[int(v) for v in rng.integers(0, 4, n)] for _ in range(2)]
    for _ in range(int(rng.integers(0, 3))):
        side, hole = int(rng.integers(2)), int(rng.integers(n))
        rows[side][hole] = int(rng.integers(2 * n, 6 * n + 3))
    mover = int(rng.integers(2))
    # the mover needs a playable hole, so that loading the position changes nothing
    if max(rows[mover]) < opts["min_sow"]:
        rows[mover][int(rng.integers(n))] = opts["min_sow"] + int(rng.integers(0, 3))
    if opts["end"] == "side_empty" and sum(rows[1 - mover]) == 0:
        rows[1 - mover][int(rng.integers(n))] = 1
    # a position holds at most 2*pits*seeds seeds (state_from_json): seeds large enough, stores clipped
    on_board = sum(rows[0]) + sum(rows[1])
    stores = [min(int(v), (24 * n - on_board) // 2) for v in rng.integers(0, 20, 2)]
    opts["seeds"] = max(opts["seeds"], -(-(on_board + sum(stores)) // (2 * n)))
    game = mancala_envs.make_game("kalah-v0", **opts)
    payload = {
        "pits": rows,
        "stores": stores,
        "to_move": mover,
        "terminal": False,
        "plies": int(rng.integers(0, 50)),
        "phase": "play",
        "setup_index": 0,
        "last_action": None,
        "last_player": None,
    }
    return game, payload


def progressive_options(rng: np.random.Generator, game_index: int = 0) -> dict:
    return {
        "holes": int(rng.integers(1, 14)),
        "stones": int(rng.integers(1, 7)),
        "skip_origin": bool(rng.integers(2)),
    }


def progressive_position(rng: np.random.Generator, ids: list[str], index: int):
    """A position with the board's total, often with one heavy hole (long relay sowing)."""
    game = mancala_envs.make_game("progressive-v0", **progressive_options(rng))
    n = game.options["holes"]
    total = game.total_stones
    weights = rng.random(n + 3)
    weights[rng.random(n + 3) < 0.4] = 0.0  # empty holes, so that moves end in them
    if rng.random() < 0.5:
        weights[int(rng.integers(n))] += 5.0  # one heavy hole: several laps
    if weights[:n].sum() == 0:
        weights[int(rng.integers(n))] = 1.0
    counts = rng.multinomial(total - 1, weights / weights.sum())
    counts[int(rng.integers(n))] += 1  # the row is never empty
    payload = {
        "holes": [int(v) for v in counts[:n]],
        "goal": int(counts[n]),
        "captured": [int(counts[n + 1]), int(counts[n + 2])],
        "to_move": int(rng.integers(2)),
        "moves_left": int(rng.integers(1, 5)),
        "bonus": int(rng.integers(0, 4)),
        "terminal": False,
        "plies": int(rng.integers(0, 50)),
        "last_action": None,
        "last_player": None,
        "last_end": None,
    }
    return game, payload


AFRIKA_KOMIS = (0.0, 0.5, 2.5, 3.0, 7.5)


def afrika_options(rng: np.random.Generator, game_index: int = 0) -> dict:
    holes = int(rng.integers(2, 11))
    stones = int(rng.integers(1, 11))  # total >= 4, so a komi above it is cut to 4
    total = 2 * holes * stones
    opts = {
        "holes": holes,
        "stones": stones,
        "komi": min(float(rng.choice(AFRIKA_KOMIS)), float(total)),
        "giveaway": bool(rng.random() < 0.3),
        "target": None,
    }
    if not opts["giveaway"] and rng.random() < 0.4:
        opts["target"] = int(rng.integers(1, total + 1))
    return opts


def afrika_position(rng: np.random.Generator, ids: list[str], index: int):
    """A position with the right stone total: random holes, the rest split as captures.

    None when the position is already decided (giveaway) or both are past the target
    (``state_from_json`` refuses it)."""
    opts = afrika_options(rng)
    game = mancala_envs.make_game("afrika-v0", **opts)
    n, total = opts["holes"], 2 * opts["holes"] * opts["stones"]
    board = [0] * (2 * n)
    on_board = int(rng.integers(1, total + 1))
    heavy = rng.random() < 0.3  # one big hole: sowings that lap the ring
    for _ in range(on_board):
        k = 0 if heavy and rng.random() < 0.7 else int(rng.integers(2 * n))
        board[k] += 1
    if heavy:
        shift = int(rng.integers(2 * n))
        board = board[shift:] + board[:shift]
    # empty a few holes so that captures (and ties) are common
    for _ in range(int(rng.integers(0, n))):
        k = int(rng.integers(2 * n))
        j = (k + 1 + int(rng.integers(2 * n - 1))) % (2 * n)
        board[j] += board[k]
        board[k] = 0
    rest = total - sum(board)
    cap0 = int(rng.integers(0, rest + 1))
    payload = {
        "holes": [board[:n], board[n:]],
        "captured": [cap0, rest - cap0],
        "to_move": int(rng.integers(2)),
        "plies": int(rng.integers(0, 60)),
        "last_action": None,
        "last_player": None,
        "last_capture": None,
    }
    if opts["giveaway"] and max(payload["captured"]) * 2 > game.total_stones:
        return game, None
    if opts["target"] is not None and min(payload["captured"]) >= opts["target"]:
        return game, None
    return game, payload


# every valid custom deck with at most 12 piles (piles, cards_per_pile, red_pairs, blue_pairs)
RONDELL_DECKS = [(2, 3, 1, 2), (8, 3, 5, 7), (10, 3, 7, 8), (5, 6, 7, 8), (9, 6, 13, 14), (7, 8, 13, 15),
                 (8, 9, 17, 19), (10, 11, 27, 28), (16, 5, 19, 21), (16, 7, 27, 29)]


def rondell_options(rng: np.random.Generator, game_index: int) -> dict:
    """The decks in turn, each with a random direction and variant (reservation, partial)."""
    piles, cards, red, blue = RONDELL_DECKS[game_index % len(RONDELL_DECKS)]
    opts = dict(piles=piles, cards_per_pile=cards, red_pairs=red, blue_pairs=blue,
                bottom_up=bool(rng.integers(2)), max_plies=400)
    variant = int(rng.integers(3))
    if variant == 1:
        opts["reservation"] = True
    elif variant == 2 and piles % 2 == 0:
        opts["partial"] = True
    return opts


def rondell_variant(opts: dict) -> tuple:
    return (opts.get("reservation", False), opts.get("partial", False), opts["bottom_up"])


def rondell_position(rng: np.random.Generator, ids: list[str], index: int):
    """Cards left after some random captures, dealt into the surviving piles at random heights.

    None when the partial variant's mover would have to pass: play never stops there."""
    game = mancala_envs.make_game(ids[index % len(ids)])
    opts = game.options
    P, red, blue = opts["piles"], opts["red_pairs"], opts["blue_pairs"]
    taken_red = int(rng.integers(0, red + 1)) if rng.random() < 0.7 else 0
    taken_blue = int(rng.integers(0, blue))
    cards = ["R"] * 2 * (red - taken_red) + ["B"] * 2 * (blue - taken_blue)
    rng.shuffle(cards)
    alive = sorted(rng.choice(P, size=int(rng.integers(1, min(P, len(cards)) + 1)), replace=False).tolist())
    # random cut points: every surviving pile gets at least one card
    cuts = sorted(rng.choice(np.arange(1, len(cards)), size=len(alive) - 1, replace=False).tolist()) if len(alive) > 1 else []
    bounds = [0, *cuts, len(cards)]
    piles = [""] * P
    for i, number in enumerate(alive):
        piles[number] = "".join(cards[bounds[i] : bounds[i + 1]])
    split_r = int(rng.integers(0, taken_red + 1))
    split_b = int(rng.integers(0, taken_blue + 1))
    payload = {
        "piles": piles,
        "to_move": int(rng.integers(2)),
        "phase": "move",
        "reserved": None,
        "pairs": [[split_r, split_b], [taken_red - split_r, taken_blue - split_b]],
        "plies": int(rng.integers(0, 50)),
        "last_mover": None,
    }
    if opts["partial"]:
        half = P // 2
        mover = payload["to_move"]
        if not any(len(payload["piles"][i]) >= 2 for i in range(mover * half, mover * half + half)):
            return game, None
    return game, payload


WIDDERSHINS_CARDS = [rank + suit for suit in "CDHS"
                     for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]


def widdershins_position(rng: np.random.Generator, ids: list[str], index: int):
    """Random stacks, single cards, Aces; None when the position is already over."""
    game = mancala_envs.make_game(ids[index % len(ids)])
    cards = list(WIDDERSHINS_CARDS)
    rng.shuffle(cards)
    keep = cards[: int(rng.integers(14, 53))]
    stacks = [[] for _ in range(12)]
    for card in keep:  # a skewed spread: some tall stacks, some singles, some vacant
        stacks[int(min(rng.integers(0, 12), rng.integers(0, 12)) if rng.random() < 0.5 else rng.integers(0, 12))].append(card)
    payload = {"stacks": stacks, "to_move": int(rng.integers(2)), "south_colour": ["red", "black"][int(rng.integers(2))],
               "first_move": False, "plies": int(rng.integers(0, 40)), "last_mover": None}
    if game.state_from_json(payload).is_terminal():
        return game, None
    return game, payload


# --------------------------------------------------------------------------------------------
# The families: which reference checks which game class, and how hard
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionSweep:
    """Random option combinations played on ``base_id`` in ``chunks`` tests of ``games`` games.

    ``draw(rng, game_index)`` gives the options. ``must_reach`` names a feature of the options
    and the values every chunk must draw (exactly those, or at least those if the name is in
    ``may_exceed``), so the sampler cannot quietly stop reaching a rule switch."""

    base_id: str
    draw: Callable[[np.random.Generator, int], dict]
    seed: int  # chunk k draws from default_rng(seed + k)
    deal_seed: int  # game g starts from new_state(deal_seed + g)
    chunks: int
    games: int
    must_reach: dict[str, tuple[Callable[[dict], Hashable], frozenset]]
    may_exceed: frozenset = frozenset()


@dataclass(frozen=True)
class Positions:
    """``count`` hand-made positions per chunk; every legal action of each is compared.

    ``make(rng, ids, index)`` gives the game and the payload (None: not a position play can
    stop in; drawn again). With ``complete`` the payload is a full ``to_json`` that must read
    back unchanged."""

    make: Callable
    seed: int  # chunk k draws from default_rng(seed + k)
    chunks: int
    count: int
    complete: bool


@dataclass(frozen=True)
class FreshBatch:
    """``games`` sweep games drawn from default_rng(seed) and ``positions`` positions from
    default_rng(seed + 1), played only to count the rules they exercise."""

    seed: int
    games: int
    positions: int


@dataclass(frozen=True)
class RuleCoverage:
    """Every one of ``events`` must fire at least ``at_least`` times, counted over a fresh
    batch, or (``fresh`` None) over every comparison test of the family: its registered ids,
    sweep chunks and position chunks, shared with those tests (run here if this process has
    not run them yet), since some endings are too rare for a small batch to reach."""

    events: tuple[str, ...]
    at_least: int
    fresh: FreshBatch | None


@dataclass(frozen=True)
class Family:
    reference: type
    seed: int  # the k-th registered id of the class plays from default_rng(seed + k)
    deal_seed: int  # its game g starts from new_state(deal_seed + g)
    games_per_id: int
    min_plies: int  # every game of a registered id lasts at least this long
    ply_limit: int | None  # stop comparing there; None: the game's max_plies
    sweep: OptionSweep | None
    positions: Positions
    coverage: RuleCoverage


def every(values) -> frozenset:
    return frozenset(values)


def option(name: str) -> Callable[[dict], Hashable]:
    return lambda opts: opts[name]


FAMILIES: dict[type, Family] = {
    KalahGame: Family(
        reference=KalahReference,
        seed=1000,
        deal_seed=0,
        games_per_id=800,
        min_plies=1,
        # Bidirectional play with min_sow=1 can shuffle one seed to and fro; random games still
        # end (the longest seen is under 500 plies), but stop comparing there rather than loop.
        ply_limit=4000,
        sweep=OptionSweep(
            base_id="kalah-v0", draw=kalah_options, seed=2000, deal_seed=0, chunks=8, games=1500,
            must_reach={
                **{switch: (option(switch), every({False, True}))
                   for switch in ("extra_turn", "capture", "capture_needs_opposite", "skip_origin", "chosen_start")},
                "end": (option("end"), every({"mover_empty", "side_empty"})),
                "leftover": (option("leftover"), every({"owner", "discard"})),
                "directions": (option("directions"), every({1, 2})),
                "min_sow": (option("min_sow"), every({1, 2, 3})),
                "pits": (option("pits"), every(range(1, 9))),
                "seeds": (option("seeds"), every(range(1, 7))),
            },
        ),
        positions=Positions(make=kalah_position, seed=3000, chunks=2, count=2500, complete=True),
        coverage=RuleCoverage(
            events=("counterclockwise", "clockwise", "extra_turn", "capture", "empty_capture",
                    "no_capture_opposite_empty", "empty_opponent_hole", "lap", "origin_skipped",
                    "origin_capture", "landing_filled_earlier", "end_mover_stuck", "end_side_empty_early",
                    "leftover_owner", "leftover_discard"),
            at_least=5, fresh=FreshBatch(seed=4000, games=400, positions=400),
        ),
    ),
    ProgressiveGame: Family(
        reference=ProgressiveReference,
        seed=5000,
        deal_seed=0,
        games_per_id=300,
        min_plies=1,
        ply_limit=None,  # the default max_plies; random games end far sooner
        sweep=OptionSweep(
            base_id="progressive-v0", draw=progressive_options, seed=6000, deal_seed=0, chunks=2, games=800,
            must_reach={
                "skip_origin": (option("skip_origin"), every({False, True})),
                "holes": (option("holes"), every(range(1, 14))),
                "stones": (option("stones"), every(range(1, 7))),
            },
        ),
        positions=Positions(make=progressive_position, seed=7000, chunks=1, count=4000, complete=True),
        coverage=RuleCoverage(
            events=("east_wrap", "west_wrap", "relay", "three_relays", "empty_end", "goal_end", "origin_skipped",
                    "end_in_own_origin", "capture_with_stones_dropped_in_passing", "bonus_granted",
                    "bonus_2_or_more", "turn_with_goal_and_empty", "game_end", "end_mid_turn"),
            at_least=5, fresh=FreshBatch(seed=8000, games=60, positions=200),
        ),
    ),
    AfrikaGame: Family(
        reference=AfrikaReference,
        seed=1100,
        deal_seed=0,
        games_per_id=1000,
        min_plies=10,
        ply_limit=None,  # the default max_plies; small boards may cycle without a capture
        sweep=OptionSweep(
            base_id="afrika-v0", draw=afrika_options, seed=2100, deal_seed=0, chunks=4, games=600,
            must_reach={
                "giveaway": (option("giveaway"), every({False, True})),
                "target given": (lambda opts: opts["target"] is not None, every({False, True})),
                "komi": (option("komi"), every(AFRIKA_KOMIS)),  # a komi above a total of 4 is cut to 4
                "holes": (option("holes"), every(range(2, 11))),
            },
            may_exceed=frozenset({"komi"}),
        ),
        positions=Positions(make=afrika_position, seed=3100, chunks=1, count=4000, complete=False),
        coverage=RuleCoverage(
            events=("sow", "capture", "capture_tie_choice", "capture_larger_refused", "origin_skipped",
                    "end_empty_board", "end_giveaway", "end_target"),
            at_least=5, fresh=FreshBatch(seed=4100, games=150, positions=300),
        ),
    ),
    RondellGame: Family(
        reference=RondellReference,
        seed=500,
        deal_seed=10_000,
        games_per_id=30,
        min_plies=1,
        ply_limit=None,
        sweep=OptionSweep(
            base_id="rondell-v0", draw=rondell_options, seed=77, deal_seed=20_000, chunks=1, games=80,
            must_reach={
                # (reservation, partial, bottom_up): the two variants exclude each other
                "variant": (rondell_variant, every((r, p, b) for r, p in ((False, False), (True, False), (False, True))
                                                   for b in (False, True))),
            },
        ),
        positions=Positions(make=rondell_position, seed=99, chunks=1, count=300, complete=False),
        coverage=RuleCoverage(
            events=("capture_R", "capture_B", "capture_on_lap_2", "capture_on_lap_3", "pile_leaves_ring",
                    "capture_leaves_one", "no_capture_end", "lap_longer_than_ring", "end_no_move",
                    "end_repetition", "reserve", "reserve_none", "pass"),
            at_least=3, fresh=None,
        ),
    ),
    WiddershinsGame: Family(
        reference=WiddershinsReference,
        # ids in registry order: widdershins-parlett-v0 plays from 599, widdershins-v0 from 600
        seed=599,
        deal_seed=30_000,
        games_per_id=300,
        min_plies=1,
        ply_limit=None,
        sweep=None,  # its only options are the two registered endings
        positions=Positions(make=widdershins_position, seed=5, chunks=1, count=600, complete=False),
        coverage=RuleCoverage(
            events=("pass", "resign", "ace_clockwise", "ace_counterclockwise", "court_across", "number_move",
                    "continuation", "land_vacant", "land_opponent_on_opponent", "capture_same_rank",
                    "capture_higher", "capture_higher_ace", "capture_ace_low", "capture_lower",
                    "sow_round_the_ring", "end_few_cards", "end_repetition", "end_colour_gone", "end_singletons"),
            at_least=3, fresh=None,
        ),
    ),
}


def family_of(game) -> Family:
    """The family of ``game`` by its exact class; fails for a class without a reference."""
    family = FAMILIES.get(type(game))
    if family is None:
        pytest.fail(f"{game.env_id}: game class {type(game).__name__} has no reference in tests/reference/ "
                    f"(add it to FAMILIES in {__name__})")
    return family


def ids_of(game_class: type) -> list[str]:
    """The registered ids whose game is ``game_class``, in registry order."""
    return [e for e in mancala_envs.list_envs() if type(mancala_envs.make_game(e)) is game_class]


FAMILY_PARAMS = [pytest.param(cls, id=cls.__name__) for cls in FAMILIES]


FAST_CHUNKS = 2  # the fast lane runs each family's first chunks; the full suite runs them all


def chunk_params(part: str) -> list:
    """(class, chunk) for every family with that part, one test per chunk."""
    params = []
    for cls, family in FAMILIES.items():
        spec = getattr(family, part)
        if spec is not None:
            params += [pytest.param(cls, k, id=f"{cls.__name__}-{k}", marks=() if k < FAST_CHUNKS else pytest.mark.slow)
                       for k in range(spec.chunks)]
    return params


# --------------------------------------------------------------------------------------------
# Comparing kernel and reference
# --------------------------------------------------------------------------------------------


def kernel_view(state) -> dict:
    return {
        "json": state.to_json(),
        "legal": state.legal_actions(),
        "mask": state.action_mask().tolist(),
        "player": state.current_player,
        "terminal": state.is_terminal(),
        "scores": state.scores(),
        "returns": state.returns(),
    }


def reference_view(ref, rstate, num_actions: int) -> dict:
    legal = ref.legal(rstate)
    mask = [0] * num_actions
    for a in legal:
        mask[a] = 1
    return {
        "json": ref.to_json(rstate),
        "legal": legal,
        "mask": mask,
        "player": ref.current_player(rstate),
        "terminal": ref.is_terminal(rstate),
        "scores": ref.scores(rstate),
        "returns": ref.returns(rstate),
    }


def assert_agree(game, state, ref, rstate, where: str) -> dict:
    """Kernel and reference agree on everything observable; returns the kernel's view."""
    k, r = kernel_view(state), reference_view(ref, rstate, game.num_actions)
    if k != r:
        differences = "\n".join(f"  {key}: kernel {k[key]!r}\n  {' ' * len(key)}  ref    {r[key]!r}"
                                for key in k if k[key] != r[key])
        pytest.fail(f"{where}\noptions {game.options}\n{differences}")
    return k


def play_and_compare(game, ref, deal_seed: int, rng: np.random.Generator, label: str, ply_limit: int | None) -> int:
    """One random game on kernel and reference; returns the number of plies."""
    limit = ply_limit if ply_limit is not None else game.max_plies
    state = game.new_state(deal_seed)
    rstate = ref.initial(deal_seed)
    history: list[int] = []
    while True:
        view = assert_agree(game, state, ref, rstate,
                            f"{label} deal seed={deal_seed}: differ at ply {len(history)} after actions {history}")
        if view["terminal"] or len(history) >= limit:
            return len(history)
        action = int(view["legal"][int(rng.integers(len(view["legal"])))])
        state.apply(action)
        rstate = ref.apply(rstate, action)
        history.append(action)


def compare_positions(family: Family, ids: list[str], seed: int, count: int, events: Counter | None = None) -> int:
    """Every legal action of ``count`` hand-made positions; returns the moves compared."""
    rng = np.random.default_rng(seed)
    compared = loaded = 0
    while loaded < count:
        game, payload = family.positions.make(rng, ids, loaded)
        if payload is None:
            continue
        where = f"seed={seed} position={loaded}: {payload}"
        loaded += 1
        ref = family.reference(game.options)
        state = game.state_from_json(payload)
        rstate = ref.from_json(payload)
        if family.positions.complete:
            assert state.to_json() == payload, f"{where}: loading changed it"
        assert_agree(game, state, ref, rstate, f"{where}: loading")
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            assert_agree(game, child, ref, ref.apply(rstate, action), f"{where}: action {action}")
            compared += 1
        if events is not None:
            events.update(ref.events)
    return compared


# --------------------------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """What one comparison test saw: the length of every game and the rules fired."""

    plies: tuple[int, ...]
    events: Counter
    seen: dict | None = None  # sweep runs: the values of every must_reach feature drawn
    compared: int = 0  # position runs: the moves compared


@functools.cache
def registered_id_run(env_id: str) -> Run:
    game = mancala_envs.make_game(env_id)
    family = family_of(game)
    seed = family.seed + ids_of(type(game)).index(env_id)
    rng = np.random.default_rng(seed)
    plies, events = [], Counter()
    for g in range(family.games_per_id):
        ref = family.reference(game.options)
        plies.append(play_and_compare(game, ref, family.deal_seed + g, rng, f"{env_id} seed={seed} game={g}",
                                      family.ply_limit))
        events.update(ref.events)
    return Run(tuple(plies), events)


def play_sweep(family: Family, seed: int, games: int, label: str) -> Run:
    """``games`` games of random option combinations drawn from default_rng(seed)."""
    sweep = family.sweep
    rng = np.random.default_rng(seed)
    plies, events = [], Counter()
    seen: dict[str, set] = {name: set() for name in sweep.must_reach}
    for g in range(games):
        opts = sweep.draw(rng, g)
        for name, (feature, _) in sweep.must_reach.items():
            seen[name].add(feature(opts))
        game = mancala_envs.make_game(sweep.base_id, **opts)
        ref = family.reference(game.options)
        plies.append(play_and_compare(game, ref, sweep.deal_seed + g, rng,
                                      f"{label} {sweep.base_id} seed={seed} game={g} options={opts}", family.ply_limit))
        events.update(ref.events)
    return Run(tuple(plies), events, seen=seen)


@functools.cache
def sweep_run(game_class: type, chunk: int) -> Run:
    family = FAMILIES[game_class]
    return play_sweep(family, family.sweep.seed + chunk, family.sweep.games, f"chunk {chunk}")


@functools.cache
def positions_run(game_class: type, chunk: int) -> Run:
    family = FAMILIES[game_class]
    events: Counter = Counter()
    compared = compare_positions(family, ids_of(game_class), family.positions.seed + chunk,
                                 family.positions.count, events)
    return Run((), events, compared=compared)


def shared_runs(game_class: type) -> list[Run]:
    """Every comparison test's run of ``game_class``."""
    family = FAMILIES[game_class]
    runs = [registered_id_run(env_id) for env_id in ids_of(game_class)]
    if family.sweep is not None:
        runs += [sweep_run(game_class, k) for k in range(family.sweep.chunks)]
    return runs + [positions_run(game_class, k) for k in range(family.positions.chunks)]


def fresh_runs(game_class: type, batch: FreshBatch) -> list[Run]:
    family = FAMILIES[game_class]
    events: Counter = Counter()
    compare_positions(family, ids_of(game_class), batch.seed + 1, batch.positions, events)
    return [play_sweep(family, batch.seed, batch.games, "rule coverage"), Run((), events)]


@pytest.mark.parametrize("env_id", mancala_envs.list_envs())
def test_registered_id_matches_reference(env_id):
    family = family_of(mancala_envs.make_game(env_id))
    plies = registered_id_run(env_id).plies
    assert len(plies) == family.games_per_id
    assert min(plies) >= family.min_plies, f"{env_id}: a game of {min(plies)} plies"


def test_a_game_class_without_reference_fails():
    """A new game class (here a bare subclass) is not matched to its parent's reference."""

    class Unreferenced(KalahGame):
        pass

    with pytest.raises(pytest.fail.Exception, match="Unreferenced has no reference"):
        family_of(Unreferenced("kalah-v0"))


@pytest.mark.parametrize("game_class, chunk", chunk_params("sweep"))
def test_random_option_combos_match_reference(game_class, chunk):
    sweep = FAMILIES[game_class].sweep
    seen = sweep_run(game_class, chunk).seen
    for name, (_, values) in sweep.must_reach.items():
        if name in sweep.may_exceed:
            assert values <= seen[name], f"{name}: drew {seen[name]}, not every one of {set(values)}"
        else:
            assert seen[name] == values, f"{name}: drew {seen[name]}, not exactly {set(values)}"


@pytest.mark.parametrize("game_class, chunk", chunk_params("positions"))
def test_random_positions_every_action_matches_reference(game_class, chunk):
    """Hand-made positions reach what random play rarely does: multi-lap sowings, long relays."""
    assert positions_run(game_class, chunk).compared > FAMILIES[game_class].positions.count


@pytest.mark.parametrize("game_class", FAMILY_PARAMS)
def test_comparisons_cover_every_rule(game_class):
    """The comparisons must exercise every rule of the reference, or agreeing would prove little."""
    coverage = FAMILIES[game_class].coverage
    runs = shared_runs(game_class) if coverage.fresh is None else fresh_runs(game_class, coverage.fresh)
    events = sum((run.events for run in runs), Counter())
    print(f"\n{game_class.__name__} rule events: {dict(events)}")
    for event in coverage.events:
        assert events[event] >= coverage.at_least, (
            f"rule event {event!r} happened only {events[event]} times: {dict(events)}")
