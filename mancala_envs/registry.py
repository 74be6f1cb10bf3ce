"""The one registry of env ids: every game and variant, with its preset options.

Each game family module lists its ids as plain data (``VARIANTS``, a tuple of
``core.game.Variant``, the family's main id first: ``kalah-v0``, ``afrika-v0``, ...); this
module names the family modules (``FAMILY_MODULES``) and registers their variants as it is
imported. Adding a game means writing its module (and
its per-rule tests) and naming it here.

``register_game`` adds an id; ``make_game`` builds the rules object; ``make`` builds the
wrapped PettingZoo AEC env; ``parse_options`` reads ``ID key=value ...`` words. Importing
``mancala_envs`` also registers every id (``mancala_envs.frameworks``) under the
``mancala/`` namespace of PettingZoo's and Gymnasium's registries.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Sequence

from .core.errors import InvalidOptionError, UnknownEnvError
from .core.game import Game, Variant
from .core.options import Option, parse_key_values
from .env import MancalaAEC, wrap_env
from .games import afrika, kalah, progressive, rondell, widdershins

# Options of the env wrapper itself, accepted by make() next to the game's options.
ENV_OPTIONS = (
    Option(
        "illegal_action",
        "raise",
        "choice",
        "raise: an illegal action raises IllegalActionError; terminate: PettingZoo's "
        "TerminateIllegalWrapper ends the game and gives the offender -1",
        choices=("raise", "terminate"),
    ),
)


@dataclass(frozen=True)
class EnvEntry:
    """A registered id: the game class and the preset that makes this variant."""

    env_id: str
    game_class: type[Game]
    description: str
    preset: dict[str, Any] = field(default_factory=dict)

    def game_options(self) -> tuple[Option, ...]:
        return self.game_class.OPTIONS

    def defaults(self) -> dict[str, Any]:
        values = {o.name: o.default for o in self.game_class.OPTIONS}
        values.update(self.preset)
        return values


_REGISTRY: dict[str, EnvEntry] = {}


def register_game(env_id: str, game_class: type[Game], description: str, **preset: Any) -> None:
    """Register ``env_id`` as ``game_class`` with ``preset`` options (checked now)."""
    if env_id in _REGISTRY:
        raise ValueError(f"env id {env_id!r} is already registered")
    game_class(env_id, preset)  # fail at import time if a preset is invalid
    _REGISTRY[env_id] = EnvEntry(env_id, game_class, description, dict(preset))


def register_variants(variants: Sequence[Variant]) -> None:
    """Register every ``Variant`` of a family module's ``VARIANTS``."""
    for variant in variants:
        register_game(variant.env_id, variant.game_class, variant.description, **variant.preset)


#: The game families, in the order their ids are registered.
FAMILY_MODULES = (kalah, progressive, afrika, rondell, widdershins)

for _family in FAMILY_MODULES:
    register_variants(_family.VARIANTS)


def list_envs() -> list[str]:
    """Every registered id, sorted."""
    return sorted(_REGISTRY)


def main_ids() -> list[str]:
    """Each family's main id (the first of its ``VARIANTS``), in ``FAMILY_MODULES`` order: the id
    that stands for the family on its docs page and in the fast test lane."""
    return [family.VARIANTS[0].env_id for family in FAMILY_MODULES]


def get_entry(env_id: str) -> EnvEntry:
    try:
        return _REGISTRY[env_id]
    except KeyError:
        close = difflib.get_close_matches(str(env_id), _REGISTRY, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise UnknownEnvError(
            f"unknown env id {env_id!r}.{hint} Registered ids: {', '.join(list_envs())}"
        ) from None


def make_game(env_id: str, **options: Any) -> Game:
    """The rules object of ``env_id`` with ``options`` overriding its preset."""
    entry = get_entry(env_id)
    env_only = [o.name for o in ENV_OPTIONS if o.name in options]
    if env_only:
        raise InvalidOptionError(
            f"{env_id}: {', '.join(env_only)} is an option of the env, not of the game; pass it to make()"
        )
    return entry.game_class(env_id, entry.preset, **options)


def game_of(env: Any, **options: Any) -> Game:
    """The rules object of ``env``: a registered id built with ``options``, a ``Game`` as it is,
    or the game of an env of this package (``make(...)``, ``gymnasium.make("mancala/...")``,
    the vector envs: ``env.unwrapped.game``, with the options it was made with).

    Options cannot be given with a ``Game`` or an env (its options are already chosen); that
    raises ``InvalidOptionError`` rather than ignoring them. Anything else raises
    ``InvalidOptionError`` saying what to pass.
    """
    if isinstance(env, str):
        return make_game(env, **options)
    game = env if isinstance(env, Game) else getattr(getattr(env, "unwrapped", None), "game", None)
    if not isinstance(game, Game):
        raise InvalidOptionError(
            f"expected an env id such as 'kalah-v0', a Game (make_game(...)) or an env made by this package "
            f"(make(...), gymnasium.make('mancala/...')), got {type(env).__name__}"
        )
    if options:
        kind = "a Game" if env is game else "an env"
        raise InvalidOptionError(
            f"options can only be given with an env id, not with {kind} object (got {', '.join(options)}); "
            f"its options are already chosen")
    return game


def parse_options(env_id: str, pairs: Sequence[str]) -> dict[str, Any]:
    """Typed game options of ``env_id`` from ``key=value`` strings (``["pits=4", "seeds=3"]``).

    The words of a command line such as ``mancala show kalah-v0 pits=4``. Env options
    (``illegal_action``) are accepted and left out, since they do not change the game; an
    unknown key or a bad value raises ``InvalidOptionError`` with the valid options.
    """
    entry = get_entry(env_id)
    options = parse_key_values(entry.game_options() + ENV_OPTIONS, pairs, env_id)
    env_only = {o.name for o in ENV_OPTIONS}
    return {k: v for k, v in options.items() if k not in env_only}


def make_game_from_args(env_id: str, pairs: Sequence[str]) -> Game:
    """The rules object of ``ID key=value ...``: ``make_game(env_id, **parse_options(env_id, pairs))``."""
    return make_game(env_id, **parse_options(env_id, pairs))


def split_env_options(env_id: str, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Separate env-wrapper options from game options; check the env ones."""
    env_opts = {}
    game_opts = dict(options)
    for opt in ENV_OPTIONS:
        value = game_opts.pop(opt.name, opt.default)
        env_opts[opt.name] = opt.check(value, env_id)
    return env_opts, game_opts


def make(env_id: str, render_mode: str | None = None, **options: Any):
    """The PettingZoo AEC env of ``env_id``, with PettingZoo's usual wrappers."""
    env_opts, game_opts = split_env_options(env_id, options)
    game = make_game(env_id, **game_opts)
    return wrap_env(game, render_mode=render_mode, **env_opts)


def raw_env(env_id: str, render_mode: str | None = None, **options: Any):
    """The unwrapped ``MancalaAEC`` of ``env_id`` (no order enforcing)."""
    env_opts, game_opts = split_env_options(env_id, options)
    if env_opts["illegal_action"] != "raise":
        raise InvalidOptionError(f"{env_id}: illegal_action={env_opts['illegal_action']!r} needs make(), not raw_env()")
    return MancalaAEC(make_game(env_id, **game_opts), render_mode=render_mode)
