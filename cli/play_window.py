"""The window of ``mancala play --window``: a ``PlaySession`` played by clicking.

The board is drawn by ``mancala_envs.render.draw``; clicks become actions through
``mancala_envs.render.window.action_boxes`` (a cell per legal move, halves for a cell with a
move each way, buttons for choices made off the board), next to Hint (H), Undo (U), Save (S)
and Quit (Q). ``PlayWindow.action_boxes()`` exposes the boxes, so a test can click the centre
of any action's box with ``pygame.event.post`` and run the window headless
(``SDL_VIDEODRIVER=dummy``).
"""

from __future__ import annotations

import time

from mancala_envs.render import require_pygame
from mancala_envs.render.draw import BACKGROUND, HINT_COLOUR, INK, LEGAL_COLOUR, MUTED, draw_state, font, text
from mancala_envs.render.window import Window, action_at, action_boxes

pygame = require_pygame()

BAR_H = 92
BUTTON_FILL = (252, 248, 238)
CONTROL_FILL = (226, 233, 246)


def _button(surface, rect, label: str, fill, hint: bool = False) -> None:
    pygame.draw.rect(surface, fill, rect, border_radius=8)
    pygame.draw.rect(surface, HINT_COLOUR if hint else INK, rect, 3 if hint else 1, border_radius=8)
    text(surface, label, rect.center, 19, INK, "center", max_width=rect.w - 6)


def _way_marks(surface, rect, rightward: bool) -> None:
    """A small triangle in a half cell, pointing the way its move sows."""
    x = rect.right - 12 if rightward else rect.left + 12
    y = rect.top + 12
    d = 6 if rightward else -6
    pygame.draw.polygon(surface, LEGAL_COLOUR, [(x + d, y), (x - d, y - 6), (x - d, y + 6)])


