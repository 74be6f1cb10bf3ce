"""Loops with a kernel's functions compiled into them, for the hottest paths.

A loop that receives the kernel's functions as first-class arguments (as
``core.playout`` does) calls them as opaque functions: every call passes the state and the
parameters as a dozen machine words, and nothing is optimised across the call. The
Monte Carlo tree search (``agents.mcts``) calls ``legal_mask`` and ``apply`` on every ply
of every rollout, so there that cost is most of the time. Measured on Kalah(6,4)
uniformly random playouts (one core, warm): 58 ns per move through calls; 42 ns with the
kernel's code pasted into the loop by hand; 44 to 49 ns with the two tools below together;
53 to 66 ns with ``inline_kernel`` alone.

* ``inline_kernel(kernel)``: the same functions, recompiled with numba's
  ``inline="always"``. A loop that names them as globals or closure variables (not as
  arguments: numba inlines only calls it can resolve while compiling) gets their bodies
  in place of the calls. Build such loops in a factory that closes over the inlined
  functions, one compiled loop per kernel.
* ``unowned(array)``: a view of ``array`` that carries no reference count. Numba counts
  references to every array variable, and an inlined body binds the arrays it was given
  to new variables: an atomic increment and decrement per array per inlined call, a
  dozen per move. A view whose ``meminfo`` is null skips them. The view shares the
  owner's memory and does not keep it alive: the owner must outlive every use, and the
  view (or a slice of it) must never be returned or stored; use it only inside the
  function that holds the owner.

Same code, same results: the inlined functions are built from the kernel's own Python
functions (``py_func``), so there is still one definition of every rule.
"""

from __future__ import annotations

import functools

from numba import njit
from numba.core import cgutils
from numba.extending import intrinsic

from .game import Kernel

__all__ = ["inline_kernel", "inlined", "unowned"]


@functools.cache
def inlined(function):
    """One jitted function recompiled as ``inline="always"`` (memoised per function)."""
    return njit(inline="always")(getattr(function, "py_func", function))


@functools.cache
def inline_kernel(kernel: Kernel) -> Kernel:
    """``kernel`` with every function recompiled as ``inline="always"`` (memoised per kernel)."""
    return Kernel(*(inlined(f) for f in kernel))


@intrinsic
def unowned(typingctx, array):
    """A view of ``array`` without a reference count (see the module docstring)."""

    def codegen(context, builder, signature, args):
        source = context.make_array(array)(context, builder, value=args[0])
        view = context.make_array(array)(context, builder)
        for field in ("parent", "nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, field, getattr(source, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        return view._getvalue()

    return array(array), codegen
