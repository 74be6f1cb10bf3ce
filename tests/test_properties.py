"""Property tests (hypothesis) of every registered id: the invariants every game must keep.

Each test is parametrised over every registered id. Hypothesis draws the game (the id itself,
or random options of its family on the family's base id), the deal seed and a list of
choices; ``play`` turns the choices into a legal game (once the list runs out, a fixed rule
picks the moves) that stops at the end or at the family's ``max_plies``.

The invariants shared by all games (conservation, mask and legality, seeds, JSON round trips,
clones, mover-relative observations, returns) are written once. What only one family has
(its board layout, its legality rule, its result) lives in a ``Checks`` class per game class,
chosen by the class of the game (``CHECKS``), never by the id; an id whose class has none
fails. Genuinely family-specific properties are plain tests at the end of the file.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mancala_envs
from mancala_envs import IllegalActionError
from mancala_envs.games.afrika import AfrikaGame
from mancala_envs.games.kalah import KalahGame
from mancala_envs.games.progressive import ProgressiveGame
from mancala_envs.games.rondell import RondellGame
from mancala_envs.games.widdershins import WiddershinsGame
from mancala_envs.records import GameRecord, load_json, save_json
from reference.progressive_ref import ProgressiveReference

NO_RESULT_YET = [0.0, 0.0]

# --------------------------------------------------------------------------------------------
# Per-family checks, chosen by the game class
# --------------------------------------------------------------------------------------------


class Checks:
    """What a family adds to the shared properties; the defaults add nothing.

    Class attributes are data: the option variations drawn (``options``, on ``base_id``), the
    number of hypothesis examples per registered id (each example is one whole game; over a
    family's ids they add up to at least what its own property file ran), how long a game may
    run and how long the list of choices is."""

    base_id: str
    options: st.SearchStrategy | None = None
    examples: int
    max_plies: int
    max_choices: int
    deals_at_random: bool  # False: the start does not depend on the seed

    def expected_total(self, game) -> int | None:
        """What ``conserved_total`` must be once it is defined (None: checked by ``counts``)."""
        raise NotImplementedError

    def counts(self, game, ply: int, state, payload: dict, previous: dict | None) -> None:
        """The family's own counts at every ply (``previous``: the payload one ply before)."""

    def legality(self, game, state, payload: dict, legal: list[int]) -> None:
        """The family's legality rule, from the position alone."""

    def observation_layout(self, game, state, payload: dict) -> None:
        """The observation's documented layout, entry by entry."""

    def mirror(self, game, state, payload: dict) -> dict | None:
        """The position with the seats exchanged, or None where it has no mirror."""
        return None

    def seat_flags(self, game) -> list[int]:
        """Observation entries that follow the seat, not the player to move."""
        return []

    def json_without_history(self, game, state, payload: dict) -> None:
        """Loading the position without its record (where the family keeps one)."""

    def result(self, game, state) -> None:
        """The scores and returns of a finished game: by default the sign of the difference."""
        a, b = state.scores()
        assert state.returns() == [float(np.sign(a - b)), float(np.sign(b - a))]


def swap_two(pair: list) -> list:
    return [pair[1], pair[0]]


def swap_seat(player: int | None) -> int | None:
    return None if player is None else 1 - player


@st.composite
def kalah_options(draw) -> dict:
    opts = {
        "pits": draw(st.integers(1, 8)),
        "seeds": draw(st.integers(1, 6)),
        "extra_turn": draw(st.booleans()),
        "capture": draw(st.booleans()),
        "capture_needs_opposite": draw(st.booleans()),
        "skip_origin": draw(st.booleans()),
        "end": draw(st.sampled_from(["mover_empty", "side_empty"])),
        "leftover": draw(st.sampled_from(["owner", "discard"])),
        "directions": draw(st.sampled_from([1, 2])),
        "chosen_start": draw(st.booleans()),
    }
    if opts["chosen_start"]:
        opts["max_setup_seeds"] = draw(st.integers(1, 4))
        opts["min_sow"] = draw(st.integers(1, 3))
    else:
        opts["min_sow"] = draw(st.integers(1, min(3, opts["seeds"])))
    return opts


class KalahChecks(Checks):
    base_id = "kalah-v0"
    examples = 40
    max_plies = 600  # a safety net: directions=2 with min_sow=1 can shuffle a seed to and fro
    max_choices = 200
    options = kalah_options()
    deals_at_random = False

    def expected_total(self, game):
        o = game.options
        return None if o["chosen_start"] else 2 * o["pits"] * o["seeds"]

    def counts(self, game, ply, state, payload, previous):
        o = game.options
        assert min(payload["pits"][0] + payload["pits"][1] + payload["stores"]) >= 0, payload
        if payload["phase"] == "setup":
            assert payload["stores"] == [0, 0]
            return
        on_board = sum(payload["pits"][0]) + sum(payload["pits"][1]) + sum(payload["stores"])
        assert on_board == game.conserved_total(state), f"ply {ply}: {payload}"
        if o["chosen_start"]:
            assert 1 <= on_board <= 2 * o["pits"] * o["max_setup_seeds"]

    def observation_layout(self, game, state, payload):
        n = game.options["pits"]
        for p in (0, 1):
            obs = state.observation(p)
            # explicit layout: mine (holes, store), theirs (holes, store), my turn
            assert obs[:n].tolist() == payload["pits"][p]
            assert obs[n] == payload["stores"][p]
            assert obs[n + 1 : 2 * n + 1].tolist() == payload["pits"][1 - p]
            assert obs[2 * n + 1] == payload["stores"][1 - p]
            assert obs[2 * n + 2] == float(state.current_player == p)
            if game.options["chosen_start"]:
                assert obs[2 * n + 6] == float(p == 0)

    def mirror(self, game, state, payload):
        if payload["phase"] != "play":
            return None  # in setup the rows are sides A and B, not the players'
        return dict(payload, pits=swap_two(payload["pits"]), stores=swap_two(payload["stores"]),
                    to_move=1 - payload["to_move"], last_player=swap_seat(payload["last_player"]))

    def seat_flags(self, game):
        # "I am the chooser" follows the seat
        return [2 * game.options["pits"] + 6] if game.options["chosen_start"] else []

    def result(self, game, state):
        super().result(game, state)
        assert state.scores() == state.to_json()["stores"]


class ProgressiveChecks(Checks):
    base_id = "progressive-v0"
    options = st.fixed_dictionaries(
        {"holes": st.integers(1, 13), "stones": st.integers(1, 6), "skip_origin": st.booleans()})
    examples = 75
    max_plies = 400
    max_choices = 200
    deals_at_random = False

    def expected_total(self, game):
        return game.options["holes"] * game.options["stones"]

    def counts(self, game, ply, state, payload, previous):
        assert min(payload["holes"] + [payload["goal"]] + payload["captured"]) >= 0, payload
        assert sum(payload["holes"]) + payload["goal"] + sum(payload["captured"]) == game.conserved_total(state)
        if previous is not None:  # captured totals only grow
            assert all(a >= b for a, b in zip(payload["captured"], previous["captured"])), f"ply {ply}"
        # a position that is not over has a stone in the row (so the mover has a move)
        assert state.is_terminal() == (sum(payload["holes"]) + payload["goal"] == 0)
        if not state.is_terminal():
            assert sum(payload["holes"]) > 0

    def legality(self, game, state, payload, legal):
        n = game.options["holes"]
        assert game.num_actions == n
        if state.is_terminal():
            assert legal == []
        else:
            mover = state.current_player
            assert legal == [a for a in range(n) if payload["holes"][game.hole_of(mover, a) - 1] > 0]

    def observation_layout(self, game, state, payload):
        n = game.options["holes"]
        assert game.observation_size == n + 6
        for p in (0, 1):
            obs = state.observation(p)
            assert obs[:n].tolist() == [payload["holes"][game.hole_of(p, i) - 1] for i in range(n)]
            assert obs[n] == payload["goal"]
            assert obs[n + 1] == payload["captured"][p] and obs[n + 2] == payload["captured"][1 - p]
            assert obs[n + 3] == float(state.current_player == p)
            if not state.is_terminal():
                assert obs[n + 4] == payload["moves_left"] and obs[n + 5] == payload["bonus"]

    def mirror(self, game, state, payload):
        """East and West exchanged: the row reversed, the seats swapped."""
        n = game.options["holes"]
        last_end = payload["last_end"]
        return dict(payload, holes=list(reversed(payload["holes"])), captured=swap_two(payload["captured"]),
                    to_move=1 - payload["to_move"], last_player=swap_seat(payload["last_player"]),
                    last_end=n + 1 - last_end if isinstance(last_end, int) else last_end)

    def result(self, game, state):
        super().result(game, state)
        a, b = state.scores()
        assert a + b == self.expected_total(game)
        if (a + b) % 2 == 1:
            assert a != b, "an odd total cannot be shared equally"


@st.composite
def afrika_options(draw) -> dict:
    holes = draw(st.integers(2, 10))
    stones = draw(st.integers(1, 8))
    total = 2 * holes * stones
    opts = {
        "holes": holes,
        "stones": stones,
        "komi": draw(st.integers(0, min(2 * total, 16))) / 2,
        "giveaway": draw(st.booleans()),
    }
    if not opts["giveaway"] and draw(st.booleans()):
        opts["target"] = draw(st.integers(1, total))
    return opts


class AfrikaChecks(Checks):
    base_id = "afrika-v0"
    examples = 120
    max_plies = 400
    max_choices = 200
    options = afrika_options()
    deals_at_random = False

    def expected_total(self, game):
        return 2 * game.options["holes"] * game.options["stones"]

    def counts(self, game, ply, state, payload, previous):
        o = game.options
        assert min(payload["holes"][0] + payload["holes"][1] + payload["captured"]) >= 0, payload
        on_board = sum(payload["holes"][0]) + sum(payload["holes"][1])
        assert on_board + sum(payload["captured"]) == game.conserved_total(state), f"ply {ply}: {payload}"
        if state.is_terminal() and not o["giveaway"] and o["target"] is None:
            assert on_board == 0

    def legality(self, game, state, payload, legal):
        """Captures are compulsory, and only of the smallest hole on offer."""
        if state.is_terminal():
            return
        n = game.options["holes"]
        me = payload["to_move"]
        mine, theirs = payload["holes"][me], payload["holes"][1 - me]
        open_captures = {i: theirs[n - 1 - i] for i in range(n) if mine[i] == 0 and theirs[n - 1 - i] > 0}
        assert payload["must_capture"] == bool(open_captures)
        if open_captures:
            smallest = min(open_captures.values())
            assert legal == sorted(i for i, c in open_captures.items() if c == smallest)
        else:
            assert legal == [i for i in range(n) if mine[i] > 0]

    def observation_layout(self, game, state, payload):
        n = game.options["holes"]
        for p in (0, 1):
            obs = state.observation(p)
            assert obs[:n].tolist() == payload["holes"][p]
            assert obs[n : 2 * n].tolist() == payload["holes"][1 - p]
            assert obs[2 * n : 2 * n + 2].tolist() == [payload["captured"][p], payload["captured"][1 - p]]
            assert obs[2 * n + 2] == float(state.current_player == p)
            assert obs[2 * n + 3] == float(payload["must_capture"])
            assert obs[2 * n + 4] == float(p == 0) and obs[2 * n + 5] == game.options["komi"]

    def mirror(self, game, state, payload):
        target = game.options["target"]
        if target is not None and max(payload["captured"]) >= target:
            return None  # past the target: a position state_from_json refuses
        return dict(payload, holes=swap_two(payload["holes"]), captured=swap_two(payload["captured"]),
                    to_move=1 - payload["to_move"], last_player=swap_seat(payload["last_player"]))

    def seat_flags(self, game):
        return [2 * game.options["holes"] + 4]  # "I am North" follows the seat

    def result(self, game, state):
        """Not the sign of the difference: a komi, a target or a giveaway decides."""
        o = game.options
        north, south = state.scores()
        total = self.expected_total(game)
        if o["giveaway"]:
            expected = 0 if 2 * north == total else (-1 if 2 * north > total else 1)
        elif o["target"] is not None and max(north, south) >= o["target"]:
            expected = 1 if north >= o["target"] else -1
        else:
            expected = int(np.sign((north - o["komi"]) - (south + o["komi"])))
        assert state.returns() == [float(expected), float(-expected)]
        assert game.info(state)["result"] == {1: "north", -1: "south", 0: "draw"}[expected]
        assert game.info(state)["margin"] >= 0


# what to_json adds to a position: the repetition record and the end
RONDELL_RECORD_KEYS = ("history", "terminal", "end", "leftover_to")

# valid custom decks (piles, cards_per_pile, red_pairs, blue_pairs), odd and even pile counts
RONDELL_DECKS = [(2, 3, 1, 2), (8, 3, 5, 7), (5, 6, 7, 8), (9, 6, 13, 14), (7, 8, 13, 15), (16, 7, 27, 29)]


@st.composite
def rondell_options(draw) -> dict:
    P, c, red, blue = draw(st.sampled_from(RONDELL_DECKS))
    opts = dict(piles=P, cards_per_pile=c, red_pairs=red, blue_pairs=blue, bottom_up=draw(st.booleans()))
    variant = draw(st.sampled_from(["none", "reservation", "partial"]))
    if variant == "reservation":
        opts["reservation"] = True
    elif variant == "partial" and P % 2 == 0:
        opts["partial"] = True
    return opts


class RondellChecks(Checks):
    base_id = "rondell-v0"
    examples = 10
    max_plies = 300
    max_choices = 120
    options = rondell_options()
    deals_at_random = True

    def expected_total(self, game):
        return game.options["piles"] * game.options["cards_per_pile"]

    def counts(self, game, ply, state, payload, previous):
        o = game.options
        board = "".join(payload["piles"])
        pairs = payload["pairs"]
        assert board.count("R") + 2 * (pairs[0][0] + pairs[1][0]) == 2 * o["red_pairs"], f"ply {ply}"
        assert board.count("B") + 2 * (pairs[0][1] + pairs[1][1]) == 2 * o["blue_pairs"], f"ply {ply}"

    def legality(self, game, state, payload, legal):
        if payload["phase"] != "move" or state.is_terminal():
            return
        # a move is legal exactly on a pile of >= 2 cards that is not reserved (own area if partial)
        P, partial = game.options["piles"], game.options["partial"]
        rot = state.current_player * (P // 2) if partial else 0
        want = [a for a in range(P) if len(payload["piles"][(a + rot) % P]) >= 2
                and (a + rot) % P != payload["reserved"] and (not partial or a < P // 2)]
        assert legal == want

    def observation_layout(self, game, state, payload):
        P = game.options["piles"]
        T = P * game.options["cards_per_pile"]
        scores = state.scores()
        for p in (0, 1):
            obs = state.observation(p)
            rot = p * (P // 2) if game.options["partial"] else 0
            for v in range(P):
                pile = payload["piles"][(v + rot) % P]
                top_first = [1.0 if ch == "R" else 2.0 for ch in reversed(pile)]
                assert obs[v * T : v * T + len(pile)].tolist() == top_first
                assert not obs[v * T + len(pile) : (v + 1) * T].any()
                assert obs[P * T + v] == len(pile)
            assert obs[P * T + P + 1] == scores[p] and obs[P * T + P + 2] == scores[1 - p]
            assert obs[P * T + P + 3] == float(state.current_player == p)

    def mirror(self, game, state, payload):
        """Only the partial variant is symmetric: swap the two areas and the seats."""
        if not game.options["partial"] or state.is_terminal():
            return None
        half = game.options["piles"] // 2
        mirrored = dict(payload, piles=payload["piles"][half:] + payload["piles"][:half],
                        to_move=1 - payload["to_move"], pairs=swap_two(payload["pairs"]),
                        last_mover=swap_seat(payload["last_mover"]))
        return without_record(mirrored)

    def json_without_history(self, game, state, payload):
        """Without the record the position is the same, with a fresh record."""
        if not state.is_terminal():
            fresh = game.state_from_json(without_record(payload))
            assert fresh.legal_actions() == state.legal_actions()
            assert np.array_equal(fresh.observation(0), state.observation(0))

    def result(self, game, state):
        super().result(game, state)
        a, b = state.scores()
        assert a + b == game.total_points()  # the leftovers went to somebody: every point is won
        assert a != b


def without_record(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k not in RONDELL_RECORD_KEYS}


WIDDERSHINS_PASS = 24


class WiddershinsChecks(Checks):
    base_id = "widdershins-v0"
    examples = 20
    max_plies = 300
    max_choices = 120
    deals_at_random = True

    def expected_total(self, game):
        return 52

    def counts(self, game, ply, state, payload, previous):
        cards = [c for s in payload["stacks"] for c in s]
        assert len(cards) == len(set(cards)), f"ply {ply}: a card twice"
        reds = sum(c[-1] in "DH" for c in cards)
        south_red = payload["south_colour"] == "red"
        assert game.cards_in_play(state) == ([reds, len(cards) - reds] if south_red else [len(cards) - reds, reds])

    def legality(self, game, state, payload, legal):
        # a pass exactly when there is no move
        assert (WIDDERSHINS_PASS in legal) == (not any(a < WIDDERSHINS_PASS for a in legal)) or state.is_terminal()

    def mirror(self, game, state, payload):
        """Rows swapped, seats swapped, colours swapped."""
        if state.is_terminal() or payload["first_move"]:
            return None
        return {
            "stacks": payload["stacks"][6:] + payload["stacks"][:6],
            "to_move": 1 - payload["to_move"],
            "south_colour": "black" if payload["south_colour"] == "red" else "red",
            "first_move": False,
        }

    def result(self, game, state):
        super().result(game, state)
        assert min(state.scores()) == 0


CHECKS: dict[type, Checks] = {
    KalahGame: KalahChecks(),
    ProgressiveGame: ProgressiveChecks(),
    AfrikaGame: AfrikaChecks(),
    RondellGame: RondellChecks(),
    WiddershinsGame: WiddershinsChecks(),
}


def checks_of(game) -> Checks:
    """The checks of ``game``'s exact class; fails for a class without them."""
    checks = CHECKS.get(type(game))
    if checks is None:
        pytest.fail(f"{game.env_id}: game class {type(game).__name__} has no property checks (add it to CHECKS)")
    return checks


# --------------------------------------------------------------------------------------------
# Playing hypothesis games
# --------------------------------------------------------------------------------------------


def game_specs(env_id: str, checks: Checks) -> st.SearchStrategy:
    """The id as registered, or random options of its family on the family's base id."""
    preset = st.just((env_id, {}))
    if checks.options is None:
        return preset
    return st.one_of(preset, checks.options.map(lambda opts: (checks.base_id, opts)))


def pick(state, choices: list[int], ply: int) -> int:
    legal = state.legal_actions()
    k = choices[ply] if ply < len(choices) else ply * 7919 + 13
    return legal[k % len(legal)]


def play(game, checks: Checks, choices: list[int], seed: int):
    """Yield (ply, state, action or None) along one game; the state is live, don't keep it."""
    state = game.new_state(seed)
    ply = 0
    while not state.is_terminal() and ply < checks.max_plies:
        action = pick(state, choices, ply)
        yield ply, state, action
        state.apply(action)
        ply += 1
    yield ply, state, None


def make(spec: tuple[str, dict]):
    env_id, opts = spec
    return mancala_envs.make_game(env_id, **opts)


def for_every_game(env_id: str):
    """Run the decorated ``property(game, checks, choices, seed)`` over hypothesis games of
    ``env_id`` (``game`` made from ``spec``: (id, options), which ``make`` makes again)."""

    def decorate(prop):
        checks = checks_of(mancala_envs.make_game(env_id))

        @settings(max_examples=checks.examples)
        @given(game_specs(env_id, checks), st.lists(st.integers(0, 10_000), max_size=checks.max_choices),
               st.integers(0, 2**32 - 1))
        def run(spec, choices, seed):
            prop(spec, checks, choices, seed)

        run()

    return decorate


def reads_back(state, payload: dict) -> bool:
    """Every entry of ``payload`` is the state's (the mirrors leave out what they reset)."""
    readback = state.to_json()
    return {key: readback[key] for key in payload} == payload


IDS = mancala_envs.list_envs()

# --------------------------------------------------------------------------------------------
# The invariants of every game
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", IDS)
def test_conserved_total_never_changes(env_id):
    @for_every_game(env_id)
    def prop(spec, checks, choices, seed):
        game = make(spec)
        total = None
        previous = None
        for ply, state, _ in play(game, checks, choices, seed):
            payload = state.to_json()
            current = game.conserved_total(state)
            if current is not None:
                if total is None:
                    total = current
                    expected = checks.expected_total(game)
                    assert expected is None or total == expected, f"{total} at the start, not {expected}"
                assert current == total, f"ply {ply}: {payload}"
            checks.counts(game, ply, state, payload, previous)
            previous = payload


@pytest.mark.parametrize("env_id", IDS)
def test_action_mask_equals_legal_actions(env_id):
    @for_every_game(env_id)
    def prop(spec, checks, choices, seed):
        game = make(spec)
        for ply, state, _ in play(game, checks, choices, seed):
            mask = state.action_mask()
            assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
            assert set(mask.tolist()) <= {0, 1}
            legal = state.legal_actions()
            assert np.flatnonzero(mask).tolist() == legal
            assert (len(legal) == 0) == state.is_terminal()
            for a in range(game.num_actions):
                assert state.is_legal(a) == (a in legal)
            # every legal action has a name that reads back to it
            for a in legal:
                assert game.string_to_action(state, game.action_to_string(state, a)) == a
            payload = state.to_json()
            checks.legality(game, state, payload, legal)
            illegal = [a for a in range(game.num_actions) if a not in legal]
            if illegal:
                with pytest.raises(IllegalActionError):
                    state.apply(illegal[(ply * 31) % len(illegal)])
                assert state.to_json() == payload


@pytest.mark.parametrize("env_id", IDS)
def test_same_seed_same_game(env_id):
    @for_every_game(env_id)
    def prop(spec, checks, choices, seed):
        game = make(spec)
        twin = make(spec).new_state(seed)
        if not checks.deals_at_random:  # the start does not depend on the seed at all
            assert twin.to_json() == game.new_state(seed ^ 0x5A5A).to_json()
        for ply, state, action in play(game, checks, choices, seed):
            assert state.to_json() == twin.to_json(), f"ply {ply}"
            assert state.legal_actions() == twin.legal_actions()
            assert np.array_equal(state.observation(0), twin.observation(0))
            if action is not None:
                twin.apply(action)
        assert twin.is_terminal() == state.is_terminal()


@pytest.mark.parametrize("env_id", IDS)
def test_json_round_trip_at_every_ply(env_id):
    @for_every_game(env_id)
    def prop(spec, checks, choices, seed):
        game = make(spec)
        for ply, state, _ in play(game, checks, choices, seed):
            payload = state.to_json()
            again = game.state_from_json(json.loads(json.dumps(payload)))
            assert again == state and again.to_json() == payload, f"ply {ply}"
            assert again.legal_actions() == state.legal_actions()
            assert again.current_player == state.current_player
            assert again.returns() == state.returns() and again.scores() == state.scores()
            for p in (0, 1):
                assert np.array_equal(again.observation(p), state.observation(p))
            checks.json_without_history(game, state, payload)


@pytest.mark.parametrize("env_id", IDS)
def test_clone_is_independent(env_id):
    @for_every_game(env_id)
    def prop(spec, checks, choices, seed):
        game = make(spec)
        twin = None
        for ply, state, action in play(game, checks, choices, seed):
            if twin is not None:  # the clone that played this ply equals the original that did
                assert twin == state and state.to_json() == twin.to_json(), f"ply {ply}"
            if action is None:
                break
            before = state.to_json()
            legal_before = state.legal_actions()
            twin = state.clone()
            assert twin == state and twin.to_json() == before
            twin.apply(action)  # mutating the clone leaves the original untouched
            assert state.to_json() == before, f"ply {ply}"
            assert state.legal_actions() == legal_before
            # and mutating the original leaves its clone untouched
            probe = state.clone()
            probe_twin = probe.clone()
            probe.apply(legal_before[(ply * 17 + 5) % len(legal_before)])
            assert probe_twin.to_json() == before


@pytest.mark.parametrize("env_id", IDS)
def test_observation_is_mover_relative(env_id):
    @for_every_game(env_id)
    def prop(spec, checks, choices, seed):
        game = make(spec)
        low, high = game.observation_bounds()
        keep = np.setdiff1d(np.arange(game.observation_size), checks.seat_flags(game))
        for ply, state, action in play(game, checks, choices, seed):
            payload = state.to_json()
            for p in (0, 1):
                obs = state.observation(p)
                assert obs.shape == (game.observation_size,) and obs.dtype == np.float32
                assert obs.min() >= low and obs.max() <= high
            checks.observation_layout(game, state, payload)
            mirrored = checks.mirror(game, state, payload)
            if mirrored is None:
                continue
            twin = game.state_from_json(mirrored)
            assert reads_back(twin, mirrored)
            assert twin.legal_actions() == state.legal_actions()
            for p in (0, 1):
                assert np.array_equal(state.observation(p)[keep], twin.observation(1 - p)[keep]), (
                    f"ply {ply} player {p}: {payload}")
            if action is not None:  # the same action from the mirror gives the mirrored result
                twin.apply(action)
                after = state.clone()
                after.apply(action)
                mirrored_after = checks.mirror(game, after, after.to_json())
                assert mirrored_after is None or reads_back(twin, mirrored_after), f"ply {ply} action {action}"


@pytest.mark.parametrize("env_id", IDS)
def test_returns_zero_until_terminal_then_follow_the_result(env_id):
    @for_every_game(env_id)
    def prop(spec, checks, choices, seed):
        game = make(spec)
        for ply, state, action in play(game, checks, choices, seed):
            if action is not None:
                assert not state.is_terminal()
                assert state.returns() == NO_RESULT_YET, f"ply {ply}"
                assert game.info(state).get("result") is None
        if state.is_terminal():
            returns = state.returns()
            assert returns[0] + returns[1] == 0.0 and returns[0] in (-1.0, 0.0, 1.0)
            checks.result(game, state)


def test_a_game_class_without_checks_fails():
    """A new game class (here a bare subclass) does not borrow its parent's checks."""

    class Unchecked(KalahGame):
        pass

    with pytest.raises(pytest.fail.Exception, match="Unchecked has no property checks"):
        checks_of(Unchecked("kalah-v0"))


# --------------------------------------------------------------------------------------------
# Properties of one family only
# --------------------------------------------------------------------------------------------

PROGRESSIVE_IDS = [e for e in IDS if type(mancala_envs.make_game(e)) is ProgressiveGame]


@pytest.mark.parametrize("env_id", PROGRESSIVE_IDS)
def test_progressive_turns_are_one_plus_the_opponents_empty_endings(env_id):
    """Rebuild the turns from the sequence of movers and the last_end of each move."""

    @for_every_game(env_id)
    def prop(spec, checks, choices, seed):
        game = make(spec)
        turns: list[tuple[int, list]] = []  # (player, [ended in an empty hole?])
        for ply, state, _ in play(game, checks, choices, seed):
            payload = state.to_json()
            if ply > 0:
                mover = payload["last_player"]
                empty = payload["last_end"] != "goal"
                if not turns or turns[-1][0] != mover:
                    turns.append((mover, []))
                turns[-1][1].append(empty)
                # the open turn: moves played + moves left == 1 + the previous turn's empty endings
                if not state.is_terminal() and payload["to_move"] == mover:
                    allowed = 1 + (sum(turns[-2][1]) if len(turns) > 1 else 0)
                    assert len(turns[-1][1]) + payload["moves_left"] == allowed, f"ply {ply}: {payload}"
                    assert payload["bonus"] == sum(turns[-1][1])
        assert not turns or turns[0][0] == 0, "East (player_0) moves first"
        finished = state.is_terminal()
        for k, (player, ends) in enumerate(turns):
            if k > 0:
                assert player != turns[k - 1][0]
            allowed = 1 + (sum(turns[k - 1][1]) if k > 0 else 0)
            last = k == len(turns) - 1
            if not last:
                assert len(ends) == allowed, f"turn {k}: {turns}"
            elif finished:
                assert len(ends) <= allowed
                assert len(ends) + state.to_json()["moves_left"] == allowed


@settings(max_examples=60)
@given(ProgressiveChecks.options, st.integers(0, 2**32 - 1))
def test_progressive_one_move_stays_within_the_proven_bound(opts, seed):
    """The reference counts the steps of every move from random positions: never over (n+1)*H + n."""
    game = mancala_envs.make_game("progressive-v0", **opts)
    n = opts["holes"]
    ref = ProgressiveReference(game.options)
    rng = np.random.default_rng(seed)
    total = game.total_stones
    for _ in range(5):
        counts = rng.multinomial(total, rng.dirichlet(np.ones(n + 1) * 0.3))
        if counts[:n].sum() == 0:
            continue
        payload = {"holes": counts[:n].tolist(), "goal": int(counts[n]), "captured": [0, 0], "to_move": 0}
        rstate = ref.from_json(payload)
        row = sum(payload["holes"])
        for action in ref.legal(rstate):
            ref.apply(rstate, action)
            assert ref.last_steps <= (n + 1) * row + n, (payload, action, ref.last_steps)


@pytest.mark.parametrize("env_id", PROGRESSIVE_IDS)
def test_progressive_json_record_round_trips_and_replays_bonus_moves(env_id, tmp_path):
    game = mancala_envs.make_game(env_id)
    rng = np.random.default_rng(17)
    state = game.new_state(seed=3)
    actions = []
    while not state.is_terminal():
        legal = state.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        state.apply(action)
        actions.append(action)
    record = GameRecord.from_game(game, actions, seed=3)
    assert record.result == {"scores": state.scores(), "returns": state.returns(), "plies": len(actions),
                             "terminal": True}
    path = tmp_path / "game.json"
    save_json(record, path)
    loaded = load_json(path)
    assert loaded == record and loaded.env_id == env_id and loaded.options == {}
    positions = loaded.replay()
    assert positions[-1].to_json() == state.to_json()
    # consecutive moves of one player (bonus moves) replay as they were played
    movers = [p.current_player for p in positions[:-1]]
    assert any(a == b for a, b in zip(movers, movers[1:])), "this game has bonus moves"
    # a record with options (skip_origin, a smaller board) keeps them and replays too
    small = mancala_envs.make_game(env_id, holes=7, skip_origin=True)
    s = small.new_state(0)
    acts = []
    while not s.is_terminal() and len(acts) < 1000:
        acts.append(s.legal_actions()[len(acts) % len(s.legal_actions())])
        s.apply(acts[-1])
    rec = GameRecord.from_json(json.loads(json.dumps(GameRecord.from_game(small, acts).to_json())))
    assert rec.options == {"holes": 7, "skip_origin": True}
    assert rec.replay()[-1].to_json() == s.to_json()
