"""The checks of actions and seeds that every entry point shares.

One definition, so that ``State.apply``, the PettingZoo AEC env, the Gymnasium env,
``BatchEnv`` and the Gymnasium vector env refuse the same inputs with the same words.

Actions are integers only: a Python ``int``, a numpy integer scalar or a 0-d array of an
integer dtype for one game; an array of an integer dtype (or a list of integers) for a
batch. ``bool``, floats (``2.0`` too), strings and ``None`` are refused with
``IllegalActionError``: coercing them would play a move the caller did not write (``2.7``
as 2, ``True`` as 1). A batch of a signed integer dtype costs one look at the dtype per call
(``BatchEnv.step``); the range and legality of each entry are checked inside the compiled
step.

Seeds are None or an integer from 0 to ``2**64 - 1`` (what ``numpy.random.SeedSequence``
and Gymnasium's seeding take without loss); anything else is refused with
``InvalidOptionError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import IllegalActionError, InvalidOptionError

#: Seeds are integers below this bound (and at least 0).
SEED_LIMIT = 2**64


def is_integer(value: Any) -> bool:
    """True for a Python int, a numpy integer scalar or a 0-d integer array (never a bool)."""
    if isinstance(value, np.ndarray):
        return value.shape == () and value.dtype.kind in "iu"
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def not_an_integer_action(env_id: str, num_actions: int, action: Any, where: str = "") -> IllegalActionError:
    """The error for an action that is not an integer (``where``: e.g. ``"game 3: "`` in a batch)."""
    return IllegalActionError(
        f"{env_id}: {where}an action must be an integer from 0 to {num_actions - 1}, "
        f"got {action!r} of type {type(action).__name__}"
    )


def out_of_range_action(env_id: str, num_actions: int, action: int, where: str = "") -> IllegalActionError:
    """The error for an integer action outside ``0 .. num_actions - 1``."""
    return IllegalActionError(
        f"{env_id}: {where}action {action} is out of range; actions are 0 to {num_actions - 1}"
    )


def checked_action(action: Any, env_id: str, num_actions: int) -> int:
    """``action`` as an int in ``0 .. num_actions - 1``; ``IllegalActionError`` otherwise."""
    if not is_integer(action):
        raise not_an_integer_action(env_id, num_actions, action)
    value = int(action)
    if not 0 <= value < num_actions:
        raise out_of_range_action(env_id, num_actions, value)
    return value


def action_array(actions: Any, env_id: str, num_actions: int) -> np.ndarray:
    """A batch's actions as an int64 array; ``IllegalActionError`` for what is not integers.

    ``BatchEnv.step`` hands over only what is not already an array of a signed integer dtype
    (it passes those with one look at the dtype, and checks the shape of both). A list or
    tuple is checked entry by entry; an unsigned array for entries past ``2**63`` (they
    would wrap negative); anything else, and arrays of any other dtype (float, bool, str,
    object), are refused.
    """
    if isinstance(actions, (list, tuple)):
        for i, action in enumerate(actions):
            if not is_integer(action):
                raise not_an_integer_action(env_id, num_actions, action, f"game {i}: ")
            if not 0 <= action < num_actions:
                raise out_of_range_action(env_id, num_actions, int(action), f"game {i}: ")
        return np.array([int(a) for a in actions], dtype=np.int64)
    if not isinstance(actions, np.ndarray):
        raise IllegalActionError(
            f"{env_id}: actions must be an array of integers (an integer dtype), got {type(actions).__name__}"
        )
    if actions.dtype.kind == "i":
        return actions
    if actions.dtype.kind != "u":
        raise IllegalActionError(
            f"{env_id}: an action must be an integer from 0 to {num_actions - 1}, got an array of dtype "
            f"{actions.dtype} (actions are an array of an integer dtype)"
        )
    too_big = np.flatnonzero(actions.ravel() >= num_actions)
    if len(too_big):
        first = int(too_big[0])
        raise out_of_range_action(env_id, num_actions, int(actions.ravel()[first]), f"game {first}: ")
    return actions.astype(np.int64)


def checked_seed(seed: Any, owner: str) -> int | None:
    """``seed`` as an int from 0 to ``2**64 - 1``, or None; ``InvalidOptionError`` otherwise."""
    if seed is None:
        return None
    if not is_integer(seed) or not 0 <= int(seed) < SEED_LIMIT:
        raise InvalidOptionError(
            f"{owner}: a seed must be None or an integer from 0 to 2**64 - 1, got {seed!r} of type "
            f"{type(seed).__name__}"
        )
    return int(seed)
