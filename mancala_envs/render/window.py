"""A pygame window: the envs' ``render_mode="human"``, and where clicks become actions.

Clicks become actions through ``action_boxes``: every legal action of the player to move
gets a rectangle, the cell ``Game.action_cell`` names (split into a left and a right half
when the cell has a move each way) or a button under the board for a choice made off the
board. The interactive window of ``mancala play --window`` (``mancala_envs.cli.play_window``)
builds on these, so a test can click the centre of any action's box with ``pygame.event.post``
and run the window headless (``SDL_VIDEODRIVER=dummy``).
"""

from __future__ import annotations

from . import RenderUnavailableError, require_pygame

pygame = require_pygame()

class Window:
    """A display window that shows surfaces (one per process: pygame has one display)."""

    def __init__(self, title: str, size: tuple[int, int]):
        try:
            if not pygame.display.get_init():
                pygame.display.init()
            self.screen = pygame.display.set_mode(size)
        except pygame.error as err:
            pygame.display.quit()
            raise RenderUnavailableError(
                f"cannot open a window ({err}); without a display, play in the terminal (leave out --window) "
                f"or use render_mode='rgb_array'; SDL_VIDEODRIVER=dummy runs a window headless"
            ) from None
        pygame.display.set_caption(title)
        self.clock = pygame.time.Clock()
        self.open = True

    def show(self, surface, fps: float | None = None) -> None:
        if not self.open:
            return
        if self.screen.get_size() != surface.get_size():
            self.screen = pygame.display.set_mode(surface.get_size())
        self.screen.blit(surface, (0, 0))
        pygame.display.flip()
        pygame.event.pump()  # keep the window responsive between frames
        if fps:
            self.clock.tick(fps)

    def close(self) -> None:
        if self.open:
            pygame.display.quit()
            self.open = False


def action_boxes(state, layout, buttons: dict) -> dict:
    """``{action: pygame.Rect}`` for every legal action of the player to move in ``state``.

    ``layout`` is the ``BoardLayout`` of the drawn board, ``buttons`` the rectangles of the
    off-board actions. A cell with two moves is split: the half on the side the seeds go
    (counterclockwise is rightward on the near row and leftward on the far row).
    """
    game = state.game
    boxes = {}
    by_cell: dict = {}
    for action in state.legal_actions():
        cell, way = game.action_cell(state, action)
        if cell is None:
            boxes[action] = buttons[action]
        else:
            by_cell.setdefault(cell, []).append((action, way))
    for cell, moves in by_cell.items():
        rect = layout.cells[cell]
        if len(moves) == 1:
            boxes[moves[0][0]] = rect
            continue
        half = rect.w // 2
        for action, way in moves:
            rightward = (way == "ccw") == (cell in layout.near)
            if way not in ("ccw", "cw") or len(moves) != 2 or moves[0][1] == moves[1][1]:
                raise ValueError(f"{game.env_id}: cell {cell} has moves {moves}; only a ccw/cw pair can share a cell")
            boxes[action] = pygame.Rect(rect.left + (half if rightward else 0), rect.top, half, rect.h)
    return boxes


def action_at(boxes: dict, pos) -> int | None:
    """The action whose box holds ``pos`` (the nearest box centre where boxes overlap)."""
    hits = [(abs(rect.centerx - pos[0]) + abs(rect.centery - pos[1]), action)
            for action, rect in boxes.items() if rect.collidepoint(pos)]
    return min(hits)[1] if hits else None
