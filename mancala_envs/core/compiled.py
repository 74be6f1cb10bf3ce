"""Per-family compiled loops that numba caches on disk: ``cached_njit``.

The hottest loops (MCTS, alpha-beta, random playouts, the batched engine's step) are built
per kernel by a factory that closes over the kernel's functions (``core.inline``): numba
then compiles the rules into the loop instead of calling them. Numba's own ``cache=True``
cannot keep such a closure: its cache key hashes the closure's cells with pickle, and a
jitted function pickles with a fresh random id in every process, so the key never matches
again. Every new process used to pay the whole compilation, seconds, before its first
search move.

``cached_njit(function, **options)`` is ``njit(**options)(function)`` with a disk cache
keyed by a *fingerprint* instead: a SHA-256 over the function's code and, recursively,
everything it compiles in:

* its bytecode, constants and names (nested code objects included);
* every closure cell, and every global it names (looked up in its module);
* for a jitted function found there: its own fingerprint (its Python function) and its
  compile options (``inline="always"`` compiles differently);
* numbers, strings, tuples and numpy arrays by value (a constant params tuple is part of
  the key), classes and modules by name.

The key also holds the options given to ``cached_njit`` (``parallel=True``, ``nogil=True``):
the same function compiled serial and parallel is two entries (when the key left them out,
a parallel step loaded the serial one compiled before it, or the other way round).

So a loop built for Kalah and one built for Rondell get different keys, and editing a rule
in ``games/kalah.py`` (or any jitted helper it calls) changes the key of every loop that
compiled it in: a stale loop is never loaded. (Numba's own cache keys a function by its
source file only, so a ``cache=True`` function is not recompiled when a function it calls
in another file changes.)

Cache files live where numba puts them for the factory's source file (``__pycache__``
next to it, or ``NUMBA_CACHE_DIR``), one index per fingerprint (its name ends in the
fingerprint's first 16 hex digits), one entry per signature. One index per factory, as numba
would keep it, lets two processes that compile loops for different kernels at the same moment
corrupt it: numba numbers a new entry's data file from the index it has just read, so both can
write the same ``.N.nbc`` file, and the index then maps one loop's key to the other loop's code
(seen: alpha-beta finding no legal move at an Afrika root, a worker aborting, with two cache
warmers and test workers compiling at once). Processes compiling the same loop write the same
code. A code change leaves the old fingerprint's files behind, unused. Under
``NUMBA_DISABLE_JIT=1`` ``cached_njit`` returns the function itself.

Before a loop compiles (its disk cache has no entry for the fingerprint and signature), one line on
stderr says what compiles and for which game family (``core.announce``): ``what`` names the loop
("the alpha-beta search"; a loop given none is not announced), the family comes from the game
kernel the loop compiles in. A cache hit prints nothing.

The cache is set up, and the fingerprint taken, when the loop is first loaded or compiled, not
when ``cached_njit`` is called: a module that defines loops for many games (the move features,
the learned evaluation) costs a process nothing for the loops it never calls.
"""

from __future__ import annotations

import hashlib
import types
from typing import Any, Callable

import numpy as np
from numba import config, njit
from numba.core.caching import FunctionCache, IndexDataCacheFile, _Cache
from numba.core.dispatcher import Dispatcher

from . import announce

__all__ = ["cached_njit", "fingerprint"]


def _code_parts(code: types.CodeType, out: list) -> None:
    out.append(code.co_code)
    out.append(repr(code.co_names))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _code_parts(const, out)
        else:
            out.append(repr(const))


def _names_used(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_used(const)
    return names


def _describe(value: Any, seen: set[int]) -> str:
    """What of ``value`` a compiled loop depends on, as text (see the module docstring)."""
    if isinstance(value, Dispatcher):
        options = sorted((k, repr(v)) for k, v in value.targetoptions.items())
        return f"jit{options}:{_fingerprint(value.py_func, seen)}"
    if isinstance(value, types.FunctionType):
        return f"py:{_fingerprint(value, seen)}"
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.generic)):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, np.ndarray):
        return f"array:{value.dtype}:{value.shape}:{hashlib.sha256(value.tobytes()).hexdigest()}"
    if isinstance(value, tuple):  # named tuples too: their class, then the members
        return f"{type(value).__qualname__}(" + ",".join(_describe(v, seen) for v in value) + ")"
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}"
    if isinstance(value, type):
        return f"class:{value.__module__}.{value.__qualname__}"
    return f"object:{type(value).__module__}.{type(value).__qualname__}"