class PlayWindow:
    """The window of a ``PlaySession`` (``mancala_envs.cli.play_session``): the board, buttons and a message line."""

    CONTROLS = (("hint", "Hint (H)"), ("undo", "Undo (U)"), ("save", "Save (S)"), ("quit", "Quit (Q)"))

    def __init__(self, session, save_path: str | None = None, default_save: str | None = None,
                 delay: float = 0.6):
        self.session = session
        self.save_path = save_path
        self.default_save = default_save or save_path
        self.delay = delay
        self.running = True
        self.saved_at_end = False
        self.hint_action: int | None = None
        self.due: float | None = None
        self.boxes: dict = {}
        self.controls: dict = {}
        game = session.game
        me = session.seat_names[session.seat]
        self.message = f"You are {me}, against {session.opponent_name}. Click a lit cell to move."
        surface, _ = draw_state(session.state)
        width, height = surface.get_size()
        self.board_height = height
        self.canvas = pygame.Surface((width, height + BAR_H))
        self.window = Window(f"mancala play: {game.env_id}", self.canvas.get_size())
        self.draw()

    # -- drawing -------------------------------------------------------------------------------
    def draw(self) -> None:
        session = self.session
        state = session.state
        game = state.game
        mine = session.human_to_move
        cells = {game.action_cell(state, a)[0] for a in state.legal_actions()} if mine else set()
        board = self.canvas.subsurface((0, 0, self.canvas.get_width(), self.board_height))
        _, layout = draw_state(state, last=session.last, near_seat=session.seat, hint=self.hint_action if mine else None,
                               legal_cells=cells - {None}, surface=board)
        bar = pygame.Rect(0, self.board_height, self.canvas.get_width(), BAR_H)
        self.canvas.fill(BACKGROUND, bar)
        pygame.draw.line(self.canvas, (220, 212, 198), bar.topleft, bar.topright, 2)
        # controls on the right, off-board moves on the left
        x = bar.right - 12
        self.controls = {}
        for key, label in reversed(self.CONTROLS):
            rect = pygame.Rect(0, bar.top + 10, 96, 34)
            rect.right = x
            x = rect.left - 8
            self.controls[key] = rect
            _button(self.canvas, rect, label, CONTROL_FILL)
        off_board = [a for a in state.legal_actions() if game.action_cell(state, a)[0] is None] if mine else []
        buttons = {}
        if off_board:
            room = x - 12 - 4
            labels = {a: game.action_to_string(state, a) for a in off_board}
            widths = [max(34, font(19).size(labels[a])[0] + 16) for a in off_board]
            scale = min(1.0, (room - 6 * (len(off_board) - 1)) / sum(widths))
            left = 12
            for action, w in zip(off_board, widths):
                rect = pygame.Rect(left, bar.top + 10, max(20, int(w * scale)), 34)
                left = rect.right + 6
                buttons[action] = rect
                _button(self.canvas, rect, labels[action], BUTTON_FILL, hint=action == self.hint_action)
        self.boxes = action_boxes(state, layout, buttons) if mine else {}
        for action, rect in self.boxes.items():
            cell = game.action_cell(state, action)[0]
            if cell is not None and rect.w < layout.cells[cell].w:  # one half of a two-way cell
                _way_marks(self.canvas, rect, rect.left > layout.cells[cell].left)
        text(self.canvas, self.message, (12, bar.top + 56), 21, INK if self.running else MUTED,
             max_width=bar.w - 24)
        self.window.show(self.canvas)

    def action_boxes(self) -> dict:
        """``{action: pygame.Rect}`` of the legal actions, in window coordinates (empty off-turn)."""
        return dict(self.boxes)

    # -- input ---------------------------------------------------------------------------------
    def click(self, pos) -> None:
        for key, rect in self.controls.items():
            if rect.collidepoint(pos):
                self.command(key)
                return
        session = self.session
        if session.over:
            self.message = "The game is over: " + session.result_text() + ". Save (S) or quit (Q)."
            return
        if not session.human_to_move:
            self.message = "Wait: it is the opponent's turn."
            return
        action = action_at(self.boxes, pos)
        if action is None:
            names = ", ".join(session.game.action_names(session.state).values())
            self.message = f"That is not a move. Legal moves: {names}"
            return
        name = session.play(action)
        self.hint_action = None
        self.message = f"You played {name}."
        self.after_move()

    def key(self, key) -> None:
        commands = {pygame.K_h: "hint", pygame.K_u: "undo", pygame.K_s: "save", pygame.K_q: "quit",
                    pygame.K_ESCAPE: "quit"}
        if key in commands:
            self.command(commands[key])

    def command(self, name: str) -> None:
        session = self.session
        if name == "quit":
            self.running = False
        elif name == "undo":
            self.hint_action = None
            self.due = None
            self.message = "Undone: back to your previous turn." if session.undo() else "Nothing to undo yet."
        elif name == "save":
            self.message = session.save(self.default_save)
        elif name == "hint":
            if not session.human_to_move:
                self.message = "A hint is for your own turn."
                return
            self.message = f"{session.hint_agent.name} is thinking..."
            self.draw()
            self.hint_action, hint_name = session.hint()
            self.message = f"Hint ({session.hint_agent.name}): {hint_name}"

    def after_move(self) -> None:
        session = self.session
        if session.over:
            self.message = "Game over: " + session.result_text()
            if self.save_path and not self.saved_at_end:
                self.message += ". " + session.save(self.save_path)
                self.saved_at_end = True

    # -- loop ----------------------------------------------------------------------------------
    def tick(self) -> bool:
        """Handle the waiting events, let the opponent move when it is due, redraw.

        Returns False once the player has quit.
        """
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self.running = False
            elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
                self.click(event.pos)
            elif event.type == pygame.KEYDOWN:
                self.key(event.key)
        session = self.session
        if self.running and not session.over and not session.human_to_move:
            now = time.monotonic()
            if self.due is None:
                self.due = now + self.delay
            if now >= self.due:
                self.due = None
                mover = session.state.current_player
                name = session.opponent_move()
                self.message = f"{session.seat_names[mover]} ({session.opponent_name}) played {name}."
                if session.human_to_move:
                    self.message += " Your move."
                self.after_move()
        if self.running:
            self.draw()
        return self.running

    def run(self) -> None:
        clock = pygame.time.Clock()
        while self.tick():
            clock.tick(30)
        self.close()

    def close(self) -> None:
        self.window.close()


def play_in_window(session, save_path: str | None = None, default_save: str | None = None, delay: float = 0.6) -> int:
    """Play ``session`` in a window until the player quits (``mancala play --window``)."""
    window = PlayWindow(session, save_path=save_path, default_save=default_save, delay=delay)
    window.run()
    if save_path and not window.saved_at_end:
        print(session.save(save_path))
    return 0
