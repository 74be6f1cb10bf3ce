"""Quicker typing of numba's operators (``a[i]``, ``a[i] = v``, ``x + y``, ...), same result.

Numba types every call of a function in the code being compiled by trying the function's
typing templates in order until one accepts the argument types
(``numba.core.types.Function.get_call_type``). An array access ``state[i]`` is such a call
(``operator.getitem``), and before the array's own template come a dozen others (typed dicts,
lists, strings, literal keys) that each decline it: the package's kernels and loops hold
thousands of array accesses and integer operations, and typing them was a large share of their
compile (``benchmarks/first_use.py`` measures it).

``install()`` keeps the signature each such call resolved to, per function type, typing context,
target and argument types, and answers the same call from it: the same signature the templates
would choose again, since for the ``operator`` module's functions, the ``BUILTINS`` below and
numpy's scalar types (``np.uint64(i)``) the choice depends on nothing else (a later ``@overload``
of an operator makes a new function type, with its own entries). Only successful resolutions are
kept, and only calls without keyword arguments. Installed when ``mancala_envs.core.game`` is
imported, for every compile in the process. Without ``types.Function.get_call_type`` (another
numba) nothing is changed.
"""

from __future__ import annotations

import functools

import numpy as np
from numba.core import types
from numba.core.target_extension import get_local_target

__all__ = ["install"]

BUILTINS = (bool, len, abs, min, max)  # Python functions typed like operators: by argument types alone


def _memoised(function_type) -> bool:
    key = function_type.typing_key
    if isinstance(key, type):
        return issubclass(key, np.generic) or key in BUILTINS
    return getattr(key, "__module__", None) in ("operator", "_operator") or key in BUILTINS


def install() -> None:
    """Wrap ``types.Function.get_call_type`` so operator calls are typed once per argument types (once per process)."""
    get_call_type = getattr(types.Function, "get_call_type", None)
    if get_call_type is None or getattr(get_call_type, "_memoised", False):
        return
    resolved: dict = {}

    @functools.wraps(get_call_type)
    def get_call_type_once(self, context, args, kws):
        if kws or not _memoised(self):
            return get_call_type(self, context, args, kws)
        key = (self, context, get_local_target(context), tuple(args))
        signature = resolved.get(key)
        if signature is None:
            signature = get_call_type(self, context, args, kws)
            if signature is not None:
                resolved[key] = signature
        return signature

    get_call_type_once._memoised = True
    get_call_type_once._resolved = resolved
    types.Function.get_call_type = get_call_type_once