def _fingerprint(function: types.FunctionType, seen: set[int]) -> str:
    if id(function) in seen:  # recursion: the cycle's members are hashed once
        return f"cycle:{function.__module__}.{function.__qualname__}"
    seen.add(id(function))
    parts: list = [f"{function.__module__}.{function.__qualname__}"]
    code = function.__code__
    _code_parts(code, parts)
    for cell in function.__closure__ or ():
        parts.append(_describe(cell.cell_contents, seen))
    module_globals = function.__globals__
    for name in sorted(_names_used(code)):
        if name in module_globals:
            parts.append(f"{name}=" + _describe(module_globals[name], seen))
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def fingerprint(function: Callable) -> str:
    """The SHA-256 key of ``function`` (a Python or jitted function) and all it compiles in."""
    return _fingerprint(getattr(function, "py_func", function), set())


class _FingerprintCache(FunctionCache):
    """Numba's function cache, keyed by ``fingerprint`` and the compile options instead of the
    pickled closure, in an index file of its own per fingerprint (see the module docstring).
    Made at the first load or save (``_CacheOnFirstUse``), when numba compiles what the
    function's globals hold then."""

    def __init__(self, py_func, options: dict[str, Any]):
        super().__init__(py_func)
        self._fingerprint = fingerprint(py_func) + ":" + repr(sorted((k, repr(v)) for k, v in options.items()))
        own_name = hashlib.sha256(self._fingerprint.encode()).hexdigest()[:16]
        self._cache_file = IndexDataCacheFile(cache_path=self._cache_path,
                                              filename_base=f"{self._impl.filename_base}-{own_name}",
                                              source_stamp=self._impl.locator.get_source_stamp())

    def _index_key(self, sig, codegen):
        return (sig, codegen.magic_tuple(), (self._fingerprint,))


GAMES_PACKAGE = "mancala_envs.games."


def _families(value: Any, seen: set[int]) -> set[str]:
    """The game families (modules of ``mancala_envs.games``) whose functions ``value`` compiles in."""
    if id(value) in seen:
        return set()
    seen.add(id(value))
    if isinstance(value, Dispatcher):
        value = value.py_func
    if isinstance(value, tuple):
        return set().union(*(_families(v, seen) for v in value))
    if not isinstance(value, types.FunctionType):
        return set()
    if value.__module__.startswith(GAMES_PACKAGE):
        return {value.__module__[len(GAMES_PACKAGE):]}
    used = [cell.cell_contents for cell in value.__closure__ or ()]
    used += [value.__globals__[name] for name in sorted(_names_used(value.__code__)) if name in value.__globals__]
    return set().union(*(_families(v, seen) for v in used))


def subject(function: Callable, what: str | None) -> str | None:
    """What the announcement of ``function``'s compile names: ``what`` and the game family it
    compiles in; None (not announced) without ``what``: the loops a factory names are the long
    compiles, the helpers beside them (a batch's reset, a feature pass) are short."""
    if what is None:
        return None
    families = sorted(_families(getattr(function, "py_func", function), set()))
    return f"{what} for {' and '.join(families)}" if families else what


class _CacheOnFirstUse(_Cache):
    """A ``_FingerprintCache`` made when the dispatcher first loads or saves code.

    Setting up numba's cache for a function finds its cache folder and checks that it can
    write there (a temporary file), and the fingerprint walks everything the function
    compiles in: a cost paid at import for every ``cached_njit`` loop, most of
    which a process never calls (move features of games it does not play, the learned
    evaluation's loops). Deferred, a process pays it only for what it runs.
    """

    def __init__(self, py_func, options: dict[str, Any], what: str | None):
        self._py_func = py_func
        self._options = options
        self._what = what
        self._cache: _FingerprintCache | None = None
        self._compile_started: float | None = None
        self._subject: str | None = None

    def _made(self) -> _FingerprintCache:
        if self._cache is None:
            self._cache = _FingerprintCache(self._py_func, self._options)
        return self._cache

    @property
    def cache_path(self):
        return self._made().cache_path

    def load_overload(self, sig, target_context):
        loaded = self._made().load_overload(sig, target_context)
        if loaded is None:  # numba compiles it now (core.announce)
            self._subject = subject(self._py_func, self._what)
            if self._subject is not None:
                self._compile_started = announce.compiling(self._subject)
        return loaded

    def save_overload(self, sig, data):
        self._made().save_overload(sig, data)
        if self._compile_started is not None:
            announce.compiled(self._subject, self._compile_started)
            self._compile_started = None

    def enable(self):
        self._made().enable()

    def disable(self):
        self._made().disable()

    def flush(self):
        self._made().flush()

    def _index_key(self, sig, codegen):
        return self._made()._index_key(sig, codegen)


def cached_njit(function: Callable | None = None, *, what: str | None = None, **options: Any) -> Callable:
    """``njit(**options)(function)``, cached on disk by fingerprint, its compile announced as
    ``what`` (see the module docstring). Also a decorator with arguments: ``@cached_njit(what=...)``."""
    if function is None:
        return lambda f: cached_njit(f, what=what, **options)
    dispatcher = njit(**options)(function)
    if config.DISABLE_JIT:
        return dispatcher
    dispatcher._cache = _CacheOnFirstUse(function, options, what)
    return dispatcher
