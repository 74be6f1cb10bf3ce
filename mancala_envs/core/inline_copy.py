"""A quicker copy of a function's IR when numba inlines it (``inline="always"``), same result.

The package's loops are built from many ``inline="always"`` functions (``core.inline``), and
numba copies the IR of every function it inlines, block by block, with one ``copy.deepcopy``
per block (``numba.core.inline_closurecall.InlineWorker.inline_ir``). Every variable in a block
refers to the function's scope, and the scope holds every variable of the function, so each
block's copy copies the whole scope again: the copy takes blocks x variables, which for the
large functions (a card game's move, a search loop's phases, with everything they call already
inlined) is a large share of their compile time (``benchmarks/first_use.py`` measures it).

``install()`` makes the ``deepcopy`` of the blocks inside ``inline_ir`` share one memo per
scope, so the scope and its variables are copied once per inlined function, as one
``copy.deepcopy`` of the whole function would. The copied IR is the same (every block's
variables refer to one copy of the scope instead of to equal copies of it); the compiled code
is the same. ``inline_ir`` runs under numba's compiler lock, one call at a time.

Installed when ``mancala_envs.core.game`` is imported, for every compile in the process (numba's
own code and a user's too: it changes only how long their inlining takes). Without
``InlineWorker.inline_ir`` (another numba) nothing is changed.
"""

from __future__ import annotations

import copy
import functools

from numba.core import inline_closurecall, ir

__all__ = ["install"]


class _ScopeSharingCopy:
    """``copy`` as ``inline_closurecall`` uses it, with the blocks of one scope copied under one memo."""

    def __init__(self) -> None:
        self._memos: dict[int, dict] = {}

    def deepcopy(self, value, memo=None):
        if memo is None and isinstance(value, ir.Block):
            # the memo keeps the block (and so its scope) alive: the scope's id stays its own
            memo = self._memos.setdefault(id(value.scope), {})
        return copy.deepcopy(value, memo)

    def __getattr__(self, name: str):
        return getattr(copy, name)


def install() -> None:
    """Wrap ``InlineWorker.inline_ir`` so its block copies share a memo per scope (once per process)."""
    worker = getattr(inline_closurecall, "InlineWorker", None)
    inline_ir = getattr(worker, "inline_ir", None)
    if inline_ir is None or getattr(inline_ir, "_shares_scope_copies", False):
        return

    @functools.wraps(inline_ir)
    def inline_ir_sharing_scope_copies(self, *args, **kwargs):
        inline_closurecall.copy = _ScopeSharingCopy()  # fresh memos for this call's copies
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            inline_closurecall.copy = copy

    inline_ir_sharing_scope_copies._shares_scope_copies = True
    worker.inline_ir = inline_ir_sharing_scope_copies
