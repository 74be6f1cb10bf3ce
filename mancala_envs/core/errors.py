"""Exceptions raised on bad input. Each message names what was wrong and what is allowed."""


class MancalaError(ValueError):
    """Base class of every error this package raises for bad input."""


class UnknownEnvError(MancalaError, KeyError):
    """An env id that is not registered."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return self.args[0] if self.args else ""


class InvalidOptionError(MancalaError):
    """An unknown option, or an option value of the wrong type or out of range."""


class IllegalActionError(MancalaError):
    """An action that is out of range or not legal in the current position."""


class InvalidStateError(MancalaError):
    """A malformed position payload given to ``state_from_json``."""


class NotationError(MancalaError):
    """A move written in the game's notation that cannot be read or is not legal.

    ``why`` is the reason alone, without the game and the move (a text record names those
    its own way); it is the whole message unless the game gives it.
    """

    def __init__(self, message: str, why: str | None = None):
        super().__init__(message)
        self.why = message if why is None else why


class RecordError(MancalaError):
    """A record that cannot be read or replayed; the message names the move and says why."""
