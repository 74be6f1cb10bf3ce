"""``mancala_envs.core.ir_vars``: its walk lists the same variables, in the same order, as numba's own
``Inst._rec_list_vars`` on every statement of a real kernel's IR (Widdershins' ply, the package's largest)."""

from __future__ import annotations

import pytest
from numba.core import ir
from numba.core.compiler import run_frontend

import mancala_envs  # noqa: F401  (installs the walk, as every user's import does)
from mancala_envs.core import ir_vars
from mancala_envs.games import widdershins


def _numba_own_walk(self, val):  # noqa: C901
    """Numba's ``Inst._rec_list_vars`` (numba 0.68's ``numba/core/ir.py``), which ``install`` replaces."""
    if isinstance(val, ir.Var):
        return [val]
    elif isinstance(val, ir.Inst):
        return val.list_vars()
    elif isinstance(val, (list, tuple)):
        lst = []
        for v in val:
            lst.extend(self._rec_list_vars(v))
        return lst
    elif isinstance(val, dict):
        lst = []
        for v in val.values():
            lst.extend(self._rec_list_vars(v))
        return lst
    else:
        return []


def test_the_walk_is_installed():
    assert getattr(ir.Inst._rec_list_vars, "_fast", False)


@pytest.mark.parametrize("function", ["_play", "apply", "position_key"])
def test_same_variables_in_the_same_order_as_numba(function, monkeypatch):
    kernel = getattr(widdershins, function)
    func_ir = run_frontend(kernel.py_func)
    statements = [stmt for block in func_ir.blocks.values() for stmt in block.body]
    assert len(statements) > 20
    fast = [[id(v) for v in stmt.list_vars()] for stmt in statements]
    monkeypatch.setattr(ir.Inst, "_rec_list_vars", _numba_own_walk)
    numba_own = [[id(v) for v in stmt.list_vars()] for stmt in statements]
    assert fast == numba_own
    assert sum(map(len, fast)) > 0


def test_install_twice_keeps_one_walk():
    walk = ir.Inst._rec_list_vars
    ir_vars.install()
    assert ir.Inst._rec_list_vars is walk
