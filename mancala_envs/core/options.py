"""Declared game options: one ``Option`` per keyword, validated in one place.

Every game declares its options as a tuple of ``Option``. ``resolve_options`` merges a
preset with user overrides and checks every value, so an unknown name, a wrong type or
an out-of-range value fails with a message naming the option and what is allowed.
``parse_option_value`` turns the ``key=value`` strings of the command line into typed
values using the same declarations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from .errors import InvalidOptionError


@dataclass(frozen=True)
class Option:
    """One constructor keyword of a game.

    kind is "bool", "int", "float" or "choice". ``low``/``high`` bound numbers (inclusive),
    ``choices`` lists the allowed values of a choice option, ``allow_none`` admits ``None``.
    """

    name: str
    default: Any
    kind: str
    doc: str
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    allow_none: bool = False

    def allowed(self) -> str:
        """Human-readable description of the allowed values."""
        if self.kind == "bool":
            text = "true or false"
        elif self.kind == "choice":
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        else:
            noun = "an integer" if self.kind == "int" else "a number"
            if self.low is not None and self.high is not None:
                text = f"{noun} from {_number(self.low)} to {_number(self.high)}"
            elif self.low is not None:
                text = f"{noun} >= {_number(self.low)}"
            else:
                text = noun
        if self.allow_none:
            text += ", or None"
        return text

    def encode(self, value: Any) -> int:
        """``value`` (already checked) as the integer the kernels read in the params vector.

        bool: 0 or 1; choice: its index in ``choices``; None: 0 (an option that allows None
        and goes into the params vector has ``low >= 1``, so 0 is free to mean "none");
        int: itself. A float has no generic encoding: a game derives it (``Game._derived_params``).
        """
        if value is None:
            return 0
        if self.kind == "choice":
            return self.choices.index(value)
        if self.kind == "float":
            raise TypeError(f"option {self.name} is a float; derive its params entry in the game")
        return int(value)

    def check(self, value: Any, owner: str) -> Any:
        """Return the value in canonical type, or raise InvalidOptionError."""
        bad = InvalidOptionError(
            f"{owner}: option {self.name}={value!r} is not allowed; {self.name} must be {self.allowed()}"
        )
        if value is None:
            if self.allow_none:
                return None
            raise bad
        if self.kind == "bool":
            # only True/False: 0/1 are refused as a number option refuses True (no silent casts)
            if isinstance(value, (bool, np.bool_)):
                return bool(value)
            if isinstance(value, (int, float, np.number)) or str(value).strip() in ("0", "1"):
                raise InvalidOptionError(f"{bad} (a yes/no option takes True or False, not the number {value})")
            raise bad
        if self.kind == "int":
            if isinstance(value, (bool, np.bool_)) or not _is_integral(value):
                raise bad
            value = int(value)
        elif self.kind == "float":
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise bad
            value = float(value)
        elif self.kind == "choice":
            if not any(type(value) is type(c) and value == c for c in self.choices):
                raise bad
            return value
        else:  # pragma: no cover - declarations are ours
            raise AssertionError(f"unknown option kind {self.kind}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise bad
        return value


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _is_integral(value: Any) -> bool:
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, float) and value.is_integer()


def resolve_options(
    owner: str, declared: Iterable[Option], preset: Mapping[str, Any], overrides: Mapping[str, Any]
) -> dict[str, Any]:
    """Defaults, then the preset, then the user's overrides; every value checked."""
    declared = {o.name: o for o in declared}
    unknown = [k for k in overrides if k not in declared]
    if unknown:
        raise InvalidOptionError(
            f"{owner}: unknown option{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
            f"valid options are: {', '.join(declared)}"
        )
    merged = {name: opt.default for name, opt in declared.items()}
    merged.update(preset)
    merged.update(overrides)
    return {name: declared[name].check(value, owner) for name, value in merged.items()}


def parse_option_value(option: Option, text: str) -> Any:
    """Parse the text of a ``key=value`` command-line argument for this option."""
    raw = text.strip()
    if option.allow_none and raw.lower() in ("none", "null"):
        return None
    if option.kind == "bool":
        lowered = raw.lower()
        if lowered in ("true", "yes", "on"):
            return True
        if lowered in ("false", "no", "off"):
            return False
        return raw  # check() reports it
    if option.kind == "int":
        try:
            return int(raw)
        except ValueError:
            return raw
    if option.kind == "float":
        try:
            return float(raw)
        except ValueError:
            return raw
    if option.kind == "choice":
        for choice in option.choices:
            if str(choice) == raw:
                return choice
        return raw
    return raw  # pragma: no cover


def parse_key_values(declared: Iterable[Option], args: Iterable[str], owner: str) -> dict[str, Any]:
    """Turn ``["pits=4", "seeds=3"]`` into typed overrides (unknown keys reported by resolve)."""
    declared = {o.name: o for o in declared}
    out: dict[str, Any] = {}
    for arg in args:
        if "=" not in arg:
            raise InvalidOptionError(
                f"{owner}: expected an option as key=value, got {arg!r}; valid options are: {', '.join(declared)}"
            )
        key, _, value = arg.partition("=")
        key = key.strip()
        if key not in declared:
            raise InvalidOptionError(
                f"{owner}: unknown option {key!r}; valid options are: {', '.join(declared)}"
            )
        out[key] = parse_option_value(declared[key], value)
    return out
