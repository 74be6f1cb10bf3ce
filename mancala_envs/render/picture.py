"""What a picture of a position holds, and where: the one layout both painters draw.

Every picture (the pygame frames of ``mancala_envs.render.draw`` and the SVG of
``mancala_envs.render.svg``) comes from ``draw_picture(canvas, state, ...)``: the header, one
function per board layout (``two_rows``, ``one_row``, ``ring``, ``card_rows``), the footer and
the marks (the last move ringed in orange, a hint, the legal cells, a focus). These functions
hold every position, size and colour; they draw through a *canvas*, which only knows how to
put a shape on its medium. Neither this module nor the SVG painter needs pygame.

A canvas has these methods (coordinates in pixels of the layout's ``FRAME_SIZES``; colours
are RGB triples; ``width=0`` fills the shape, otherwise it is the outline's width)::

    fill(colour)                                   the background
    rect(rect, colour, width=0, radius=0)          a rectangle, corners rounded by radius
    ellipse(rect, colour, width=0)                 the ellipse inscribed in rect
    circle(centre, radius, colour, width=0)
    polygon(points, colour)                        filled
    line(start, end, colour, width=1)
    text_size(words, size, bold) -> (w, h)         the box the words take at that size
    write(words, box, size, colour, bold, align)   the words in box (a Rect): centred, or against its
                                                   left or right side (align "left", "right")
    playing_card(name, rect, turned)               a card face (``card_face`` on a sub-canvas)

``text`` (below) places words by an anchor and shrinks them to a width using
``text_size``, so both painters agree on where text goes; each measures its own fonts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

from . import FRAME_SIZES, LastMove

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
RULE, FAINT_RULE, WHITE, TRAY_TEXT = (220, 212, 198), (214, 204, 188), (255, 255, 255), (240, 230, 210)

HEADER_H = 60


def _half(n: int) -> int:
    """Half of an integer, rounded toward zero (how a pygame.Rect inflates)."""
    return int(n / 2)


class Rect:
    """An integer rectangle with the parts of ``pygame.Rect`` the layouts use."""

    __slots__ = ("x", "y", "w", "h")

    def __init__(self, x, y, w, h):
        self.x, self.y, self.w, self.h = int(x), int(y), int(w), int(h)

    def __repr__(self) -> str:
        return f"Rect({self.x}, {self.y}, {self.w}, {self.h})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Rect) and (self.x, self.y, self.w, self.h) == (other.x, other.y, other.w, other.h)

    def __iter__(self):
        return iter((self.x, self.y, self.w, self.h))

    left = property(lambda r: r.x)
    top = property(lambda r: r.y)
    right = property(lambda r: r.x + r.w)
    bottom = property(lambda r: r.y + r.h)
    centerx = property(lambda r: r.x + r.w // 2)
    centery = property(lambda r: r.y + r.h // 2)
    center = property(lambda r: (r.centerx, r.centery))

    def copy(self) -> "Rect":
        return Rect(self.x, self.y, self.w, self.h)

    def inflate(self, dx, dy) -> "Rect":
        dx, dy = int(dx), int(dy)
        return Rect(self.x - _half(dx), self.y - _half(dy), self.w + dx, self.h + dy)

    def move(self, dx, dy) -> "Rect":
        return Rect(self.x + dx, self.y + dy, self.w, self.h)

    def union(self, other: "Rect") -> "Rect":
        x, y = min(self.x, other.x), min(self.y, other.y)
        return Rect(x, y, max(self.right, other.right) - x, max(self.bottom, other.bottom) - y)

    def clip(self, other: "Rect") -> "Rect":
        x, y = max(self.x, other.x), max(self.y, other.y)
        right, bottom = min(self.right, other.right), min(self.bottom, other.bottom)
        if right <= x or bottom <= y:
            return Rect(self.x, self.y, 0, 0)
        return Rect(x, y, right - x, bottom - y)

    def centred(self, centre) -> "Rect":
        """The same size, centred on ``centre``."""
        return Rect(int(centre[0]) - self.w // 2, int(centre[1]) - self.h // 2, self.w, self.h)

    def collidepoint(self, pos) -> bool:
        return self.x <= pos[0] < self.right and self.y <= pos[1] < self.bottom

    @staticmethod
    def anchored(size, anchor: str, pos) -> "Rect":
        """A rectangle of ``size`` whose ``anchor`` (a pygame.Rect point name) is at ``pos``."""
        w, h = int(size[0]), int(size[1])
        x, y = int(pos[0]), int(pos[1])
        horizontal = {"left": x, "right": x - w, "center": x - w // 2, "mid": x - w // 2}
        vertical = {"top": y, "bottom": y - h, "center": y - h // 2}
        if anchor == "center":
            return Rect(x - w // 2, y - h // 2, w, h)
        if anchor in ("midleft", "midright"):
            return Rect(horizontal[anchor[3:]], y - h // 2, w, h)
        if anchor in ("midtop", "midbottom"):
            return Rect(x - w // 2, vertical[anchor[3:]], w, h)
        for v in ("top", "bottom"):
            if anchor.startswith(v):
                return Rect(horizontal[anchor[len(v):]], vertical[v], w, h)
        raise ValueError(f"unknown anchor {anchor!r}")


@dataclass
class BoardLayout:
    """Where a picture put things: each cell's rectangle, and which cells are in the near row."""

    size: tuple[int, int]
    cells: dict = field(default_factory=dict)  # cell key -> Rect
    near: set = field(default_factory=set)  # keys of the near (bottom) row: counterclockwise is rightward there


