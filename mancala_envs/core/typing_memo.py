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

The templates that decline a call, and the values numba cannot type while it looks up a global
name, each build an error message that is then dropped, thousands in a kernel's compile. Numba
marks such a message up for the terminal (``numba.core.errors.HighlightColorScheme._markup``)
inside colorama's ``init()`` and ``deinit()``, which wrap and unwrap ``sys.stdout`` and
``sys.stderr`` for each piece of text though nothing is printed meanwhile. ``install()`` makes
the same text (the colour and style codes, the message, the reset code) without the wrapping.
"""

from __future__ import annotations

import functools

import numpy as np
from numba.core import errors, types
from numba.core.target_extension import get_local_target

__all__ = ["install"]

BUILTINS = (bool, len, abs, min, max)  # Python functions typed like operators: by argument types alone


def _memoised(function_type) -> bool:
    key = function_type.typing_key
    if isinstance(key, type):
        return issubclass(key, np.generic) or key in BUILTINS
    return getattr(key, "__module__", None) in ("operator", "_operator") or key in BUILTINS


def _mark_up_without_wrapping_streams() -> None:
    """``HighlightColorScheme._markup`` without colorama's stream wrapping: the same text."""
    scheme, colorama_style = getattr(errors, "HighlightColorScheme", None), getattr(errors, "Style", None)
    if scheme is None or colorama_style is None or getattr(scheme._markup, "_unwrapped", False):
        return

    def markup(self, msg, color=None, style=colorama_style.BRIGHT, reset=colorama_style.RESET_ALL):
        return (color or "") + (style or "") + msg + reset

    markup._unwrapped = True
    scheme._markup = markup


def install() -> None:
    """Wrap ``types.Function.get_call_type`` so operator calls are typed once per argument types,
    and mark error messages up without wrapping the streams (once per process)."""
    _mark_up_without_wrapping_streams()
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
