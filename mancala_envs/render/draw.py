"""Drawing a ``Game.board_view`` with pygame: one function per board layout.

Imported only when a picture is asked for (``mancala_envs.render`` imports it lazily), so
importing pygame at the top of this module is fine. Every function draws on a
``pygame.Surface`` of the layout's fixed size (``FRAME_SIZES``) and returns where each
cell was drawn (``BoardLayout``), which the window uses to turn clicks into actions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from . import FRAME_SIZES, LastMove, require_pygame

pygame = require_pygame()

# -- palette (RGB) -------------------------------------------------------------------------------
BACKGROUND, INK, MUTED = (244, 239, 229), (34, 34, 38), (112, 104, 96)  # paper, text, secondary text
WOOD, WOOD_EDGE, PIT, PIT_EDGE = (178, 126, 74), (120, 80, 42), (104, 66, 34), (74, 46, 22)  # the board
SEEDS = ((238, 234, 216), (214, 98, 74), (96, 150, 206), (232, 196, 82), (126, 184, 112))
# marks: the last move, a hint, the legal cells (window), a focus (setup hole, reserved pile), whose turn
LAST_COLOUR, HINT_COLOUR, LEGAL_COLOUR = (255, 136, 0), (24, 168, 88), (70, 150, 235)
FOCUS_COLOUR, TURN_COLOUR = (150, 70, 200), (30, 110, 210)
# cards: Rondell's red and blue, playing cards' red and black suits, the face and its edge
CARD_RED, CARD_BLUE, CARD_BLACK = (198, 40, 52), (38, 88, 196), (30, 30, 34)
CARD_FACE, CARD_EDGE = (252, 252, 248), (150, 150, 150)
OWNER_TINTS = ((214, 230, 250), (252, 226, 200))  # a cell owned by player_0, player_1

HEADER_H = 60


@dataclass
class BoardLayout:
    """Where a picture put things: each cell's rectangle, and which cells are in the near row."""

    size: tuple[int, int]
    cells: dict = field(default_factory=dict)  # cell key -> pygame.Rect
    near: set = field(default_factory=set)  # keys of the near (bottom) row: counterclockwise is rightward there


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
    """Draw ``words`` with its ``anchor`` (a pygame.Rect attribute) at ``pos``; shrink to ``max_width``."""
    while True:
        image = font(size, bold).render(words, True, colour)
        if max_width is None or image.get_width() <= max_width or size <= 11:
            break
        size -= 1
    if max_width is not None and image.get_width() > max_width:
        image = image.subsurface((0, 0, max_width, image.get_height()))
    rect = image.get_rect(**{anchor: (int(pos[0]), int(pos[1]))})
    surface.blit(image, rect)
    return rect


def outline(surface, rect, colour, width: int = 3, inset: int = 0, radius: int = 10) -> None:
    pygame.draw.rect(surface, colour, rect.inflate(-2 * inset, -2 * inset), width, border_radius=radius)


def arrow(surface, start, end, colour=MUTED, width: int = 3) -> None:
    """A line from ``start`` to ``end`` with a head at ``end`` (the fonts have no arrow glyph)."""
    pygame.draw.line(surface, colour, start, end, width)
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    size = 4 + 2 * width
    left = (end[0] - size * math.cos(angle - 0.5), end[1] - size * math.sin(angle - 0.5))
    right = (end[0] - size * math.cos(angle + 0.5), end[1] - size * math.sin(angle + 0.5))
    pygame.draw.polygon(surface, colour, [end, left, right])