# -- text and shapes -------------------------------------------------------------------------------
def text(canvas, words: str, pos, size: int = 20, colour=INK, anchor: str = "topleft", bold: bool = False,
         max_width: int | None = None) -> Rect:
    """Write ``words`` with its ``anchor`` (a pygame.Rect point) at ``pos``; shrink to ``max_width``."""
    while True:
        w, h = canvas.text_size(words, size, bold)
        if max_width is None or w <= max_width or size <= 11:
            break
        size -= 1
    if max_width is not None:
        w = min(w, max_width)
    box = Rect.anchored((w, h), anchor, pos)
    align = "left" if anchor.endswith("left") else "right" if anchor.endswith("right") else "centre"
    canvas.write(words, box, size, colour, bold, align)
    return box


def outline(canvas, rect: Rect, colour, width: int = 3, inset: int = 0, radius: int = 10) -> None:
    canvas.rect(rect.inflate(-2 * inset, -2 * inset), colour, width, radius)


def arrow(canvas, start, end, colour=MUTED, width: int = 3) -> None:
    """A line from ``start`` to ``end`` with a head at ``end`` (the fonts have no arrow glyph)."""
    canvas.line(start, end, colour, width)
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    size = 4 + 2 * width
    left = (end[0] - size * math.cos(angle - 0.5), end[1] - size * math.sin(angle - 0.5))
    right = (end[0] - size * math.cos(angle + 0.5), end[1] - size * math.sin(angle + 0.5))
    canvas.polygon([end, left, right], colour)


