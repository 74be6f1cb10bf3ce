"""The pygame painter: ``mancala_envs.render.picture``'s layout drawn on a ``pygame.Surface``.

Imported only when a picture is asked for (``mancala_envs.render`` imports it lazily), so
importing pygame at the top of this module is fine. ``draw_state`` draws on a surface of the
layout's fixed size (``FRAME_SIZES``) and returns where each cell was drawn (``BoardLayout``,
its rectangles as ``pygame.Rect``), which the window uses to turn clicks into actions. Every
position, size and colour comes from ``picture``; this module only knows pygame.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from . import LastMove, frame_size, require_pygame
from .picture import (  # noqa: F401  (the palette and layout names, for the window and its users)
    BACKGROUND, CARD_EDGE, CARD_FACE, FOCUS_COLOUR, HEADER_H, HINT_COLOUR, INK, LAST_COLOUR, LEGAL_COLOUR, MUTED,
    BoardLayout, card_face, draw_picture,
)
from .picture import text as place_text

pygame = require_pygame()


# -- text ----------------------------------------------------------------------------------------
_FONTS: dict = {}


def font(size: int, bold: bool = False):
    key = (size, bold)
    if key not in _FONTS:
        if not pygame.font.get_init():
            pygame.font.init()
        f = pygame.font.Font(None, size)
        f.set_bold(bold)
        _FONTS[key] = f
    return _FONTS[key]


def text(surface, words: str, pos, size: int = 20, colour=INK, anchor: str = "topleft", bold: bool = False,
         max_width: int | None = None):
    """Draw ``words`` on ``surface`` with its ``anchor`` at ``pos`` (``picture.text`` on a surface)."""
    return pygame.Rect(tuple(place_text(SurfaceCanvas(surface), words, pos, size, colour, anchor, bold, max_width)))


class SurfaceCanvas:
    """A ``picture`` canvas that draws on a ``pygame.Surface``."""

    def __init__(self, surface):
        self.surface = surface

    def fill(self, colour) -> None:
        self.surface.fill(colour)

    def rect(self, rect, colour, width: int = 0, radius: int = 0) -> None:
        pygame.draw.rect(self.surface, colour, tuple(rect), width, border_radius=radius)

    def ellipse(self, rect, colour, width: int = 0) -> None:
        pygame.draw.ellipse(self.surface, colour, tuple(rect), width)

    def circle(self, centre, radius, colour, width: int = 0) -> None:
        pygame.draw.circle(self.surface, colour, centre, radius, width)

    def polygon(self, points, colour) -> None:
        pygame.draw.polygon(self.surface, colour, points)

    def line(self, start, end, colour, width: int = 1) -> None:
        pygame.draw.line(self.surface, colour, start, end, width)

    def text_size(self, words: str, size: int, bold: bool) -> tuple[int, int]:
        return font(size, bold).size(words)

    def write(self, words: str, box, size: int, colour, bold: bool, align: str = "centre") -> None:
        image = font(size, bold).render(words, True, colour)
        if image.get_width() > box.w:
            image = image.subsurface((0, 0, box.w, image.get_height()))
        self.surface.blit(image, image.get_rect(center=box.center))

    def playing_card(self, name: str, rect, turned: bool) -> None:
        self.surface.blit(card_image(name, rect.w, rect.h, turned), (rect.x, rect.y))


_CARDS: dict = {}


def card_image(name: str, width: int, height: int, turned: bool):
    """A playing card (``picture.card_face``) as a surface; ``turned``: upside down. Cached."""
    key = (name, width, height, turned)
    if key not in _CARDS:
        card = pygame.Surface((width, height), pygame.SRCALPHA)
        card_face(SurfaceCanvas(card), name, width, height)
        _CARDS[key] = pygame.transform.rotate(card, 180) if turned else card
    return _CARDS[key]


def draw_state(state, last: LastMove | None = None, near_seat: int | None = None, hint: int | None = None,
               legal_cells: Iterable[str] = (), surface=None):
    """Draw ``state`` (``picture.draw_picture``); returns ``(surface, BoardLayout)``.

    ``last`` is ringed in orange, the cell of ``hint`` (an action) in green, ``legal_cells``
    get a light outline; ``near_seat`` turns a two-row board so that seat sits nearest.
    """
    if surface is None:
        surface = pygame.Surface(frame_size(state.game))
    layout = draw_picture(SurfaceCanvas(surface), state, last, near_seat, hint, legal_cells)
    layout.cells = {key: pygame.Rect(tuple(rect)) for key, rect in layout.cells.items()}
    return surface, layout


def surface_to_array(surface) -> np.ndarray:
    """An ``(H, W, 3)`` uint8 copy of ``surface``."""
    return np.ascontiguousarray(pygame.surfarray.array3d(surface).transpose(1, 0, 2), dtype=np.uint8)
