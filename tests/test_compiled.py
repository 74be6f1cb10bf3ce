"""core.compiled: per-kernel closures cached on disk by fingerprint (BatchEnv's thread choice: tests/test_vector.py).

No timing is asserted: the cache is checked through numba's own hit and miss counters.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from numba import config, njit

from mancala_envs.core.compiled import cached_njit, fingerprint

needs_jit = pytest.mark.skipif(config.DISABLE_JIT, reason="nothing is compiled under NUMBA_DISABLE_JIT")


@njit(inline="always")
def _add_one(x):
    return x + 1


@njit(inline="always")
def _add_two(x):
    return x + 2


def _loop_over(step):
    def loop(n):
        total = 0
        for i in range(n):
            total = step(total)
        return total

    return loop


def _sum_of(constants):
    def total():
        return constants[0] + constants[1]

    return total


def test_fingerprint_follows_what_the_closure_compiles_in():
    assert fingerprint(_loop_over(_add_one)) == fingerprint(_loop_over(_add_one))
    assert fingerprint(_loop_over(_add_one)) != fingerprint(_loop_over(_add_two))
    # a constant captured by value is part of the key
    assert fingerprint(_sum_of((6, 4))) != fingerprint(_sum_of((6, 5)))
    assert fingerprint(_sum_of((6, 4))) == fingerprint(_sum_of((6, 4)))


@needs_jit
def test_the_cache_key_holds_the_compile_options():
    """The same loop compiled serial and parallel must not load each other from the disk cache."""
    from numba.core.registry import cpu_target

    codegen = cpu_target.target_context.codegen()
    keys = [cached_njit(_loop_over(_add_one), **options)._cache._index_key((), codegen)
            for options in ({}, {}, {"parallel": True}, {"nogil": True})]
    assert keys[0] == keys[1]
    assert len({keys[0], keys[2], keys[3]}) == 3


def test_fingerprint_follows_the_globals_a_kernel_calls():
    from mancala_envs.games import kalah

    before = fingerprint(kalah.apply)
    original = kalah.settle
    try:
        kalah.settle = njit(lambda state, params: None)  # a different helper under the same name
        assert fingerprint(kalah.apply) != before
    finally:
        kalah.settle = original
    assert fingerprint(kalah.apply) == before


_MODULE = '''
from numba import njit
from mancala_envs.core.compiled import cached_njit

@njit(inline="always")
def step_{name}(x):
    return x + {inc}

def build(step):
    def loop(n):
        total = 0
        for i in range(n):
            total = step(total)
        return total
    return cached_njit(loop)
'''

_RUN = '''
import json, sys
sys.path.insert(0, sys.argv[1])
import closures
loop = closures.build(getattr(closures, sys.argv[2]))
value = loop(10)
print(json.dumps({"value": value, "hits": sum(loop.stats.cache_hits.values()),
                  "misses": sum(loop.stats.cache_misses.values())}))
'''


@needs_jit
def test_a_closure_is_loaded_from_disk_by_a_new_process(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "closures.py").write_text(
        _MODULE.format(name="a", inc=1) + "\n" + _MODULE.format(name="b", inc=3).split("def build")[0]
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def run(step_name):
        done = subprocess.run([sys.executable, "-c", _RUN, str(source), step_name], env=env, capture_output=True,
                              text=True, check=True)
        return json.loads(done.stdout.strip().splitlines()[-1])

    first = run("step_a")
    assert first == {"value": 10, "hits": 0, "misses": 1}
    assert run("step_a") == {"value": 10, "hits": 1, "misses": 0}  # loaded, not compiled
    # the same closure over another function is another entry: compiled, never confused
    assert run("step_b") == {"value": 30, "hits": 0, "misses": 1}
    assert run("step_b") == {"value": 30, "hits": 1, "misses": 0}
    assert run("step_a")["value"] == 10
    # each closure keeps its own index: two processes that compile the two at once cannot
    # number their data files from the same index (numba's race, core.compiled's docstring)
    indexes = sorted(path.name for path in (tmp_path / "cache").rglob("*.nbi") if "build" in path.name)
    assert len(indexes) == 2 and len({name.rsplit("-", 1)[0] for name in indexes}) == 1, indexes


def test_cached_njit_runs_like_njit():
    loop = cached_njit(_loop_over(_add_two))
    assert loop(5) == 10


@needs_jit
def test_the_cache_is_set_up_at_the_first_call_not_when_the_loop_is_defined():
    """A module defining many loops costs a process nothing for those it never calls."""
    loop = cached_njit(_loop_over(_add_one))
    assert loop._cache._cache is None  # no cache folder looked up, no fingerprint taken
    assert loop(3) == 3
    assert loop._cache._cache._fingerprint.startswith(fingerprint(loop))

