"""First use: a compile or a database build is announced on stderr once; a cache hit says nothing.

``core.announce`` prints the line, ``core.compiled`` calls it when a loop's disk cache has no
entry, ``agents.endgame`` when it builds a database. Each process here gets its own empty
caches (``NUMBA_CACHE_DIR``, ``MANCALA_ENVS_CACHE``). The speed of a first use is measured by
``benchmarks/first_use.py``, never asserted here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from numba import config

from mancala_envs.core import announce
from mancala_envs.core.compiled import subject
from mancala_envs.evaluation.progress import Progress

needs_jit = pytest.mark.skipif(config.DISABLE_JIT, reason="nothing is compiled under NUMBA_DISABLE_JIT")

_TINY_LOOP = textwrap.dedent("""
    import numpy as np
    from mancala_envs.core.compiled import cached_njit
    from mancala_envs.core.inline import inline_kernel
    import mancala_envs

    game = mancala_envs.make_game("kalah-v0")
    player = inline_kernel(game.kernel).current_player

    def to_move(state, params):
        return player(state, params)

    loop = cached_njit(to_move, what="a tiny loop")
    print(loop(game.new_state(0).array, np.asarray(game.params, np.int64)))
""")


def _run(args: list[str], tmp_path, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "MANCALA_ENVS_CACHE": str(tmp_path / "data")}
    return subprocess.run(args, env=env, capture_output=True, text=True, check=True, **kwargs)


def _announced(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(announce.PREFIX)]


@needs_jit
def test_a_compile_is_announced_once_with_its_game_and_a_cache_hit_says_nothing(tmp_path):
    script = tmp_path / "tiny_loop.py"  # numba caches functions of files only
    script.write_text(_TINY_LOOP, encoding="utf-8")
    first = _run([sys.executable, str(script)], tmp_path)
    assert first.stdout.strip() == "0"
    assert _announced(first.stderr) == [f"{announce.PREFIX}compiling a tiny loop for kalah (first use; cached after)"]
    again = _run([sys.executable, str(script)], tmp_path)
    assert again.stdout.strip() == "0"
    assert _announced(again.stderr) == []


def test_the_subject_names_the_game_family_compiled_in():
    from mancala_envs.games import rondell
    from mancala_envs.core.inline import inlined

    apply = inlined(rondell.apply)

    def loop(state, params):
        apply(state, params, 0)

    def helper(x):
        return x

    assert subject(loop, "the loop") == "the loop for rondell"
    assert subject(helper, "a helper") == "a helper"
    assert subject(loop, None) is None  # a loop its factory does not name is not announced


def test_estimates_say_roughly_how_long_and_short_compiles_stay_quiet(monkeypatch, capsys):
    monkeypatch.setattr(announce, "_estimates", {"the long loop": 12.4, "the short loop": 0.5})
    monkeypatch.setattr(announce, "_said", set())
    announce.compiling("the long loop")
    announce.compiling("the long loop")  # once per process
    announce.compiling("the short loop")
    announce.compiling("the unmeasured loop")
    assert capsys.readouterr().err.splitlines() == [
        f"{announce.PREFIX}compiling the long loop (first use; cached after, about 12 s)",
        f"{announce.PREFIX}compiling the unmeasured loop (first use; cached after)",
    ]


def test_the_time_left_leaves_out_compiling(monkeypatch):
    clock = {"now": 100.0, "compiling": 5.0}
    monkeypatch.setattr("mancala_envs.evaluation.progress.time.perf_counter", lambda: clock["now"])
    monkeypatch.setattr("mancala_envs.evaluation.progress.compile_seconds", lambda: clock["compiling"])
    progress = Progress(10, enabled=False)
    clock["now"], clock["compiling"] = 130.0, 25.0  # 30 s for the first game, 20 of them compiling
    progress.update(1)
    assert "about 90.0 s left" in progress.line()  # 10 s a game, not 30


@needs_jit
@pytest.mark.slow
def test_solve_from_empty_caches_says_what_it_compiles_and_builds(tmp_path):
    done = _run([sys.executable, "-m", "mancala_envs.cli", "solve", "kalah-v0", "pits=2", "seeds=1", "--quiet"],
                tmp_path, timeout=900)
    lines = _announced(done.stderr)
    assert any(line.startswith(f"{announce.PREFIX}compiling the solver's search for kalah (first use") for line in lines)
    assert any(line.startswith(f"{announce.PREFIX}building the endgame database for kalah with 2 pits") for line in lines)
    assert len(lines) == len(set(lines))
    again = _run([sys.executable, "-m", "mancala_envs.cli", "solve", "kalah-v0", "pits=2", "seeds=1", "--quiet"],
                 tmp_path, timeout=900)
    assert _announced(again.stderr) == []


@needs_jit
def test_inlined_blocks_share_one_copy_of_their_scope_and_compile_the_same():
    """``core.inline_copy`` is installed; its copies of a function's blocks are equal to them and
    share one copy of the scope; a function built of an inlined helper with many blocks still
    computes what the Python does."""
    import numpy as np
    from numba import njit
    from numba.core.compiler import run_frontend
    from numba.core.inline_closurecall import InlineWorker

    from mancala_envs.core import inline_copy

    inline_copy.install()  # a second call changes nothing
    assert InlineWorker.inline_ir._shares_scope_copies
    assert InlineWorker.run_untyped_passes._keeps_ir  # the helper's two sites below: its IR made once

    def step(x, k):
        if x % 3 == 0:
            x = x // 3 + k
        elif x % 3 == 1:
            for i in range(k):
                x += i if i % 2 else -i
        else:
            x = x * 2 - k
        return x

    def walk_with(helper):
        def walk(values, k):
            total = 0
            for v in values:
                total += helper(helper(v, k), k + 1)
            return total

        return walk

    compiled, walk = njit(walk_with(njit(inline="always")(step))), walk_with(step)
    blocks = list(run_frontend(step).blocks.values())
    assert len(blocks) > 3
    copier = inline_copy._ScopeSharingCopy()
    copies = [copier.deepcopy(block) for block in blocks]
    assert copies == blocks  # equal IR ...
    assert len({id(block.scope) for block in copies}) == 1  # ... with one copy of the scope ...
    assert copies[0].scope is not blocks[0].scope and copies[0].body[0] is not blocks[0].body[0]  # ... all copied
    assert all(copier.deepcopy(copy) is block for copy, block in zip(copies, blocks))  # a copy of a copy: the block
    values = np.arange(-20, 40, dtype=np.int64)
    assert all(compiled(values, k) == walk(values, k) for k in range(5))


@needs_jit
def test_operator_typing_is_kept_and_is_what_the_templates_choose():
    """``core.typing_memo`` is installed; the signatures it keeps for array accesses are the ones
    numba's templates resolve afresh, and a function typed from them computes what the Python does;
    an error message is marked up as numba marks it up."""
    import operator

    import numpy as np
    from numba import njit, types
    from numba.core import errors

    from mancala_envs.core import typing_memo

    typing_memo.install()  # a second call changes nothing
    get_call_type = types.Function.get_call_type
    assert get_call_type._memoised

    def shift_sums(values, k):
        for i in range(values.shape[0] - 1):
            values[i] = values[i] + values[i + 1] * k
        return values[0] - values[values.shape[0] - 1]

    values = np.arange(6, dtype=np.int32)
    assert njit(shift_sums)(values.copy(), 3) == shift_sums(values.copy(), 3)
    kept = [(key, signature) for key, signature in get_call_type._resolved.items()
            if key[0].typing_key in (operator.getitem, operator.setitem) and isinstance(key[3][0], types.Array)]
    assert kept
    for (function_type, context, _target, args), signature in kept:
        assert get_call_type.__wrapped__(function_type, context, args, {}) == signature
    scheme = errors.termcolor()  # an error message's markup: the codes and the text, as numba makes it
    if hasattr(errors, "Style"):
        assert scheme.errmsg("bad") == (scheme._errmsg or "") + errors.Style.BRIGHT + "bad" + errors.Style.RESET_ALL
