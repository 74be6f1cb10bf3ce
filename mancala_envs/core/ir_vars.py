"""Quicker listing of the variables of numba's IR statements (``Inst.list_vars``), same result.

Numba's analyses (the SSA pass, ``compute_use_defs``, dead code and variable-lifetime passes)
ask every statement of the function being compiled for the variables it reads and writes, many
times over a compile: ``Inst.list_vars`` walks the statement's attributes with
``Inst._rec_list_vars``, which tests each value against ``Var``, ``Inst``, ``list``/``tuple`` and
``dict`` with ``isinstance`` and builds and extends a new list at every level. In the package's
large compiled units (a search loop with a game's kernel inlined) this walk is a large share of
the untyped passes.

``install()`` replaces ``Inst._rec_list_vars`` with a walk that gives the same list in the same
order: each value's kind (a variable, an instruction, a sequence, a mapping, anything else) is
found once per Python type, in the original's order of tests, and every variable found is
appended to one list. An instruction whose ``list_vars`` is numba's own (``Stmt``'s, over its
attributes; ``Expr``'s, over its arguments) is walked in place; one with a ``list_vars`` of its
own (a subclass's) is asked for it, as before. Installed when ``mancala_envs.core.game`` is
imported, for every compile in the process. Without ``ir.Inst._rec_list_vars``,
``ir.Stmt.list_vars`` or ``ir.Expr.list_vars`` (another numba) nothing is changed.
"""

from __future__ import annotations

from numba.core import ir

__all__ = ["install"]

_OTHER, _VAR, _STMT, _EXPR, _INST, _SEQUENCE, _MAPPING = range(7)


def _kind_of(cls: type, stmt_list_vars, expr_list_vars) -> int:
    """What ``_rec_list_vars`` does with a value of type ``cls`` (its tests, in its order)."""
    if issubclass(cls, ir.Var):
        return _VAR
    if issubclass(cls, ir.Inst):
        own = getattr(cls, "list_vars", None)
        return _STMT if own is stmt_list_vars else _EXPR if own is expr_list_vars else _INST
    if issubclass(cls, (list, tuple)):
        return _SEQUENCE
    if issubclass(cls, dict):
        return _MAPPING
    return _OTHER


def _fast_walk(stmt_list_vars, expr_list_vars):
    """The replacement ``_rec_list_vars``, for numba's own ``Stmt.list_vars`` and ``Expr.list_vars``."""
    kinds: dict[type, int] = {}

    def collect(val, out: list) -> None:
        cls = type(val)
        kind = kinds.get(cls)
        if kind is None:
            kind = kinds[cls] = _kind_of(cls, stmt_list_vars, expr_list_vars)
        if kind == _OTHER:
            return
        if kind == _VAR:
            out.append(val)
        elif kind == _SEQUENCE:
            for v in val:
                collect(v, out)
        elif kind == _MAPPING:
            for v in val.values():
                collect(v, out)
        elif kind == _STMT:
            for v in val.__dict__.values():
                collect(v, out)
        elif kind == _EXPR:
            for v in val._kws.values():
                collect(v, out)
        else:
            out.extend(val.list_vars())

    def rec_list_vars(self, val):
        out: list = []
        collect(val, out)
        return out

    rec_list_vars._fast = True
    return rec_list_vars


def install() -> None:
    """Make ``Inst._rec_list_vars`` quicker (see the module docstring; once per process)."""
    original = getattr(ir.Inst, "_rec_list_vars", None)
    stmt_list_vars = getattr(getattr(ir, "Stmt", None), "list_vars", None)
    expr_list_vars = getattr(getattr(ir, "Expr", None), "list_vars", None)
    if original is None or stmt_list_vars is None or expr_list_vars is None or getattr(original, "_fast", False):
        return
    ir.Inst._rec_list_vars = _fast_walk(stmt_list_vars, expr_list_vars)
