"""Loops with a kernel's functions compiled into them, for the hottest paths.

A loop that receives the kernel's functions as first-class arguments (as
``core.playout`` does) calls them as opaque functions: every call passes the state and the
parameters as a dozen machine words, and nothing is optimised across the call. The
Monte Carlo tree search (``mancala_envs.agents.mcts``) calls ``legal_mask`` and ``apply`` on every ply
of every rollout, so there that cost is most of the time. On random playouts the two tools
below together come close to the kernel's code pasted into the loop by hand, and
``inline_kernel`` alone does not (``benchmarks/run.py``'s ``kernel_limit``).

* ``inline_kernel(kernel)``: the same functions, recompiled with numba's
  ``inline="always"``. A loop that names them as globals or closure variables (not as
  arguments: numba inlines only calls it can resolve while compiling) gets their bodies
  in place of the calls. Build such loops in a factory that closes over the inlined
  functions, one compiled loop per kernel.
* ``params_reader(fixed_params, width)``: how a loop reads the game's params vector. With
  ``fixed_params`` (a tuple, ``specialise=True``) the values are compile-time constants and
  every rule switch folds into the code. Without, the caller's array of ``width`` entries
  is read once per call into a tuple: the values stay runtime values (one loop per
  kernel), but they live in registers. Read from the array, every ``params[P_...]`` is a
  memory load that LLVM must repeat after each store to the state (the two arrays might
  overlap, as far as it knows), several per move. The random playouts' generic loop gained
  against the Kalah-only loop (``benchmarks/run.py``'s ``kernel_limit``); ``BatchEnv``'s step
  did not, and keeps the array. A kernel may then see its params
  as a tuple: it must read them by index only (``params[P_...]``), as the package's kernels do.
* ``unowned(array)``: a view of ``array`` that carries no reference count. Numba counts
  references to every array variable, and an inlined body binds the arrays it was given
  to new variables: an atomic increment and decrement per array per inlined call, a
  dozen per move. A view whose ``meminfo`` is null skips them. The view shares the
  owner's memory and does not keep it alive: the owner must outlive every use, and the
  view (or a slice of it) must never be returned or stored; use it only inside the
  function that holds the owner. Given a tuple or named tuple (a bundle of arrays, such
  as ``mancala_envs.agents.mcts.SearchTree``), it returns the same tuple with every array member (in
  nested tuples too) replaced by such a view, other members unchanged. Under
  ``NUMBA_DISABLE_JIT=1`` there are no reference counts to skip, and ``unowned`` returns
  its argument itself.

* ``borrowed_bundle``: a class decorator for a named tuple of arrays that the loops take as
  an argument (``SearchTree``, the alpha-beta search's ``SearchLine``). Numba counts references
  to a tuple of arrays member by member: every copy of such a variable (an inlined function
  binds its arguments to new variables) is an increment and a decrement per array, emitted
  into the code whether or not the arrays are ``unowned`` views. For a class so declared the
  compiled code emits none (numba's lowering skips ``incref`` and ``decref`` of values of its
  type): its values are only ever borrowed, from the caller's arguments or from ``unowned``.
  The rule that keeps this safe: a declared bundle is made in Python only (never built,
  returned or stored by compiled code), and the caller's arrays outlive the call; the arrays
  taken out of it (``tree.node_visits``) are counted as any array.

* ``copy_words(target, source, start, count)``: ``target[start:start+count] =
  source[start:start+count]`` for two distinct arrays, as one memory copy (with ``count`` a
  compile-time constant: a few vector loads and stores, where an element loop between two
  arrays that might overlap stays a load and a store a word). For a game's search hooks
  (``Game.search_hooks``), which copy the parts of a position in use.

Same code, same results: the inlined functions are built from the kernel's own Python
functions (``py_func``), so there is still one definition of every rule.
"""

from __future__ import annotations

import functools

from numba import config, njit, types
from numba.core import cgutils, lowering
from numba.extending import intrinsic
from numba.np.unsafe.ndarray import to_fixed_tuple

from .game import Kernel, copy_whole_state, whole_state_key

__all__ = ["borrowed_bundle", "copy_words", "inline_kernel", "inlined", "params_reader", "search_hook", "unowned"]


@functools.cache
def inlined(function):
    """One jitted function recompiled as ``inline="always"`` (memoised per function)."""
    return njit(inline="always")(getattr(function, "py_func", function))


@functools.cache
def inline_kernel(kernel: Kernel) -> Kernel:
    """``kernel`` with every function recompiled as ``inline="always"`` (memoised per kernel)."""
    return Kernel(*(inlined(f) for f in kernel))


def search_hook(function):
    """A ``Game.search_hooks`` function as a search loop uses it. The package's own hooks (a
    copy of every word, the hash of every word) are a few instructions: inlined. A game's own
    (a copy or key over the words in use) is long code that each loop compiling it in would
    type, lower and optimise again: called instead, compiled once and shared by the searches
    (which then pass it the params array, as ``Game.search_params_as_array`` games do)."""
    if function in (copy_whole_state, whole_state_key):
        return inlined(function)
    return function


