"""mancala-envs: mancala games as fast, rule-exact reinforcement-learning environments.

Quick use::

    import mancala_envs
    mancala_envs.list_envs()                       # every registered id
    env = mancala_envs.make("kalah-v0", pits=4)    # PettingZoo AEC env, any option overridden
    game = mancala_envs.make_game("kalah-v0")      # the rules object, no RL bookkeeping
    state = game.new_state(seed=0)
    state.apply(state.legal_actions()[0])

Importing the package registers every id with PettingZoo (``pettingzoo.make("aec",
"mancala/kalah-v0")``, and ``"parallel"``) and its single-agent version with Gymnasium
(``gymnasium.make("mancala/kalah-v0")``, and ``gymnasium.make_vec(..., num_envs=N)`` for the
numba vector env ``MancalaVectorEnv``).
"""

from .core.errors import (
    IllegalActionError,
    InvalidOptionError,
    InvalidStateError,
    MancalaError,
    NotationError,
    UnknownEnvError,
)
from .core.game import Game, Kernel, State
from .env import MancalaAEC
from .gym import MancalaGymEnv
from .vector_gym import MancalaVectorEnv
from .frameworks import register_all as _register_all
from .registry import get_entry, list_envs, make, make_game, make_game_from_args, parse_options, raw_env

__version__ = "0.1.0"

_register_all()

__all__ = [
    "Game",
    "IllegalActionError",
    "InvalidOptionError",
    "InvalidStateError",
    "Kernel",
    "MancalaAEC",
    "MancalaError",
    "MancalaGymEnv",
    "MancalaVectorEnv",
    "NotationError",
    "State",
    "UnknownEnvError",
    "get_entry",
    "list_envs",
    "make",
    "make_game",
    "make_game_from_args",
    "parse_options",
    "raw_env",
]
