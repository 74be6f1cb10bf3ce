"""Pictures of every game: SVG, frames as numpy arrays, a window, GIFs of recorded games.

One description of the picture, ``render.picture`` (every position, size and colour, the
last-move ring), is painted twice: as SVG by ``render.svg`` (pure Python: ``State.to_svg``,
``_repr_svg_`` in notebooks, animated replays) and with pygame by ``render.draw`` (the frames,
the window). The SVG needs nothing beyond the package.

pygame is an optional dependency of the raster pictures: the ``render`` extra (``bash scripts/setup.sh render`` in a
clone; ``core.extras.install_command`` names the command that fits the install), which also
brings pillow for GIF and PNG files. It is imported here lazily, only when a picture is asked
for: the rules modules and the envs never import it, and the package works without it.
Asking for a picture without pygame raises ``RenderUnavailableError`` with the install line.

What a picture shows comes from the game as plain data (``Game.board_view`` and
``Game.action_cell``, documented in ``mancala_envs.core.game``); this package only draws it.

Frames
------
``render_frame(state, last=None)`` returns an ``(H, W, 3)`` ``uint8`` array. The size is
fixed per board layout, whatever the options (cells shrink to fit a larger board):

=================  ==============  ==========================================================
layout             W x H (pixels)  games
=================  ==============  ==========================================================
``two_rows``       800 x 360       every ``kalah-*`` id, ``afrika-v0``: two rows and the
                                   stores (Afrika: each side's captured stones)
``one_row``        960 x 320       ``progressive-*``: the single row and its Goal
``ring``           800 x 720       ``rondell-*``: the ring of piles, every card visible
``card_rows``      960 x 720       ``widdershins-*``: two rows of stacks, suits and ranks
=================  ==============  ==========================================================

Every frame shows the status line (whose turn and phase, or the result), the scores, the
ply, and the last move: its cell is ringed in orange and the footer names it. The state
of Rondell and Widdershins does not keep the last action, so it is passed in as a
``LastMove`` (``describe_move(state_before, action)``); the envs and ``mancala replay``
remember it for you.

The envs (``mancala_envs.env``, ``mancala_envs.gym``) use ``Painter``; ``mancala play
--window`` uses ``mancala_envs.render.window``; ``mancala replay FILE --gif OUT`` uses
``frames_of_game`` and ``save_gif``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import MancalaError
from ..core.extras import install_command
from ..core.files import atomic_output

if TYPE_CHECKING:  # pragma: no cover
    from ..core.game import Game, State

PICTURE_MODES = ("rgb_array", "human")
RENDER_FPS = 4

FRAME_SIZES: dict[str, tuple[int, int]] = {
    "two_rows": (800, 360),
    "one_row": (960, 320),
    "ring": (800, 720),
    "card_rows": (960, 720),
}
"""(width, height) of a frame, per board layout."""

FAMILY_LAYOUTS = {
    "kalah": "two_rows",
    "afrika": "two_rows",
    "progressive": "one_row",
    "rondell": "ring",
    "widdershins": "card_rows",
}

class RenderUnavailableError(MancalaError):
    """A picture was asked for, but pygame (or pillow, for files) is not installed."""


def require_pygame():
    """The pygame module; ``RenderUnavailableError`` naming the install line if it is missing."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError as err:
        raise RenderUnavailableError(
            f"pictures need pygame, which is not installed ({err}); "
            f"install it with {install_command('render')}"
        ) from None
    return pygame


def require_pillow():
    """The ``PIL.Image`` module; ``RenderUnavailableError`` naming the install line if missing."""
    try:
        from PIL import Image
    except ImportError as err:
        raise RenderUnavailableError(
            f"GIF and PNG files need pillow, which is not installed ({err}); "
            f"install it with {install_command('render')}"
        ) from None
    return Image


def layout_of(game: "Game") -> str:
    """The board layout of ``game`` (a key of ``FRAME_SIZES``)."""
    layout = FAMILY_LAYOUTS.get(game.family)
    if layout is None:
        layout = game.board_view(game.new_state(0))["layout"]
    return layout


def frame_size(game: "Game") -> tuple[int, int]:
    """(width, height) of ``game``'s frames."""
    return FRAME_SIZES[layout_of(game)]


@dataclass(frozen=True)
class LastMove:
    """A move as a picture shows it: who played it, the action, its name, and where."""

    player: int
    action: int
    name: str
    cell: str | None
    way: str = ""


def describe_move(state: "State", action: int) -> LastMove:
    """``action`` of the player to move in ``state`` (the position before the move)."""
    game = state.game
    cell, way = game.action_cell(state, int(action))
    return LastMove(state.current_player, int(action), game.action_to_string(state, int(action)), cell, way)