def params_reader(fixed_params: tuple[int, ...] | None, width: int | None):
    """An inlined ``params_of(params_array)`` for a loop: ``fixed_params`` itself (constants),
    or, without it, the ``width`` entries of the array as a tuple (see the module docstring),
    or with ``width=None`` an ``unowned`` view of the array (for a kernel that needs an array)."""
    if fixed_params is None and width is None:
        return unowned
    if fixed_params is not None:
        @njit(inline="always")
        def params_of(params_owned):
            return fixed_params  # a tuple constant: every params[P_...] folds into the code
    elif config.DISABLE_JIT:
        def params_of(params_owned):
            return params_owned
    else:
        @njit(inline="always")
        def params_of(params_owned):
            return to_fixed_tuple(params_owned, width)  # runtime values, in registers
    return params_of


def _view_without_refcount(context, builder, array_type, array):
    source = context.make_array(array_type)(context, builder, value=array)
    view = context.make_array(array_type)(context, builder)
    for field in ("parent", "nitems", "itemsize", "data", "shape", "strides"):
        setattr(view, field, getattr(source, field))
    view.meminfo = cgutils.get_null_value(view.meminfo.type)
    return view._getvalue()


def _members_without_refcount(context, builder, value_type, value):
    """``value`` with every array in it (an array, or a tuple of them) made an unowned view."""
    if isinstance(value_type, types.Array):
        return _view_without_refcount(context, builder, value_type, value)
    if isinstance(value_type, types.BaseTuple):
        for i, member_type in enumerate(value_type.types):
            member = builder.extract_value(value, i)
            value = builder.insert_value(value, _members_without_refcount(context, builder, member_type, member), i)
    return value


@intrinsic
def _unowned(typingctx, value):
    """A view of an array, or of every array in a tuple, without reference counts (see the module docstring)."""
    if not isinstance(value, (types.Array, types.BaseTuple)):
        return None  # a typing error: unowned takes an array or a tuple of arrays

    def codegen(context, builder, signature, args):
        return _members_without_refcount(context, builder, value, args[0])

    return value(value), codegen


def _the_argument_itself(value):
    """``unowned`` without JIT (``NUMBA_DISABLE_JIT=1``): there are no reference counts to skip."""
    return value


# Without JIT an intrinsic cannot run at all (it raises NotImplementedError).
unowned = _the_argument_itself if config.DISABLE_JIT else _unowned


_BORROWED_BUNDLES: set[type] = set()


def _counts_references(typ) -> bool:
    """Whether compiled code counts references to values of ``typ`` (not a ``borrowed_bundle``)."""
    return not (isinstance(typ, types.BaseNamedTuple) and typ.instance_class in _BORROWED_BUNDLES)


def _skip_borrowed_bundles(count):
    """``Lower.incref`` or ``Lower.decref``, doing nothing for a value of a ``borrowed_bundle`` type."""
    @functools.wraps(count)
    def count_unless_borrowed(self, typ, val):
        if _counts_references(typ):
            count(self, typ, val)

    count_unless_borrowed._skips_borrowed_bundles = True
    return count_unless_borrowed


def borrowed_bundle(cls: type) -> type:
    """Declare the named tuple class ``cls`` a bundle of arrays that compiled code only borrows
    (see the module docstring): no reference counts for its values. Returns ``cls``."""
    _BORROWED_BUNDLES.add(cls)
    for name in ("incref", "decref"):
        count = getattr(lowering.Lower, name)
        if not getattr(count, "_skips_borrowed_bundles", False):
            setattr(lowering.Lower, name, _skip_borrowed_bundles(count))
    return cls


@intrinsic
def _copy_words(typingctx, target, source, start, count):
    if not (isinstance(target, types.Array) and isinstance(source, types.Array) and target.dtype == source.dtype
            and target.ndim == source.ndim == 1 and target.layout == source.layout == "C"
            and isinstance(start, types.Integer) and isinstance(count, types.Integer)):
        return None  # a typing error

    def codegen(context, builder, signature, args):
        to = context.make_array(target)(context, builder, value=args[0])
        come = context.make_array(source)(context, builder, value=args[1])
        size = context.get_abi_sizeof(context.get_data_type(target.dtype))
        cgutils.raw_memcpy(builder, cgutils.gep(builder, to.data, args[2]), cgutils.gep(builder, come.data, args[2]),
                           args[3], size)
        return context.get_dummy_value()

    return types.none(target, source, start, count), codegen


def _copy_words_without_jit(target, source, start, count):
    target[start : start + count] = source[start : start + count]


# ``copy_words(target, source, start, count)``: see the module docstring. No bounds checks: the
# caller keeps ``start .. start + count - 1`` inside both arrays, which must not overlap.
copy_words = _copy_words_without_jit if config.DISABLE_JIT else _copy_words
