"""The SVG painter: the same pictures as the pygame frames, as text, with no pygame.

``state_svg(state, last=None)`` draws ``picture.draw_picture``'s layout (the one the raster
frames use: same positions, sizes, colours and last-move ring) as an SVG document of the
layout's ``FRAME_SIZES``. ``State._repr_svg_``, ``State.to_svg`` and ``State.save_svg`` and
the envs' ``_repr_svg_`` (a notebook shows the position) call it.

``clickable=True`` adds one transparent ``<rect class="cell" data-cell="KEY">`` per cell of
the board view on top (``data-near="1"`` on the near row), which the page of ``mancala serve``
turns into moves.

``animated_svg(positions, moves)`` is a whole game in one file: every position a frame, shown
in turn by SMIL ``<animate>`` (``calcMode="discrete"``), looping; browsers play it in a page,
an ``<img>`` or a notebook. ``game_svg(game, actions, seed)`` and ``save_animated_svg`` are its
record-level forms (``mancala replay FILE --svg OUT.svg``).

Text is measured by an estimate of a sans-serif font's advance widths (the SVG is drawn
before any font is chosen): a label sits where the pygame frame puts it, to within a few
pixels.
"""

from __future__ import annotations

from html import escape
from typing import Iterable, Sequence

from ..core.errors import MancalaError
from ..core.files import atomic_output
from . import FRAME_SIZES, LastMove, moves_of_game
from .picture import BoardLayout, card_face, draw_picture

FONT_FAMILY = "'FreeSans', 'Liberation Sans', Arial, Helvetica, sans-serif"
FONT_SCALE = 0.6875  # a pygame font of size N is N * 0.6875 pixels high (pygame's default font)
LINE_HEIGHT = 1.1  # a line's box, in font pixels
CENTRE_TO_BASELINE = 0.36  # from the middle of a line of digits and capitals down to its baseline, in font pixels

# advance widths in ems of a Helvetica-like face; other characters count as AVERAGE_WIDTH
_NARROW, _WIDE = "ijlI.,:;'|!()[]{} ", "mwMW@%"
NARROW_WIDTH, WIDE_WIDTH, UPPER_WIDTH, AVERAGE_WIDTH = 0.3, 0.85, 0.68, 0.56
REGULAR_WIDTH = 0.92  # regular text is narrower than bold (pygame's default font is bold throughout)


def _colour(rgb) -> str:
    return "#%02x%02x%02x" % tuple(int(c) for c in rgb)


def _num(value) -> str:
    """A coordinate: at most two decimals, no trailing zeros."""
    text = f"{float(value):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def text_width(words: str, pixels: float, bold: bool) -> float:
    """The estimated advance width of ``words`` at a font height of ``pixels``."""
    ems = 0.0
    for ch in words:
        if ch in _NARROW:
            ems += NARROW_WIDTH
        elif ch in _WIDE:
            ems += WIDE_WIDTH
        elif ch.isupper():
            ems += UPPER_WIDTH
        else:
            ems += AVERAGE_WIDTH
    return ems * pixels * (1.0 if bold else REGULAR_WIDTH)