def moves_of_game(game: "Game", actions, seed: int | None = None) -> tuple[list["State"], list[LastMove]]:
    """Every position of a game from ``game.new_state(seed)`` and the move that led to each.

    Returns ``(positions, moves)`` with ``len(positions) == len(moves) + 1``; an illegal
    action raises ``IllegalActionError``.
    """
    state = game.new_state(seed)
    positions = [state.clone()]
    moves = []
    for action in actions:
        moves.append(describe_move(state, action))
        state.apply(int(action))
        positions.append(state.clone())
    return positions, moves


def render_frame(state: "State", last: LastMove | None = None, near_seat: int | None = None) -> np.ndarray:
    """The picture of ``state`` as an ``(H, W, 3)`` uint8 array (sizes in the module docstring).

    ``last`` is the move that led here (ringed in orange); ``near_seat`` turns a two-row
    board so that this seat's row is drawn nearest (default: the game's own drawing).
    """
    from .draw import draw_state, surface_to_array

    surface, _ = draw_state(state, last=last, near_seat=near_seat)
    return surface_to_array(surface)


def frames_of_game(game: "Game", actions, seed: int | None = None) -> list[np.ndarray]:
    """One frame per position of a recorded game (plies + 1 frames), last moves ringed."""
    positions, moves = moves_of_game(game, actions, seed)
    return [render_frame(p, moves[i - 1] if i else None) for i, p in enumerate(positions)]


def save_gif(frames: list[np.ndarray], path, fps: float = 2.0, hold_last: float = 2.0) -> None:
    """An animated GIF of ``frames``, written atomically (the last frame shown ``hold_last`` s)."""
    Image = require_pillow()
    if not frames:
        raise MancalaError("save_gif: no frames to write")
    if not fps > 0:
        raise MancalaError(f"save_gif: fps must be > 0, got {fps}")
    images = [Image.fromarray(f).quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
              for f in frames]
    durations = [int(round(1000 / fps))] * len(images)
    durations[-1] = max(durations[-1], int(round(1000 * hold_last)))
    with atomic_output(path) as tmp:
        images[0].save(tmp, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0,
                       optimize=False, disposal=1)


def save_png(frame: np.ndarray, path, colors: int | None = None) -> None:
    """One frame as a PNG file, written atomically; ``colors`` makes a smaller palette image."""
    Image = require_pillow()
    image = Image.fromarray(frame)
    if colors:
        image = image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    with atomic_output(path) as tmp:
        image.save(tmp, format="PNG", optimize=True)


def save_frames(frames: list[np.ndarray], directory, prefix: str = "frame") -> list[str]:
    """Each frame as ``DIR/frame-000.png``, ``frame-001.png``, ... (each written atomically)."""
    from pathlib import Path

    folder = Path(directory)
    width = max(3, len(str(len(frames) - 1)))
    paths = []
    for i, frame in enumerate(frames):
        path = folder / f"{prefix}-{i:0{width}d}.png"
        save_png(frame, path)
        paths.append(str(path))
    return paths


class Painter:
    """The pictures of one env: remembers the last move, draws frames, owns the window.

    The envs create one only for ``render_mode`` ``"rgb_array"`` or ``"human"``, so an env
    without pictures does no drawing work at all.
    """

    def __init__(self, game: "Game", mode: str):
        if mode not in PICTURE_MODES:
            raise MancalaError(f"Painter: mode must be one of {PICTURE_MODES}, got {mode!r}")
        require_pygame()
        self.game = game
        self.mode = mode
        self.last: LastMove | None = None
        self.window: Any = None

    @staticmethod
    def describe(state: "State", action: Any) -> LastMove | None:
        """``describe_move``, or None for a malformed or out-of-range action (``apply`` reports it)."""
        try:
            return describe_move(state, action)
        except (MancalaError, TypeError, ValueError):
            return None

    def apply(self, state: "State", action: Any) -> None:
        """``state.apply(action)``, remembering the move as the last one once it has been played."""
        move = self.describe(state, action)
        state.apply(action)
        self.last = move

    def forget(self) -> None:
        self.last = None

    def render(self, state: "State") -> np.ndarray | None:
        """The frame (``rgb_array``), or draw it in the window (``human``, returns None)."""
        if self.mode == "rgb_array":
            return render_frame(state, self.last)
        from .draw import draw_state
        from .window import Window

        surface, _ = draw_state(state, last=self.last)
        if self.window is None:
            self.window = Window(f"mancala: {self.game.env_id}", surface.get_size())
        self.window.show(surface, fps=RENDER_FPS)
        return None

    def close(self) -> None:
        if self.window is not None:
            self.window.close()
            self.window = None

    def __getstate__(self) -> dict:
        data = dict(self.__dict__)
        data["window"] = None  # a window is not copied with the env
        return data
