#!/usr/bin/env python
"""Soak test: many random games of every registered id, every invariant checked.

    python benchmarks/soak.py --games N [--ids ID ...] [--seed S] [--sample K]

For each id:

1. bulk: ``N`` random games inside numba with the contract checks of
   ``random_playouts(check_invariants=True)`` at every position (plies, current player,
   legal mask and its count, legality of the chosen move, returns, read-only functions);
2. Python pass: ``min(N, K)`` further random games (``K`` = ``--sample``, default 2000)
   through the public ``State`` API, checking at every position:

   * ``action_mask()`` (int8, ``num_actions`` long) equals the legal set of
     ``legal_actions()`` and ``is_legal``; a finished position has no legal move; on every
     tenth game every illegal and out-of-range action raises ``IllegalActionError``;
   * ``state_from_json(to_json(s)) == s`` and gives back the same ``to_json()``, also
     after a trip through the ``json`` module;
   * clones are independent: moving a clone leaves the original untouched, moving the
     original leaves an earlier clone untouched, and both reach the same position;
   * ``plies`` counts the moves, ``returns`` are 0 before the end and sum to 0 at the end,
     observations have the declared shape, dtype and bounds;
   * conservation: ``game.conserved_total(state)`` is the same at every position of a game
     where it applies (Kalah: seeds in the holes plus the stores, from the start of play
     on). Families that conserve nothing return None and skip this check.

Prints one line per id and pass, and exits 1 on any violation (2 on bad arguments).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import mancala_envs  # noqa: E402
from mancala_envs.core.errors import IllegalActionError, UnknownEnvError  # noqa: E402
from mancala_envs.core.playout import random_playouts  # noqa: E402


MAX_REPORTED = 10  # violations printed per id


class Checker:
    """Collects violations of one id's Python pass."""

    def __init__(self, env_id: str):
        self.env_id = env_id
        self.count = 0
        self.messages: list[str] = []

    def fail(self, game_index: int, ply: int, what: str) -> None:
        self.count += 1
        if len(self.messages) < MAX_REPORTED:
            self.messages.append(f"{self.env_id}: python pass, game {game_index}, ply {ply}: {what}")

    def check(self, ok: bool, game_index: int, ply: int, what: str) -> bool:
        if not ok:
            self.fail(game_index, ply, what)
        return ok


def _json_trip(payload: dict) -> dict:
    return json.loads(json.dumps(payload))


def check_position(game, state, checker: Checker, g: int, ply: int, probe_illegal: bool) -> list[int]:
    """Every per-position check; returns the legal actions."""
    n_actions = game.num_actions
    player = state.current_player
    checker.check(player in (-1, 0, 1), g, ply, f"current_player is {player}")
    checker.check(state.plies == ply, g, ply, f"plies() is {state.plies}, expected {ply}")

    mask = state.action_mask()
    legal = state.legal_actions()
    checker.check(
        mask.dtype == np.int8 and mask.shape == (n_actions,),
        g,
        ply,
        f"action_mask() has dtype {mask.dtype} and shape {mask.shape}, expected int8 ({n_actions},)",
    )
    checker.check(
        np.flatnonzero(mask).tolist() == legal and set(np.unique(mask).tolist()) <= {0, 1},
        g,
        ply,
        f"action_mask() {mask.tolist()} differs from legal_actions() {legal}",
    )
    by_is_legal = [a for a in range(n_actions) if state.is_legal(a)]
    checker.check(by_is_legal == legal, g, ply, f"is_legal gives {by_is_legal}, legal_actions() {legal}")
    if player < 0:
        checker.check(not legal, g, ply, f"finished position has legal actions {legal}")
    else:
        checker.check(bool(legal), g, ply, "position that is not over has no legal action")

    returns = state.returns()
    if player >= 0:
        checker.check(returns == [0.0, 0.0], g, ply, f"returns {returns} before the end")
    else:
        checker.check(
            all(r in (-1.0, 0.0, 1.0) for r in returns) and abs(sum(returns)) < 1e-9,
            g,
            ply,
            f"final returns {returns} are not -1/0/+1 summing to 0",
        )

    low, high = game.observation_bounds()
    for seat in (0, 1):
        obs = state.observation(seat)
        checker.check(
            obs.dtype == np.float32
            and obs.shape == (game.observation_size,)
            and bool(np.all(np.isfinite(obs)))
            and bool(np.all(obs >= low))
            and bool(np.all(obs <= high)),
            g,
            ply,
            f"observation({seat}) out of its declared space: {obs.tolist()} (bounds {low}..{high})",
        )

    payload = state.to_json()
    try:
        tripped = _json_trip(payload)
        checker.check(tripped == payload, g, ply, f"to_json() is not plain JSON: {payload!r}")
        back = game.state_from_json(payload)
        checker.check(back == state, g, ply, f"state_from_json(to_json(s)) != s for {payload}")
        checker.check(back.to_json() == payload, g, ply, f"to_json() changes after a JSON round trip: {payload}")
        again = game.state_from_json(tripped)
        checker.check(again == state, g, ply, f"state_from_json(json.loads(json.dumps(...))) != s for {payload}")
    except Exception as exc:  # any error here is a violation too
        checker.fail(g, ply, f"JSON round trip raised {type(exc).__name__}: {exc} for {payload}")

    if probe_illegal and player >= 0:
        legal_set = set(legal)
        for action in [*range(n_actions), n_actions, -1]:
            if action in legal_set:
                continue
            twin = state.clone()
            try:
                twin.apply(action)
            except IllegalActionError:
                pass
            except Exception as exc:
                checker.fail(g, ply, f"illegal action {action} raised {type(exc).__name__}, not IllegalActionError")
            else:
                checker.fail(g, ply, f"illegal action {action} was accepted")
    return legal


