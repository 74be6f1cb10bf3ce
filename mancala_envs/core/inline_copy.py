"""Quicker inlining of ``inline="always"`` functions (numba's ``InlineWorker``), same result.

The package's loops are built from many ``inline="always"`` functions (``core.inline``), and
numba's ``numba.core.inline_closurecall.InlineWorker`` inlines them at every call site in two
steps, both costly for such code; ``install()`` makes each cheaper:

* **The callee's IR is made once.** ``InlineWorker.inline_function`` runs the whole untyped
  pipeline over the callee (bytecode, IR, its own inlining, rewrites) at every call site, though
  the result depends only on the function and the compile's settings: a helper such as
  ``core.repetition.unsigned_index`` is called at hundreds of sites, and a large phase of a
  search loop runs it again for every helper it inlines itself. ``run_untyped_passes`` keeps its
  result per function and settings (the typing and target contexts, the flags, the locals, the
  pipeline) and hands it out again; ``inline_ir`` always works on a copy of the IR it is given,
  never on the IR itself, so the kept IR stays as it was made. Functions are kept by identity
  (a factory's closures are new functions, with their own cells), for the life of the process.
* **The copies share the scope.** ``inline_ir`` copies the callee's IR block by block, with one
  ``copy.deepcopy`` per block. Every variable in a block refers to the function's scope, and the
  scope holds every variable of the function, so each block's copy copies the whole scope again:
  the copy takes blocks x variables, which for the large functions (a card game's move, a search
  loop's phases, with everything they call already inlined) is a large share of their compile
  time (``benchmarks/first_use.py`` measures it). The ``deepcopy`` of the blocks inside
  ``inline_ir`` shares one memo per scope, so the scope and its variables are copied once per
  inlined function, as one ``copy.deepcopy`` of the whole function would. The copied IR is the
  same (every block's variables refer to one copy of the scope instead of to equal copies of it).
  ``inline_ir`` then copies its copy again, to return "an unmutated copy" of the callee's IR
  beside the inlined blocks; numba's callers (``InlineInlinables``, ``InlineOverloads``) drop it.
  That second copy is answered by the blocks the first was made from, which ``inline_ir`` never
  mutates: the same IR, uncopied (a caller that kept it and mutated it would mutate the IR it
  passed in).

The compiled code is the same. Both run under numba's compiler lock, one call at a time.
Installed when ``mancala_envs.core.game`` is imported, for every compile in the process (numba's
own code and a user's too: it changes only how long their inlining takes). Without
``InlineWorker.inline_ir`` or ``InlineWorker.run_untyped_passes`` (another numba) that part is
left as it is.
"""

from __future__ import annotations

import copy
import functools

from numba.core import inline_closurecall, ir

__all__ = ["install"]


class _ScopeSharingCopy:
    """``copy`` as ``inline_closurecall`` uses it, with the blocks of one scope copied under one
    memo, and a copy of a block it copied answered by the block copied (see the module docstring)."""

    def __init__(self) -> None:
        self._memos: dict[int, dict] = {}
        self._copied_from: dict[int, tuple[ir.Block, ir.Block]] = {}  # id(copy): (copy, its block)

    def deepcopy(self, value, memo=None):
        if memo is None and isinstance(value, ir.Block):
            copied = self._copied_from.get(id(value))
            if copied is not None and copied[0] is value:
                return copied[1]
            # the memo keeps the block (and so its scope) alive: the scope's id stays its own
            block = copy.deepcopy(value, self._memos.setdefault(id(value.scope), {}))
            self._copied_from[id(block)] = (block, value)
            return block
        return copy.deepcopy(value, memo)

    def __getattr__(self, name: str):
        return getattr(copy, name)


def _settings_key(worker, enable_ssa: bool) -> tuple:
    """What of an ``InlineWorker`` its untyped pipeline's result depends on, besides the function."""
    flags = worker.flags
    flag_values = () if flags is None else tuple(sorted((k, repr(v)) for k, v in flags.values().items()
                                                        if k != "enable_ssa"))
    local_types = () if worker.locals is None else tuple(sorted((k, repr(v)) for k, v in worker.locals.items()))
    return (id(worker.typingctx), id(worker.targetctx), worker._compiler_pipeline, flag_values, local_types,
            bool(enable_ssa))


def _share_scope_copies(worker) -> None:
    """Wrap ``InlineWorker.inline_ir`` so its block copies share a memo per scope."""
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


def _keep_untyped_ir(worker) -> None:
    """Wrap ``InlineWorker.run_untyped_passes`` so its IR is made once per function and settings."""
    run_untyped_passes = getattr(worker, "run_untyped_passes", None)
    if run_untyped_passes is None or getattr(run_untyped_passes, "_keeps_ir", False):
        return
    kept: dict = {}

    @functools.wraps(run_untyped_passes)
    def run_untyped_passes_once(self, func, enable_ssa=False):
        key = (func, _settings_key(self, enable_ssa))
        found = kept.get(key)
        if found is None:
            found = kept[key] = run_untyped_passes(self, func, enable_ssa)
        elif self.flags is not None:
            self.flags.enable_ssa = enable_ssa  # as the pipeline's run would have left it
        return found

    run_untyped_passes_once._keeps_ir = True
    run_untyped_passes_once._kept = kept
    worker.run_untyped_passes = run_untyped_passes_once


def install() -> None:
    """Make ``InlineWorker``'s inlining quicker (see the module docstring; once per process)."""
    worker = getattr(inline_closurecall, "InlineWorker", None)
    if worker is None:
        return
    _share_scope_copies(worker)
    _keep_untyped_ir(worker)