class SvgCanvas:
    """A ``picture`` canvas that writes SVG elements into ``parts``."""

    def __init__(self, parts: list[str] | None = None):
        self.parts = parts if parts is not None else []

    @staticmethod
    def _paint(colour, width) -> str:
        if width:
            return f'fill="none" stroke="{_colour(colour)}" stroke-width="{_num(width)}"'
        return f'fill="{_colour(colour)}"'

    def fill(self, colour) -> None:
        self.parts.append(f'<rect width="100%" height="100%" fill="{_colour(colour)}"/>')

    def rect(self, rect, colour, width: int = 0, radius: int = 0) -> None:
        x, y, w, h = rect
        inset = width / 2  # an outline lies inside the rectangle, as pygame draws it
        rounded = f' rx="{_num(max(0, radius - inset))}"' if radius else ""
        self.parts.append(f'<rect x="{_num(x + inset)}" y="{_num(y + inset)}" width="{_num(max(0, w - width))}" '
                          f'height="{_num(max(0, h - width))}"{rounded} {self._paint(colour, width)}/>')

    def ellipse(self, rect, colour, width: int = 0) -> None:
        x, y, w, h = rect
        self.parts.append(f'<ellipse cx="{_num(x + w / 2)}" cy="{_num(y + h / 2)}" rx="{_num(max(0, (w - width) / 2))}" '
                          f'ry="{_num(max(0, (h - width) / 2))}" {self._paint(colour, width)}/>')

    def circle(self, centre, radius, colour, width: int = 0) -> None:
        r = max(0, radius - width / 2)
        self.parts.append(f'<circle cx="{_num(centre[0])}" cy="{_num(centre[1])}" r="{_num(r)}" '
                          f'{self._paint(colour, width)}/>')

    def polygon(self, points, colour) -> None:
        listed = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
        self.parts.append(f'<polygon points="{listed}" fill="{_colour(colour)}"/>')

    def line(self, start, end, colour, width: int = 1) -> None:
        self.parts.append(f'<line x1="{_num(start[0])}" y1="{_num(start[1])}" x2="{_num(end[0])}" y2="{_num(end[1])}" '
                          f'stroke="{_colour(colour)}" stroke-width="{_num(width)}"/>')

    def text_size(self, words: str, size: int, bold: bool) -> tuple[int, int]:
        pixels = size * FONT_SCALE
        return round(text_width(words, pixels, bold)), round(pixels * LINE_HEIGHT)

    def write(self, words: str, box, size: int, colour, bold: bool, align: str = "centre") -> None:
        pixels = size * FONT_SCALE
        squeeze = ""
        if text_width(words, pixels, bold) > box.w + 1:
            squeeze = f' textLength="{box.w}" lengthAdjust="spacingAndGlyphs"'
        weight = ' font-weight="bold"' if bold else ""
        x, anchor = {"left": (box.x, ' text-anchor="start"'), "right": (box.right, ' text-anchor="end"')}.get(
            align, (box.x + box.w / 2, ""))
        baseline = box.y + box.h / 2 + CENTRE_TO_BASELINE * pixels  # no dominant-baseline: not every renderer has it
        self.parts.append(f'<text x="{_num(x)}" y="{_num(baseline)}"{anchor} font-size="{_num(pixels)}"'
                          f'{weight} fill="{_colour(colour)}"{squeeze}>{escape(words)}</text>')

    def playing_card(self, name: str, rect, turned: bool) -> None:
        turn = f" rotate(180 {_num(rect.w / 2)} {_num(rect.h / 2)})" if turned else ""
        self.parts.append(f'<g transform="translate({rect.x} {rect.y}){turn}">')
        card_face(self, name, rect.w, rect.h)
        self.parts.append("</g>")


def _cell_targets(layout: BoardLayout) -> list[str]:
    """A transparent rectangle per cell, named by ``data-cell`` (the page's click targets)."""
    out = ['<g class="cells" fill="#ffffff" fill-opacity="0">']
    for key, rect in layout.cells.items():
        near = ' data-near="1"' if key in layout.near else ""
        out.append(f'<rect class="cell" data-cell="{escape(str(key))}"{near} x="{rect.x}" y="{rect.y}" '
                   f'width="{rect.w}" height="{rect.h}"/>')
    out.append("</g>")
    return out


def _document(body: list[str], size: tuple[int, int], title: str) -> str:
    width, height = size
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'font-family="{FONT_FAMILY}" text-anchor="middle">',
        f"<title>{escape(title)}</title>",
        *body,
        "</svg>",
    ])


def _picture(state, last, near_seat, hint, legal_cells, clickable: bool) -> tuple[list[str], tuple[int, int]]:
    canvas = SvgCanvas()
    layout = draw_picture(canvas, state, last, near_seat, hint, legal_cells)
    if clickable:
        canvas.parts.extend(_cell_targets(layout))
    return canvas.parts, layout.size