# -- seeds -----------------------------------------------------------------------------------------
def seeds(surface, rect, count: int) -> None:
    """Seeds spread over the ellipse inscribed in ``rect``, as many as fit; the count in a badge."""
    radius = max(2.0, min(rect.w, rect.h) * 0.085)
    capacity = max(1, int(0.5 * (rect.w * rect.h) / (4 * radius * radius)))
    shown = min(count, capacity)
    spread = max(shown, 7)
    rx, ry = rect.w / 2 - radius - 3, rect.h / 2 - radius - 3
    for k in range(shown):
        rho = math.sqrt((k + 0.5) / spread)
        theta = k * 2.39996
        centre = (rect.centerx + rx * rho * math.cos(theta), rect.centery + ry * rho * math.sin(theta))
        pygame.draw.circle(surface, SEEDS[k % len(SEEDS)], centre, radius)
        pygame.draw.circle(surface, PIT_EDGE, centre, radius, 1)
    badge = font(20, True).render(str(count), True, (255, 255, 255))
    box = badge.get_rect().inflate(10, 4)
    box.bottomright = (rect.right + 2, rect.bottom + 2)
    pygame.draw.rect(surface, INK, box, border_radius=box.h // 2)
    surface.blit(badge, badge.get_rect(center=box.center))


def pit(surface, rect, count: int, oval: bool = False) -> None:
    """A hole (a circle in ``rect``, or an oval filling it) with its seeds."""
    if oval:
        body = rect.inflate(-8, -8)
    else:
        side = min(rect.w, rect.h) - 8
        body = pygame.Rect(0, 0, side, side)
        body.center = rect.center
    pygame.draw.ellipse(surface, PIT, body)
    pygame.draw.ellipse(surface, PIT_EDGE, body, 2)
    seeds(surface, body, count)


# -- cards -------------------------------------------------------------------------------------------
def suit_icon(surface, suit: str, centre, half: float, colour) -> None:
    """A vector suit sign (the default font has no suit glyphs)."""
    x, y, s = centre[0], centre[1], half
    if suit == "D":
        pygame.draw.polygon(surface, colour, [(x, y - s), (x + 0.75 * s, y), (x, y + s), (x - 0.75 * s, y)])
    elif suit == "H":
        for dx in (-0.45, 0.45):
            pygame.draw.circle(surface, colour, (x + dx * s, y - 0.25 * s), 0.5 * s)
        pygame.draw.polygon(surface, colour, [(x - 0.95 * s, y - 0.1 * s), (x + 0.95 * s, y - 0.1 * s), (x, y + s)])
    elif suit == "S":
        for dx in (-0.45, 0.45):
            pygame.draw.circle(surface, colour, (x + dx * s, y + 0.2 * s), 0.5 * s)
        pygame.draw.polygon(surface, colour, [(x - 0.95 * s, y + 0.1 * s), (x + 0.95 * s, y + 0.1 * s), (x, y - s)])
        pygame.draw.polygon(surface, colour, [(x, y + 0.2 * s), (x - 0.35 * s, y + s), (x + 0.35 * s, y + s)])
    else:  # clubs
        for dx, dy in ((0.0, -0.45), (-0.48, 0.1), (0.48, 0.1)):
            pygame.draw.circle(surface, colour, (x + dx * s, y + dy * s), 0.42 * s)
        pygame.draw.polygon(surface, colour, [(x, y), (x - 0.35 * s, y + s), (x + 0.35 * s, y + s)])


_CARDS: dict = {}


def card_face(name: str, width: int, height: int, turned: bool):
    """A playing card (``"10H"``) as a surface, the index at its top left; ``turned``: upside down."""
    key = (name, width, height, turned)
    if key in _CARDS:
        return _CARDS[key]
    rank, suit = name[:-1], name[-1]
    colour = CARD_RED if suit in "DH" else CARD_BLACK
    card = pygame.Surface((width, height), pygame.SRCALPHA)
    face = card.get_rect()
    pygame.draw.rect(card, CARD_FACE, face, border_radius=6)
    pygame.draw.rect(card, CARD_EDGE, face, 1, border_radius=6)
    size = max(12, int(width * 0.32))
    index = text(card, rank, (4, 3), size, colour, bold=True)
    suit_icon(card, suit, (index.right + size * 0.3 + 2, index.centery), size * 0.28, colour)
    suit_icon(card, suit, (width / 2, height * 0.6), width * 0.2, colour)
    if turned:
        card = pygame.transform.rotate(card, 180)
    _CARDS[key] = card
    return card


def colour_card(surface, rect, letter: str, show_letter: bool) -> None:
    """A Rondell card: red or blue, the colour's letter on the top card."""
    fill = CARD_RED if letter == "R" else CARD_BLUE
    pygame.draw.rect(surface, fill, rect, border_radius=4)
    pygame.draw.rect(surface, (255, 255, 255), rect, 1, border_radius=4)
    if show_letter:
        text(surface, letter, rect.center, max(12, rect.h - 8), (255, 255, 255), "center", bold=True)


def placeholder(surface, rect, words: str = "") -> None:
    """An empty place (a Widdershins vacancy, a Rondell pile that left the ring): a dashed frame."""
    for x in range(rect.left, rect.right, 8):
        pygame.draw.line(surface, MUTED, (x, rect.top), (min(x + 4, rect.right), rect.top))
        pygame.draw.line(surface, MUTED, (x, rect.bottom), (min(x + 4, rect.right), rect.bottom))
    for y in range(rect.top, rect.bottom, 8):
        pygame.draw.line(surface, MUTED, (rect.left, y), (rect.left, min(y + 4, rect.bottom)))
        pygame.draw.line(surface, MUTED, (rect.right, y), (rect.right, min(y + 4, rect.bottom)))
    if words:
        text(surface, words, rect.center, 16, MUTED, "center")


def fan_step(count: int, room: float, item: float, most: float, least: float = 3.0) -> tuple[float, int]:
    """Offset between stacked items and how many of them are drawn (the top ones) in ``room``."""
    if count <= 1:
        return most, count
    step = min(most, (room - item) / (count - 1))
    if step >= least:
        return step, count
    return least, max(1, int((room - item) / least) + 1)


# -- frame parts -------------------------------------------------------------------------------------
def header(surface, view: dict, title: str) -> None:
    width = surface.get_width()
    text(surface, view["status"], (16, 10), 25, INK, bold=True, max_width=width - 32)
    x = 16
    to_move = view["to_move"]
    for seat in (0, 1):
        if seat == to_move:
            pygame.draw.polygon(surface, TURN_COLOUR, [(x, 38), (x + 10, 44), (x, 50)])
        x += 14
        label = f"{view['seats'][seat]}: {view['scores'][seat]}"
        rect = text(surface, label, (x, 36), 21, TURN_COLOUR if seat == to_move else INK, bold=seat == to_move)
        x = rect.right + 24
    text(surface, f"({view['score_name']})", (x - 12, 37), 19, MUTED)
    text(surface, title, (width - 16, 37), 19, MUTED, "topright")
    pygame.draw.line(surface, (220, 212, 198), (0, HEADER_H - 2), (width, HEADER_H - 2), 2)


def footer_height(view: dict) -> int:
    return 34 + 20 * len(view["details"])


def footer(surface, view: dict, last: LastMove | None) -> None:
    width, height = surface.get_size()
    y = height - footer_height(view) + 8
    if last is None:
        text(surface, "last move: none yet", (16, y), 20, MUTED)
    else:
        pygame.draw.rect(surface, LAST_COLOUR, (16, y + 2, 12, 12), border_radius=3)
        who = view["seats"][last.player] if last.player in (0, 1) else "?"
        text(surface, f"last move: {who} played {last.name}", (34, y), 20, INK, max_width=width - 50)
    for line in view["details"]:
        y += 20
        text(surface, line, (16, y + 2), 18, MUTED, max_width=width - 32)


def board_area(surface, view: dict):
    width, height = surface.get_size()
    return pygame.Rect(0, HEADER_H, width, height - HEADER_H - footer_height(view))


# -- layouts -------------------------------------------------------------------------------------------
def draw_two_rows(surface, view: dict, layout: BoardLayout) -> None:
    """Kalah and Afrika: two rows of holes; stores at the ends, or a box at the end of each row."""
    area = board_area(surface, view)
    cells = view["cells"]
    far, near = view["rows"]
    n = len(far)
    titles = view["row_titles"] or ["", ""]
    text(surface, titles[0], (20, area.top + 4), 19, MUTED)
    text(surface, titles[1], (20, area.bottom - 22), 19, MUTED)
    board = pygame.Rect(16, area.top + 44, area.w - 32, area.h - 88)
    pygame.draw.rect(surface, WOOD, board, border_radius=24)
    pygame.draw.rect(surface, WOOD_EDGE, board, 3, border_radius=24)
    inner = board.inflate(-16, -12)
    stores = view.get("stores") or [None, None]
    ends = view.get("row_ends") or [None, None]
    side_w = int(min(110, inner.w * 0.13))
    left_w = side_w if stores[0] else 0
    right_w = side_w if stores[1] else (int(side_w * 1.2) if any(ends) else 0)
    x0 = inner.left + left_w + (8 if left_w else 0)
    x1 = inner.right - right_w - (8 if right_w else 0)
    col_w = (x1 - x0) / n
    row_h = inner.h / 2
    for r, row in enumerate((far, near)):
        for c, key in enumerate(row):
            rect = pygame.Rect(round(x0 + c * col_w), round(inner.top + r * row_h), round(col_w), round(row_h))
            layout.cells[key] = rect
            if r == 1:
                layout.near.add(key)
            pit(surface, rect, cells[key]["count"])
            label_y = board.top - 4 if r == 0 else board.bottom + 4
            text(surface, cells[key]["label"], (rect.centerx, label_y), 20, INK, "midbottom" if r == 0 else "midtop",
                 bold=True)
    for side, key in enumerate(stores):
        if key:
            rect = pygame.Rect(inner.left if side == 0 else inner.right - side_w, inner.top, side_w, inner.h)
            layout.cells[key] = rect
            pit(surface, rect, cells[key]["count"], oval=True)
    for r, key in enumerate(ends):
        if key:
            rect = pygame.Rect(inner.right - right_w, round(inner.top + r * row_h), right_w, round(row_h))
            layout.cells[key] = rect
            tray = rect.inflate(-6, -8)
            pygame.draw.rect(surface, PIT, tray, border_radius=12)
            pygame.draw.rect(surface, PIT_EDGE, tray, 2, border_radius=12)
            seeds(surface, tray.inflate(-6, -16).move(0, 6), cells[key]["count"])
            text(surface, "captured", (tray.centerx, tray.top + 2), 16, (240, 230, 210), "midtop")


def draw_one_row(surface, view: dict, layout: BoardLayout) -> None:
    """Progressive Mancala: one row of holes, the shared Goal beside the central hole."""
    area = board_area(surface, view)
    cells = view["cells"]
    (row,) = view["rows"]
    n = len(row)
    col_w = min(84.0, (area.w - 48) / n)
    row_h = min(col_w, 80.0)
    x0 = (area.w - col_w * n) / 2
    goal_h = max(50, min(96, area.h - row_h - 70))
    goal_w = max(110, col_w * 1.6)
    centre = x0 + col_w * (n // 2) + col_w / 2
    top = area.top + max(6, (area.h - goal_h - row_h - 70) / 2)
    goal = pygame.Rect(round(centre - goal_w / 2), round(top), round(goal_w), round(goal_h))
    board = pygame.Rect(round(x0 - 12), round(goal.bottom - 4), round(col_w * n + 24), round(row_h + 16))
    pygame.draw.rect(surface, WOOD, goal.inflate(16, 14), border_radius=30)
    pygame.draw.rect(surface, WOOD_EDGE, goal.inflate(16, 14), 3, border_radius=30)
    pygame.draw.rect(surface, WOOD, board, border_radius=20)
    pygame.draw.rect(surface, WOOD_EDGE, board, 3, border_radius=20)
    pygame.draw.rect(surface, WOOD, goal.inflate(12, 10).clip(board.inflate(0, 40)), border_radius=20)
    layout.cells[view["goal"]] = goal
    pit(surface, goal, cells[view["goal"]]["count"], oval=True)
    text(surface, "Goal", (goal.left - 16, goal.centery), 20, INK, "midright", bold=True)
    y = board.top + 8
    for c, key in enumerate(row):
        rect = pygame.Rect(round(x0 + c * col_w), round(y), round(col_w), round(row_h))
        layout.cells[key] = rect
        layout.near.add(key)
        pit(surface, rect, cells[key]["count"])
        text(surface, cells[key]["label"], (rect.centerx, board.bottom + 4), 20, INK, "midtop", bold=True)
    titles = view["row_titles"] or ["", ""]
    y = board.bottom + 30
    left = text(surface, titles[0], (board.left, y), 19, MUTED)
    arrow(surface, (left.right + 8, left.centery), (left.right + 44, left.centery))
    right = text(surface, titles[1], (board.right, y), 19, MUTED, "topright")
    arrow(surface, (right.left - 8, right.centery), (right.left - 44, right.centery))


def draw_ring(surface, view: dict, layout: BoardLayout) -> None:
    """Rondell: the ring of piles seen from above, numbered counterclockwise, every card visible.

    Each pile's cards fan outward from the ring, the top card farthest out; the pile's
    number and height sit just inside the ring.
    """
    area = board_area(surface, view)
    cells = view["cells"]
    (ring,) = view["rows"]
    count = len(ring)
    cx, cy = area.centerx, area.centery
    rx, ry = area.w / 2 - 150, area.h / 2 - 125
    card_w = int(max(20, min(46, 2 * math.pi * min(rx, ry) / count * 0.55)))
    card_h = int(card_w * 0.62)
    pygame.draw.ellipse(surface, WOOD, pygame.Rect(cx - rx, cy - ry, 2 * rx, 2 * ry), 12)
    offset = (count // 2 - 1) / 2
    angles = [math.radians(270 + 360 / count * (i - offset)) for i in range(count)]
    for i in range(count):  # counterclockwise arrows between the piles
        mid = angles[i] + math.pi / count
        a, b = mid - 0.05, mid + 0.05
        arrow(surface, (cx + rx * math.cos(a), cy - ry * math.sin(a)), (cx + rx * math.cos(b), cy - ry * math.sin(b)),
              WOOD_EDGE, 3)
    scores = view["scores"]
    text(surface, f"{scores[0]} : {scores[1]}", (cx, cy - 10), 56, INK, "center", bold=True)
    text(surface, f"{view['score_name']}, player_0 : player_1", (cx, cy + 26), 20, MUTED, "center")
    for i, key in enumerate(ring):
        cell = cells[key]
        dx, dy = math.cos(angles[i]), -math.sin(angles[i])
        bx, by = cx + rx * dx, cy - ry * math.sin(angles[i])
        extent = abs(dx) * card_w + abs(dy) * card_h  # a card's length along the fan
        travel = min(
            ((area.right - 6 - card_w / 2 - bx) / dx if dx > 1e-9 else (area.left + 6 + card_w / 2 - bx) / dx
             if dx < -1e-9 else math.inf),
            ((area.bottom - 6 - card_h / 2 - by) / dy if dy > 1e-9 else (area.top + 6 + card_h / 2 - by) / dy
             if dy < -1e-9 else math.inf),
        ) - extent / 2 - 4
        label = pygame.Rect(0, 0, 56, 20)
        label.center = (round(bx - dx * 18), round(by - dy * 16))
        owner = cell.get("owner")
        pygame.draw.rect(surface, OWNER_TINTS[owner] if owner is not None else BACKGROUND, label, border_radius=5)
        text(surface, cell["label"], (label.left + 4, label.centery), 18, INK, "midleft", bold=True)
        text(surface, str(cell["count"]), (label.right - 4, label.centery), 16, MUTED, "midright")
        cards = cell.get("cards") or []
        first = (bx + dx * (extent / 2 + 4), by + dy * (extent / 2 + 4))
        drawn = pygame.Rect(0, 0, card_w, card_h)
        drawn.center = (round(first[0]), round(first[1]))
        if not cards:
            placeholder(surface, drawn, "gone")
        else:
            step, shown = fan_step(len(cards), travel + extent, extent, extent * 0.45)
            for k, letter in enumerate(cards[len(cards) - shown:]):
                rect = pygame.Rect(0, 0, card_w, card_h)
                rect.center = (round(first[0] + dx * k * step), round(first[1] + dy * k * step))
                colour_card(surface, rect, letter, k == shown - 1)
                drawn.union_ip(rect)
            if shown < len(cards):
                text(surface, f"+{len(cards) - shown}", (label.centerx, label.bottom + 1), 15, MUTED, "midtop")
        layout.cells[key] = drawn.union(label).inflate(6, 6)


def draw_card_rows(surface, view: dict, layout: BoardLayout) -> None:
    """Widdershins: two rows of six stacks, cards face up, each row's cards facing its player."""
    area = board_area(surface, view)
    cells = view["cells"]
    far, near = view["rows"]
    middle = area.centery
    pygame.draw.line(surface, (214, 204, 188), (16, middle), (area.w - 16, middle), 2)
    col_w = (area.w - 32) / len(far)
    card_w = int(min(84, col_w * 0.58))
    card_h = int(card_w * 1.4)
    titles = view["row_titles"] or ["", ""]
    text(surface, titles[0], (18, area.top + 4), 19, MUTED)
    text(surface, titles[1], (18, area.bottom - 22), 19, MUTED)
    for r, row in enumerate((far, near)):
        region = (pygame.Rect(16, area.top + 26, area.w - 32, middle - area.top - 28) if r == 0
                  else pygame.Rect(16, middle + 2, area.w - 32, area.bottom - middle - 28))
        for c, key in enumerate(row):
            column = pygame.Rect(round(region.left + c * col_w), region.top, round(col_w), region.h)
            layout.cells[key] = column
            if r == 1:
                layout.near.add(key)
            cell = cells[key]
            label = pygame.Rect(column.left + 6, column.bottom - 24 if r == 0 else column.top + 2, column.w - 12, 22)
            owner = cell.get("owner")
            if owner is not None:
                pygame.draw.rect(surface, OWNER_TINTS[owner], label, border_radius=5)
            text(surface, cell["label"], (label.left + 4, label.centery), 19, INK, "midleft", bold=True)
            whose = "" if owner is None else (view["seats"][owner].split(" (")[-1].rstrip(")") + "'s")
            text(surface, f"{cell['count']} {whose}".strip(), (label.right - 4, label.centery), 16, MUTED, "midright")
            cards = cell.get("cards") or []
            room = region.h - label.h - 10
            x = column.centerx - card_w // 2
            if not cards:
                y = label.top - 4 - card_h if r == 0 else label.bottom + 4
                placeholder(surface, pygame.Rect(x, y, card_w, card_h), "vacant")
                continue
            step, shown = fan_step(len(cards), room, card_h, card_h * 0.3, 5)
            for k, name in enumerate(cards[len(cards) - shown:]):
                if r == 0:
                    y = label.top - 4 - card_h - k * step
                else:
                    y = label.bottom + 4 + k * step
                surface.blit(card_face(name, card_w, card_h, turned=r == 0), (x, round(y)))
            if shown < len(cards):
                y = label.top - 6 if r == 0 else label.bottom + 6
                text(surface, f"+{len(cards) - shown}", (x - 4, y), 15, MUTED, "bottomright" if r == 0 else "topright")


DRAWERS = {"two_rows": draw_two_rows, "one_row": draw_one_row, "ring": draw_ring, "card_rows": draw_card_rows}


# -- the whole picture ---------------------------------------------------------------------------------
def turned(view: dict) -> dict:
    """The same two-row board seen from the other side (turned half round)."""
    out = dict(view)
    far, near = view["rows"]
    out["rows"] = [list(reversed(near)), list(reversed(far))]
    for key in ("stores", "row_ends", "row_titles"):
        if view.get(key):
            out[key] = list(reversed(view[key]))
    out["near_seat"] = 1 - view["near_seat"]
    return out


def draw_state(state, last: LastMove | None = None, near_seat: int | None = None, hint: int | None = None,
               legal_cells: Iterable[str] = (), surface=None):
    """Draw ``state``; returns ``(surface, BoardLayout)``.

    ``last`` is ringed in orange, the cell of ``hint`` (an action) in green, ``legal_cells``
    get a light outline; ``near_seat`` turns a two-row board so that seat sits nearest.
    """
    game = state.game
    view = game.board_view(state)
    if near_seat is not None and view.get("near_seat") is not None and near_seat != view["near_seat"]:
        view = turned(view)
    size = FRAME_SIZES[view["layout"]]
    if surface is None:
        surface = pygame.Surface(size)
    surface.fill(BACKGROUND)
    layout = BoardLayout(size)
    header(surface, view, f"{game.env_id}  ply {state.plies}")
    DRAWERS[view["layout"]](surface, view, layout)
    footer(surface, view, last)
    cells = layout.cells
    for key in legal_cells:
        if key in cells:
            outline(surface, cells[key], LEGAL_COLOUR, 2, 3)
    for key in view["focus"]:
        if key in cells:
            outline(surface, cells[key], FOCUS_COLOUR, 3, 2)
    for key, words in view["marks"].items():
        if key in cells:
            rect = cells[key]
            image = font(16, True).render(words, True, (255, 255, 255))
            box = image.get_rect().inflate(10, 4)
            box.midtop = (rect.centerx, rect.top + 2)
            pygame.draw.rect(surface, FOCUS_COLOUR, box, border_radius=box.h // 2)
            surface.blit(image, image.get_rect(center=box.center))
    if hint is not None:
        key, _ = game.action_cell(state, hint)
        if key in cells:
            outline(surface, cells[key], HINT_COLOUR, 4, 5)
    if last is not None and last.cell in cells:
        outline(surface, cells[last.cell], LAST_COLOUR, 4, 0)
    return surface, layout


def surface_to_array(surface) -> np.ndarray:
    """An ``(H, W, 3)`` uint8 copy of ``surface``."""
    return np.ascontiguousarray(pygame.surfarray.array3d(surface).transpose(1, 0, 2), dtype=np.uint8)