def badge(canvas, words: str, size: int, fill, colour=WHITE, **place) -> Rect:
    """Words on a pill of ``fill``; ``place`` is one pygame.Rect point of the pill (``midtop=(x, y)``)."""
    w, h = canvas.text_size(words, size, True)
    ((anchor, pos),) = place.items()
    box = Rect.anchored((w + 10, h + 4), anchor, pos)
    canvas.rect(box, fill, 0, box.h // 2)
    canvas.write(words, box, size, colour, True, "centre")
    return box


# -- seeds -----------------------------------------------------------------------------------------
def seeds(canvas, rect: Rect, count: int) -> None:
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
        canvas.circle(centre, radius, SEEDS[k % len(SEEDS)])
        canvas.circle(centre, radius, PIT_EDGE, 1)
    badge(canvas, str(count), 20, INK, bottomright=(rect.right + 2, rect.bottom + 2))


def pit(canvas, rect: Rect, count: int, oval: bool = False) -> None:
    """A hole (a circle in ``rect``, or an oval filling it) with its seeds."""
    if oval:
        body = rect.inflate(-8, -8)
    else:
        side = min(rect.w, rect.h) - 8
        body = Rect(0, 0, side, side).centred(rect.center)
    canvas.ellipse(body, PIT)
    canvas.ellipse(body, PIT_EDGE, 2)
    seeds(canvas, body, count)


# -- cards -------------------------------------------------------------------------------------------
def suit_icon(canvas, suit: str, centre, half: float, colour) -> None:
    """A vector suit sign (the default font has no suit glyphs)."""
    x, y, s = centre[0], centre[1], half
    if suit == "D":
        canvas.polygon([(x, y - s), (x + 0.75 * s, y), (x, y + s), (x - 0.75 * s, y)], colour)
    elif suit == "H":
        for dx in (-0.45, 0.45):
            canvas.circle((x + dx * s, y - 0.25 * s), 0.5 * s, colour)
        canvas.polygon([(x - 0.95 * s, y - 0.1 * s), (x + 0.95 * s, y - 0.1 * s), (x, y + s)], colour)
    elif suit == "S":
        for dx in (-0.45, 0.45):
            canvas.circle((x + dx * s, y + 0.2 * s), 0.5 * s, colour)
        canvas.polygon([(x - 0.95 * s, y + 0.1 * s), (x + 0.95 * s, y + 0.1 * s), (x, y - s)], colour)
        canvas.polygon([(x, y + 0.2 * s), (x - 0.35 * s, y + s), (x + 0.35 * s, y + s)], colour)
    else:  # clubs
        for dx, dy in ((0.0, -0.45), (-0.48, 0.1), (0.48, 0.1)):
            canvas.circle((x + dx * s, y + dy * s), 0.42 * s, colour)
        canvas.polygon([(x, y), (x - 0.35 * s, y + s), (x + 0.35 * s, y + s)], colour)


def card_face(canvas, name: str, width: int, height: int) -> None:
    """A playing card (``"10H"``) at (0, 0) of ``canvas``, the index at its top left."""
    rank, suit = name[:-1], name[-1]
    colour = CARD_RED if suit in "DH" else CARD_BLACK
    face = Rect(0, 0, width, height)
    canvas.rect(face, CARD_FACE, 0, 6)
    canvas.rect(face, CARD_EDGE, 1, 6)
    size = max(12, int(width * 0.32))
    index = text(canvas, rank, (4, 3), size, colour, bold=True)
    suit_icon(canvas, suit, (index.right + size * 0.3 + 2, index.centery), size * 0.28, colour)
    suit_icon(canvas, suit, (width / 2, height * 0.6), width * 0.2, colour)


def colour_card(canvas, rect: Rect, letter: str, show_letter: bool) -> None:
    """A Rondell card: red or blue, the colour's letter on the top card."""
    canvas.rect(rect, CARD_RED if letter == "R" else CARD_BLUE, 0, 4)
    canvas.rect(rect, WHITE, 1, 4)
    if show_letter:
        text(canvas, letter, rect.center, max(12, rect.h - 8), WHITE, "center", bold=True)


def placeholder(canvas, rect: Rect, words: str = "") -> None:
    """An empty place (a Widdershins vacancy, a Rondell pile that left the ring): a dashed frame."""
    for x in range(rect.left, rect.right, 8):
        canvas.line((x, rect.top), (min(x + 4, rect.right), rect.top), MUTED)
        canvas.line((x, rect.bottom), (min(x + 4, rect.right), rect.bottom), MUTED)
    for y in range(rect.top, rect.bottom, 8):
        canvas.line((rect.left, y), (rect.left, min(y + 4, rect.bottom)), MUTED)
        canvas.line((rect.right, y), (rect.right, min(y + 4, rect.bottom)), MUTED)
    if words:
        text(canvas, words, rect.center, 16, MUTED, "center")


def fan_step(count: int, room: float, item: float, most: float, least: float = 3.0) -> tuple[float, int]:
    """Offset between stacked items and how many of them are drawn (the top ones) in ``room``."""
    if count <= 1:
        return most, count
    step = min(most, (room - item) / (count - 1))
    if step >= least:
        return step, count
    return least, max(1, int((room - item) / least) + 1)


# -- frame parts -------------------------------------------------------------------------------------
def header(canvas, size, view: dict, title: str) -> None:
    width = size[0]
    text(canvas, view["status"], (16, 10), 25, INK, bold=True, max_width=width - 32)
    x = 16
    to_move = view["to_move"]
    for seat in (0, 1):
        if seat == to_move:
            canvas.polygon([(x, 38), (x + 10, 44), (x, 50)], TURN_COLOUR)
        x += 14
        label = f"{view['seats'][seat]}: {view['scores'][seat]}"
        rect = text(canvas, label, (x, 36), 21, TURN_COLOUR if seat == to_move else INK, bold=seat == to_move)
        x = rect.right + 24
    text(canvas, f"({view['score_name']})", (x - 12, 37), 19, MUTED)
    text(canvas, title, (width - 16, 37), 19, MUTED, "topright")
    canvas.line((0, HEADER_H - 2), (width, HEADER_H - 2), RULE, 2)


def footer_height(view: dict) -> int:
    return 34 + 20 * len(view["details"])


def footer(canvas, size, view: dict, last: LastMove | None) -> None:
    width, height = size
    y = height - footer_height(view) + 8
    if last is None:
        text(canvas, "last move: none yet", (16, y), 20, MUTED)
    else:
        canvas.rect(Rect(16, y + 2, 12, 12), LAST_COLOUR, 0, 3)
        who = view["seats"][last.player] if last.player in (0, 1) else "?"
        text(canvas, f"last move: {who} played {last.name}", (34, y), 20, INK, max_width=width - 50)
    for line in view["details"]:
        y += 20
        text(canvas, line, (16, y + 2), 18, MUTED, max_width=width - 32)


def board_area(size, view: dict) -> Rect:
    width, height = size
    return Rect(0, HEADER_H, width, height - HEADER_H - footer_height(view))


# -- layouts -------------------------------------------------------------------------------------------
def draw_two_rows(canvas, view: dict, layout: BoardLayout) -> None:
    """Kalah and Afrika: two rows of holes; stores at the ends, or a box at the end of each row."""
    area = board_area(layout.size, view)
    cells = view["cells"]
    far, near = view["rows"]
    n = len(far)
    titles = view["row_titles"] or ["", ""]
    text(canvas, titles[0], (20, area.top + 4), 19, MUTED)
    text(canvas, titles[1], (20, area.bottom - 22), 19, MUTED)
    board = Rect(16, area.top + 44, area.w - 32, area.h - 88)
    canvas.rect(board, WOOD, 0, 24)
    canvas.rect(board, WOOD_EDGE, 3, 24)
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
            rect = Rect(round(x0 + c * col_w), round(inner.top + r * row_h), round(col_w), round(row_h))
            layout.cells[key] = rect
            if r == 1:
                layout.near.add(key)
            pit(canvas, rect, cells[key]["count"])
            label_y = board.top - 4 if r == 0 else board.bottom + 4
            text(canvas, cells[key]["label"], (rect.centerx, label_y), 20, INK, "midbottom" if r == 0 else "midtop",
                 bold=True)
    for side, key in enumerate(stores):
        if key:
            rect = Rect(inner.left if side == 0 else inner.right - side_w, inner.top, side_w, inner.h)
            layout.cells[key] = rect
            pit(canvas, rect, cells[key]["count"], oval=True)
    for r, key in enumerate(ends):
        if key:
            rect = Rect(inner.right - right_w, round(inner.top + r * row_h), right_w, round(row_h))
            layout.cells[key] = rect
            tray = rect.inflate(-6, -8)
            canvas.rect(tray, PIT, 0, 12)
            canvas.rect(tray, PIT_EDGE, 2, 12)
            seeds(canvas, tray.inflate(-6, -16).move(0, 6), cells[key]["count"])
            text(canvas, "captured", (tray.centerx, tray.top + 2), 16, TRAY_TEXT, "midtop")


def draw_one_row(canvas, view: dict, layout: BoardLayout) -> None:
    """Progressive Mancala: one row of holes, the shared Goal beside the central hole."""
    area = board_area(layout.size, view)
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
    goal = Rect(round(centre - goal_w / 2), round(top), round(goal_w), round(goal_h))
    board = Rect(round(x0 - 12), round(goal.bottom - 4), round(col_w * n + 24), round(row_h + 16))
    canvas.rect(goal.inflate(16, 14), WOOD, 0, 30)
    canvas.rect(goal.inflate(16, 14), WOOD_EDGE, 3, 30)
    canvas.rect(board, WOOD, 0, 20)
    canvas.rect(board, WOOD_EDGE, 3, 20)
    canvas.rect(goal.inflate(12, 10).clip(board.inflate(0, 40)), WOOD, 0, 20)
    layout.cells[view["goal"]] = goal
    pit(canvas, goal, cells[view["goal"]]["count"], oval=True)
    text(canvas, "Goal", (goal.left - 16, goal.centery), 20, INK, "midright", bold=True)
    y = board.top + 8
    for c, key in enumerate(row):
        rect = Rect(round(x0 + c * col_w), round(y), round(col_w), round(row_h))
        layout.cells[key] = rect
        layout.near.add(key)
        pit(canvas, rect, cells[key]["count"])
        text(canvas, cells[key]["label"], (rect.centerx, board.bottom + 4), 20, INK, "midtop", bold=True)
    titles = view["row_titles"] or ["", ""]
    y = board.bottom + 30
    left = text(canvas, titles[0], (board.left, y), 19, MUTED)
    arrow(canvas, (left.right + 8, left.centery), (left.right + 44, left.centery))
    right = text(canvas, titles[1], (board.right, y), 19, MUTED, "topright")
    arrow(canvas, (right.left - 8, right.centery), (right.left - 44, right.centery))


def _fan_room(area: Rect, bx: float, by: float, dx: float, dy: float, card_w: int, card_h: int) -> float:
    """How far a Rondell pile's fan may run from the ring, along (dx, dy), inside ``area``."""
    def reach(low, high, start, d, half):
        if d > 1e-9:
            return (high - 6 - half - start) / d
        if d < -1e-9:
            return (low + 6 + half - start) / d
        return math.inf

    return min(reach(area.left, area.right, bx, dx, card_w / 2), reach(area.top, area.bottom, by, dy, card_h / 2))


def draw_ring(canvas, view: dict, layout: BoardLayout) -> None:
    """Rondell: the ring of piles seen from above, numbered counterclockwise, every card visible.

    Each pile's cards fan outward from the ring, the top card farthest out; the pile's
    number and height sit just inside the ring.
    """
    area = board_area(layout.size, view)
    cells = view["cells"]
    (ring,) = view["rows"]
    count = len(ring)
    cx, cy = area.centerx, area.centery
    rx, ry = area.w / 2 - 150, area.h / 2 - 125
    card_w = int(max(20, min(46, 2 * math.pi * min(rx, ry) / count * 0.55)))
    card_h = int(card_w * 0.62)
    canvas.ellipse(Rect(cx - rx, cy - ry, 2 * rx, 2 * ry), WOOD, 12)
    offset = (count // 2 - 1) / 2
    angles = [math.radians(270 + 360 / count * (i - offset)) for i in range(count)]
    for i in range(count):  # counterclockwise arrows between the piles
        mid = angles[i] + math.pi / count
        a, b = mid - 0.05, mid + 0.05
        arrow(canvas, (cx + rx * math.cos(a), cy - ry * math.sin(a)), (cx + rx * math.cos(b), cy - ry * math.sin(b)),
              WOOD_EDGE, 3)
    scores = view["scores"]
    text(canvas, f"{scores[0]} : {scores[1]}", (cx, cy - 10), 56, INK, "center", bold=True)
    text(canvas, f"{view['score_name']}, player_0 : player_1", (cx, cy + 26), 20, MUTED, "center")
    for i, key in enumerate(ring):
        cell = cells[key]
        dx, dy = math.cos(angles[i]), -math.sin(angles[i])
        bx, by = cx + rx * dx, cy - ry * math.sin(angles[i])
        extent = abs(dx) * card_w + abs(dy) * card_h  # a card's length along the fan
        travel = _fan_room(area, bx, by, dx, dy, card_w, card_h) - extent / 2 - 4
        label = Rect(0, 0, 56, 20).centred((round(bx - dx * 18), round(by - dy * 16)))
        owner = cell.get("owner")
        canvas.rect(label, OWNER_TINTS[owner] if owner is not None else BACKGROUND, 0, 5)
        text(canvas, cell["label"], (label.left + 4, label.centery), 18, INK, "midleft", bold=True)
        text(canvas, str(cell["count"]), (label.right - 4, label.centery), 16, MUTED, "midright")
        cards = cell.get("cards") or []
        first = (bx + dx * (extent / 2 + 4), by + dy * (extent / 2 + 4))
        drawn = Rect(0, 0, card_w, card_h).centred((round(first[0]), round(first[1])))
        if not cards:
            placeholder(canvas, drawn, "gone")
        else:
            step, shown = fan_step(len(cards), travel + extent, extent, extent * 0.45)
            for k, letter in enumerate(cards[len(cards) - shown:]):
                rect = Rect(0, 0, card_w, card_h).centred((round(first[0] + dx * k * step),
                                                           round(first[1] + dy * k * step)))
                colour_card(canvas, rect, letter, k == shown - 1)
                drawn = drawn.union(rect)
            if shown < len(cards):
                text(canvas, f"+{len(cards) - shown}", (label.centerx, label.bottom + 1), 15, MUTED, "midtop")
        layout.cells[key] = drawn.union(label).inflate(6, 6)


def _stack(canvas, cell: dict, column: Rect, region: Rect, far: bool, view: dict, card_w: int, card_h: int) -> None:
    """One Widdershins stack: its label by the middle line, its cards fanned away from it."""
    label = Rect(column.left + 6, column.bottom - 24 if far else column.top + 2, column.w - 12, 22)
    owner = cell.get("owner")
    if owner is not None:
        canvas.rect(label, OWNER_TINTS[owner], 0, 5)
    text(canvas, cell["label"], (label.left + 4, label.centery), 19, INK, "midleft", bold=True)
    whose = "" if owner is None else (view["seats"][owner].split(" (")[-1].rstrip(")") + "'s")
    text(canvas, f"{cell['count']} {whose}".strip(), (label.right - 4, label.centery), 16, MUTED, "midright")
    cards = cell.get("cards") or []
    room = region.h - label.h - 10
    x = column.centerx - card_w // 2
    if not cards:
        y = label.top - 4 - card_h if far else label.bottom + 4
        placeholder(canvas, Rect(x, y, card_w, card_h), "vacant")
        return
    step, shown = fan_step(len(cards), room, card_h, card_h * 0.3, 5)
    for k, name in enumerate(cards[len(cards) - shown:]):
        y = label.top - 4 - card_h - k * step if far else label.bottom + 4 + k * step
        canvas.playing_card(name, Rect(x, round(y), card_w, card_h), turned=far)
    if shown < len(cards):
        y = label.top - 6 if far else label.bottom + 6
        text(canvas, f"+{len(cards) - shown}", (x - 4, y), 15, MUTED, "bottomright" if far else "topright")


def draw_card_rows(canvas, view: dict, layout: BoardLayout) -> None:
    """Widdershins: two rows of six stacks, cards face up, each row's cards facing its player."""
    area = board_area(layout.size, view)
    cells = view["cells"]
    far, near = view["rows"]
    middle = area.centery
    canvas.line((16, middle), (area.w - 16, middle), FAINT_RULE, 2)
    col_w = (area.w - 32) / len(far)
    card_w = int(min(84, col_w * 0.58))
    card_h = int(card_w * 1.4)
    titles = view["row_titles"] or ["", ""]
    text(canvas, titles[0], (18, area.top + 4), 19, MUTED)
    text(canvas, titles[1], (18, area.bottom - 22), 19, MUTED)
    for r, row in enumerate((far, near)):
        region = (Rect(16, area.top + 26, area.w - 32, middle - area.top - 28) if r == 0
                  else Rect(16, middle + 2, area.w - 32, area.bottom - middle - 28))
        for c, key in enumerate(row):
            column = Rect(round(region.left + c * col_w), region.top, round(col_w), region.h)
            layout.cells[key] = column
            if r == 1:
                layout.near.add(key)
            _stack(canvas, cells[key], column, region, r == 0, view, card_w, card_h)


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


def view_of(state, near_seat: int | None = None) -> dict:
    """``state``'s board view, turned so that ``near_seat`` (if given) sits nearest."""
    view = state.game.board_view(state)
    if near_seat is not None and view.get("near_seat") is not None and near_seat != view["near_seat"]:
        view = turned(view)
    return view


def draw_picture(canvas, state, last: LastMove | None = None, near_seat: int | None = None,
                 hint: int | None = None, legal_cells: Iterable[str] = ()) -> BoardLayout:
    """Draw ``state`` on ``canvas`` (of the layout's ``FRAME_SIZES``); returns where the cells went.

    ``last`` is ringed in orange, the cell of ``hint`` (an action) in green, ``legal_cells``
    get a light outline; ``near_seat`` turns a two-row board so that seat sits nearest.
    """
    game = state.game
    view = view_of(state, near_seat)
    size = FRAME_SIZES[view["layout"]]
    canvas.fill(BACKGROUND)
    layout = BoardLayout(size)
    header(canvas, size, view, f"{game.env_id}  ply {state.plies}")
    DRAWERS[view["layout"]](canvas, view, layout)
    footer(canvas, size, view, last)
    cells = layout.cells
    for key in legal_cells:
        if key in cells:
            outline(canvas, cells[key], LEGAL_COLOUR, 2, 3)
    for key in view["focus"]:
        if key in cells:
            outline(canvas, cells[key], FOCUS_COLOUR, 3, 2)
    for key, words in view["marks"].items():
        if key in cells:
            badge(canvas, words, 16, FOCUS_COLOUR, midtop=(cells[key].centerx, cells[key].top + 2))
    if hint is not None:
        key, _ = game.action_cell(state, hint)
        if key in cells:
            outline(canvas, cells[key], HINT_COLOUR, 4, 5)
    if last is not None and last.cell in cells:
        outline(canvas, cells[last.cell], LAST_COLOUR, 4, 0)
    return layout