def state_svg(state, last: LastMove | None = None, near_seat: int | None = None, hint: int | None = None,
              legal_cells: Iterable[str] = (), clickable: bool = False) -> str:
    """``state`` as an SVG document (the arguments as in ``picture.draw_picture``)."""
    body, size = _picture(state, last, near_seat, hint, legal_cells, clickable)
    return _document(body, size, f"{state.game.env_id}, ply {state.plies}")


def save_svg(svg: str, path) -> None:
    """Write an SVG document (``state_svg``, ``animated_svg``) to ``path``, atomically."""
    with atomic_output(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(svg)


def _frame_times(count: int, fps: float, hold_last: float) -> tuple[list[float], float]:
    """When each of ``count`` frames starts, and the loop's length, in seconds."""
    if not fps > 0:
        raise MancalaError(f"animated SVG: fps must be > 0, got {fps}")
    if not hold_last >= 0:
        raise MancalaError(f"animated SVG: hold_last must be >= 0 seconds, got {hold_last}")
    starts = [i / fps for i in range(count)]
    return starts, starts[-1] + max(1 / fps, hold_last)


def _visibility(start: float, end: float, total: float) -> str:
    """A discrete SMIL animation showing a frame from ``start`` to ``end`` of each loop."""
    values, times = [], []
    if start > 0:
        values.append("none")
        times.append(0.0)
    values.append("inline")
    times.append(start / total)
    if end < total:
        values.append("none")
        times.append(end / total)
    key_times = ";".join(f"{t:.6f}".rstrip("0").rstrip(".") or "0" for t in times)
    return (f'<animate attributeName="display" values="{";".join(values)}" keyTimes="{key_times}" '
            f'dur="{_num(total)}s" calcMode="discrete" repeatCount="indefinite"/>')


def animated_svg(positions: Sequence, moves: Sequence[LastMove | None] | None = None, fps: float = 2.0,
                 hold_last: float = 2.0) -> str:
    """One SVG that shows ``positions`` in turn (``fps`` a second, the last for ``hold_last`` s), looping.

    ``moves[i - 1]`` is the move that led to ``positions[i]`` (ringed); ``moves`` may be left
    out (a list of states: no rings) or hold one entry per position (the first may be None).
    """
    positions = list(positions)
    if not positions:
        raise MancalaError("animated SVG: no positions to draw")
    if moves is None:
        lasts: list = [None] * len(positions)
    elif len(moves) == len(positions) - 1:
        lasts = [None, *moves]
    elif len(moves) == len(positions):
        lasts = list(moves)
    else:
        raise MancalaError(f"animated SVG: {len(positions)} positions need {len(positions) - 1} moves, "
                           f"got {len(moves)}")
    sizes = {FRAME_SIZES[p.game.board_view(p)["layout"]] for p in positions}
    if len(sizes) != 1:
        raise MancalaError("animated SVG: the positions must all be of one game")
    starts, total = _frame_times(len(positions), fps, hold_last)
    body = []
    for i, (state, last) in enumerate(zip(positions, lasts)):
        parts, size = _picture(state, last, None, None, (), False)
        end = starts[i + 1] if i + 1 < len(starts) else total
        hidden = ' display="none"' if i else ""
        body.append(f'<g class="frame"{hidden}>')
        if len(positions) > 1:
            body.append(_visibility(starts[i], end, total))
        body.extend(parts)
        body.append("</g>")
    game = positions[0].game
    return _document(body, sizes.pop(), f"{game.env_id}: {len(positions) - 1} plies")


def game_svg(game, actions, seed: int | None = None, fps: float = 2.0, hold_last: float = 2.0) -> str:
    """A recorded game (``actions`` from ``game.new_state(seed)``) as an animated SVG."""
    positions, moves = moves_of_game(game, actions, seed)
    return animated_svg(positions, moves, fps, hold_last)


def save_animated_svg(game, actions, path, seed: int | None = None, fps: float = 2.0, hold_last: float = 2.0) -> None:
    """``game_svg`` written to ``path`` (atomically)."""
    save_svg(game_svg(game, actions, seed, fps, hold_last), path)