def python_pass(game, n_games: int, seed: int) -> tuple[dict[str, Any], Checker]:
    """``n_games`` random games through the State API with every check of the module docstring."""
    checker = Checker(game.env_id)
    seeds = np.random.SeedSequence([seed, 1]).generate_state(n_games, dtype=np.uint32)
    rng = np.random.default_rng([seed, 2])
    cap = game.max_plies
    totals = {"games": 0, "moves": 0, "finished": 0, "truncated": 0, "longest": 0, "wins": [0, 0], "draws": 0,
              "conserved_checks": 0, "endings": {}}
    for g in range(n_games):
        state = game.new_state(int(seeds[g]))
        conserved = None
        ply = 0
        probe = g % 10 == 0
        while True:
            legal = check_position(game, state, checker, g, ply, probe)
            total = game.conserved_total(state)
            if total is not None:
                totals["conserved_checks"] += 1
                if conserved is None:
                    conserved = total
                else:
                    checker.check(
                        total == conserved, g, ply, f"conserved total is {total}, was {conserved} earlier in the game"
                    )
            if state.current_player < 0:
                returns = state.returns()
                totals["finished"] += 1
                if returns[0] > returns[1]:
                    totals["wins"][0] += 1
                elif returns[1] > returns[0]:
                    totals["wins"][1] += 1
                else:
                    totals["draws"] += 1
                # the kind of ending, where the game names it (Game.info's "end")
                kind = str(game.info(state).get("end", "rules"))
                totals["endings"][kind] = totals["endings"].get(kind, 0) + 1
                break
            if cap is not None and state.plies >= cap:
                totals["truncated"] += 1
                totals["endings"]["truncated"] = totals["endings"].get("truncated", 0) + 1
                break
            if not legal:
                break  # already reported by check_position
            action = legal[int(rng.integers(len(legal)))]
            before = state.array.copy()
            before_json = state.to_json()
            earlier = state.clone()
            twin = state.clone()
            twin.apply(action)  # the clone moves first: the original must not change
            checker.check(
                np.array_equal(state.array, before), g, ply, "applying a move to a clone changed the original"
            )
            state.apply(action)
            checker.check(
                np.array_equal(earlier.array, before) and earlier.to_json() == before_json,
                g,
                ply,
                "applying a move to the original changed an earlier clone",
            )
            checker.check(twin == state, g, ply, f"the same move from the same position gave two positions ({action})")
            ply += 1
            totals["moves"] += 1
        totals["games"] += 1
        totals["longest"] = max(totals["longest"], ply)
    return totals, checker


# -- the run ----------------------------------------------------------------------------------
def _line(label: str, totals: dict[str, Any], seconds: float) -> str:
    wins = totals["wins"]
    return (
        f"  {label:<7} games {totals['games']:>8}  plies {totals['moves']:>10}  "
        f"finished {totals['finished']:>8}  truncated {totals['truncated']:>5}  longest {totals['longest']:>5}  "
        f"wins {wins[0]:>7}/{wins[1]:<7} draws {totals['draws']:>6}  {seconds:7.2f} s"
    )


def soak_one(env_id: str, n_games: int, seed: int, sample: int) -> tuple[int, list[str]]:
    """Both passes for one id; prints its lines and returns (violations, messages)."""
    game = mancala_envs.make_game(env_id)
    print(f"{env_id} ({game.family})")
    messages: list[str] = []
    violations = 0

    start = time.perf_counter()
    bulk = random_playouts(game, n_games, seed, check_invariants=True, raise_on_violation=False)
    bulk_seconds = time.perf_counter() - start
    print(_line("bulk", bulk.to_dict(), bulk_seconds), flush=True)
    if bulk.violation is not None:
        violations += 1
        messages.append(f"bulk (numba) pass: {bulk.violation}")

    n_python = min(n_games, sample)
    start = time.perf_counter()
    py_totals, checker = python_pass(game, n_python, seed)
    print(_line("python", py_totals, time.perf_counter() - start), flush=True)
    endings = ", ".join(f"{kind} {count}" for kind, count in sorted(py_totals["endings"].items()))
    print(f"  endings (python pass): {endings}")
    checked = py_totals["conserved_checks"]
    print(f"  conserved total checked at {checked} positions" if checked else "  conserved total: none defined")
    violations += checker.count
    messages += checker.messages
    if checker.count > len(checker.messages):
        messages.append(f"{env_id}: ... and {checker.count - len(checker.messages)} more in the python pass")
    return violations, messages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, required=True, help="random games per id (numba pass)")
    parser.add_argument("--ids", nargs="+", metavar="ID", help="ids to soak (default: every registered id)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole run (default 0)")
    parser.add_argument("--sample", type=int, default=2000, help="games per id in the Python pass (default 2000)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.seed < 0 or args.sample < 0:
        parser.error("--games must be >= 1, --seed and --sample >= 0")
    ids = args.ids or mancala_envs.list_envs()
    for env_id in ids:
        try:
            mancala_envs.get_entry(env_id)
        except UnknownEnvError as exc:
            parser.error(str(exc))

    started = time.perf_counter()
    total_violations = 0
    all_messages: list[str] = []
    for env_id in ids:
        violations, messages = soak_one(env_id, args.games, args.seed, args.sample)
        total_violations += violations
        all_messages += messages
    elapsed = time.perf_counter() - started
    print(f"\n{len(ids)} id(s), {args.games} games each (+ {min(args.games, args.sample)} through the State API), "
          f"seed {args.seed}: {elapsed:.1f} s")
    if total_violations:
        print(f"FAILED: {total_violations} violation(s)")
        for message in all_messages:
            print(f"  {message}")
        return 1
    print("OK: no violation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
