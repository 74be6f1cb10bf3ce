"""The web application of ``mancala serve``: a Flask app, one game per browser session.

The page (``cli/web/index.html``, ``app.js``, ``style.css``: plain HTML and JavaScript, no
build step, nothing fetched from elsewhere) talks to this JSON API:

=========================  ===================================================================
request                    what it does (every answer but ``/api/record`` is a game's view)
=========================  ===================================================================
``GET /api/games``         the registered ids, their descriptions, the default opponent
``POST /api/new``          ``{env_id, opponent, seat, seed, options}``: a new game (options an
                           object, or ``"pits=4 seeds=3"``); the agent plays first if it is to move
``GET /api/state``         the game of this browser session
``POST /api/move``         ``{cell, side}`` (a click on a cell: ``side`` is the half clicked,
                           ``"left"``/``"right"``, for a cell with a move each way) or
                           ``{action}`` (a button); then the agent replies until it is the
                           human's turn again or the game is over
``POST /api/undo``         back to the human's previous turn
``POST /api/hint``         the hint agent's move (one second of alpha-beta), ringed in green
``GET /api/record``        the game so far as a JSON record (``mancala_envs.records``)
``POST /api/load``         ``{record}``: a saved record, to step through
``POST /api/step``         ``{index}``: show that position of the loaded record
``POST /api/evaluate``     the oracle's exact value of the position (``agents.solver.solve``
                           with a one-second limit; past it, the bounds it proved)
=========================  ===================================================================

A game's view: ``svg`` (the board, ``render.svg.state_svg`` with ``clickable`` cells, the
human's row nearest, the last move ringed, the legal cells outlined), ``legal`` (the human's
legal moves: action, name, cell, way), ``buttons`` (those made off the board), ``moves`` (the
game so far), ``status``, ``message``, ``plies``, and in a review ``index``/``length``.

Every request is checked: a bad id, option, agent spec, seat, record or move gets the
package's error text (a ``MancalaError``) with HTTP 400, and nothing is applied. Games live in
memory, keyed by a random id in the session cookie (signed with a key drawn at start).
"""

from __future__ import annotations

import secrets
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mancala_envs.core.errors import IllegalActionError, MancalaError, RecordError
from mancala_envs.core.extras import require_extra
from mancala_envs.records import GameRecord
from mancala_envs.registry import get_entry, list_envs, make_game, parse_options
from mancala_envs.render import describe_move
from mancala_envs.render.picture import view_of
from mancala_envs.render.svg import state_svg

from mancala_envs.agents.solver import INF, SolverTable, solve
from mancala_envs.agents.specs import make_agent
from .play_session import DEFAULT_HINT, PlaySession

flask = require_extra("flask", "web", "mancala serve")
serving = require_extra("werkzeug.serving", "web", "mancala serve")  # Flask's own server library

WEB_FOLDER = Path(__file__).with_name("web")
ORACLE_SECONDS = 1.0  # the oracle answers within this, or says what it proved by then
ORACLE_TABLE = "16M"  # the oracle's transposition table, per game
MOST_GAMES = 256  # sessions kept in memory; the oldest game is dropped beyond this


class BadRequest(MancalaError):
    """A request that is not what the API takes (a missing or mistyped field)."""


class WebGame:
    """One browser session's game: a ``PlaySession`` to play, or a loaded record to step through."""

    def __init__(self, session: PlaySession, opponent_spec: str):
        self.session = session
        self.opponent_spec = opponent_spec
        self.review: list | None = None  # positions of a loaded record
        self.review_moves: list = []
        self.index = 0
        self.message = ""
        self.table: SolverTable | None = None
        self.hint: int | None = None  # the hint agent's move, ringed in green until the position changes
        self.lock = threading.Lock()  # one request at a time changes or reads the game (a double click)

    # -- the position shown -----------------------------------------------------------------
    def shown(self):
        """(state, last move) of the position on the board."""
        if self.review is not None:
            last = self.review_moves[self.index - 1] if self.index else None
            return self.review[self.index], last
        return self.session.state, self.session.last

    def view(self) -> dict[str, Any]:
        session = self.session
        state, last = self.shown()
        game = state.game
        human_turn = self.review is None and session.human_to_move
        legal = state.legal_actions() if human_turn else []
        cells, buttons, moves = set(), [], []
        for action in legal:
            cell, way = game.action_cell(state, action)
            move = {"action": action, "name": game.action_to_string(state, action), "cell": cell, "way": way}
            moves.append(move)
            if cell is None:
                buttons.append(move)
            else:
                cells.add(cell)
        seat = session.seat
        out = {
            "env_id": game.env_id,
            "svg": state_svg(state, last, near_seat=seat, hint=self.hint if human_turn else None,
                             legal_cells=sorted(cells), clickable=True),
            "buttons": buttons,
            "legal": moves,
            "status": game.status_text(state),
            "plies": state.plies,
            "seat": seat,
            "seat_name": session.seat_names[seat],
            "seats": list(session.seat_names),
            "opponent": self.opponent_spec,
            "your_turn": human_turn,
            "over": state.is_terminal() or (self.review is None and session.over),
            "message": self.message,
            "moves": self._moves(),
            "review": self.review is not None,
        }
        if self.review is not None:
            out.update(index=self.index, length=len(self.review) - 1)
        elif session.over:
            out["result"] = session.result_text()
        return out

    def _moves(self) -> list[dict[str, Any]]:
        if self.review is not None:
            return [{"ply": i + 1, "player": m.player, "name": m.name} for i, m in enumerate(self.review_moves)]
        session = self.session
        return [{"ply": i + 1, "player": p, "name": n} for i, (p, n) in enumerate(zip(session.movers, session.names))]

    # -- playing ----------------------------------------------------------------------------
    def action_of_click(self, cell: str, side: str) -> int:
        """The human's legal action on ``cell`` (the ``side`` half for a cell with two moves)."""
        state = self.session.state
        game = state.game
        moves = [(a, way) for a in state.legal_actions() for c, way in [game.action_cell(state, a)] if c == cell]
        if not moves:
            view = game.board_view(state)
            label = view["cells"].get(cell, {}).get("label", cell)
            names = ", ".join(game.action_names(state).values())
            raise IllegalActionError(f"{game.env_id}: {label} is not a legal move here; legal moves: {names}")
        if len(moves) == 1:
            return moves[0][0]
        if side not in ("left", "right"):
            raise BadRequest(f"cell {cell} has a move each way: say which half was clicked (side 'left' or 'right')")
        near = cell in _near_cells(state, self.session.seat)
        for action, way in moves:
            rightward = (way == "ccw") == near
            if rightward == (side == "right"):
                return action
        return moves[0][0]

    def play(self, action: int) -> None:
        session = self.session
        if self.review is not None:
            raise BadRequest("a saved record is on the board; start a new game to play")
        if session.over:
            raise IllegalActionError("the game is over; start a new game or undo")
        if not session.human_to_move:
            raise IllegalActionError("it is not your turn")
        name = session.play(action)
        self.hint = None
        self.message = f"you played {name}"
        self.agent_replies()

    def agent_replies(self) -> None:
        session = self.session
        replies = []
        while not session.over and not session.human_to_move:
            replies.append(session.opponent_move())
        if replies:
            self.message += ("; " if self.message else "") + f"{self.opponent_spec} played {', '.join(replies)}"

    def undo(self) -> None:
        if self.review is not None:
            raise BadRequest("a saved record is on the board; there is nothing to undo")
        self.hint = None
        self.message = "took back your last move" if self.session.undo() else "nothing to undo"

    def suggest(self) -> None:
        """Ring the hint agent's move (``play_session.DEFAULT_HINT``) for the human."""
        if self.review is not None:
            raise BadRequest("a saved record is on the board; hints are for your own game")
        self.hint, name = self.session.hint()
        self.message = f"hint ({DEFAULT_HINT}): {name}"

    def load(self, record: GameRecord) -> None:
        positions = record.replay()
        game = record.game()
        self.review = positions
        self.review_moves = [describe_move(positions[i], a) for i, a in enumerate(record.actions)]
        self.index = 0
        self.message = f"loaded a record of {game.env_id}: {len(record.actions)} plies"

    def step(self, index: Any) -> None:
        if self.review is None:
            raise BadRequest("load a record first")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(self.review):
            raise BadRequest(f"index must be an integer from 0 to {len(self.review) - 1}, got {index!r}")
        self.index = index
        self.message = ""

    def evaluate(self) -> dict[str, Any]:
        """The oracle's value of the position shown, from player_0's side (exact, or bounds)."""
        state, _ = self.shown()
        if state.is_terminal():
            s0, s1 = state.scores()
            return {"exact": True, "value": s0 - s1, "text": f"the game is over: {s0 - s1:+d} for player_0"}
        if self.table is None:
            # compile (or load from numba's disk cache) the search before the clock starts
            solve(state.clone(), table=SolverTable(1 << 12), endgame=None, time_limit=1e-3)
            self.table = SolverTable(ORACLE_TABLE)
        # no endgame database: building one would not fit in the time the page waits
        result = solve(state.clone(), table=self.table, time_limit=ORACLE_SECONDS, endgame=None)
        game = state.game
        if result.exact:
            best = game.action_to_string(state, result.best_action) if result.best_action >= 0 else "?"
            text = (f"perfect play ends {result.value:+d} for player_0 (the mover's best: {best}); "
                    f"you are player_{self.session.seat}")
            return {"exact": True, "value": result.value, "best": best, "text": text}
        sign = 1 if state.current_player == 0 else -1
        low, high = sorted((sign * result.lower, sign * result.upper))
        text = f"the oracle needs more than {ORACLE_SECONDS:g} s here"
        if -INF < low and high < INF:
            text += f"; it proved a value between {low:+d} and {high:+d} for player_0"
        return {"exact": False, "lower": low if low > -INF else None, "upper": high if high < INF else None,
                "text": text}


def _near_cells(state, seat: int) -> set:
    """The cells of the row drawn nearest (``seat``'s side at the bottom), where counterclockwise
    is rightward (``render.window.action_boxes`` splits a cell with two moves the same way)."""
    view = view_of(state, seat)
    return set(view["rows"][-1]) if view["layout"] != "ring" else set()


def new_game(payload: dict, default_opponent: str) -> WebGame:
    """A ``WebGame`` from ``/api/new``'s fields (each checked)."""
    env_id = payload.get("env_id", "kalah-v0")
    if not isinstance(env_id, str):
        raise BadRequest(f"env_id must be a string such as 'kalah-v0', got {env_id!r}")
    options = payload.get("options") or {}
    if isinstance(options, str):  # the page's words, as on the command line: "pits=4 seeds=3"
        options = parse_options(env_id, options.split())
    if not isinstance(options, dict):
        raise BadRequest(f"options must be 'key=value ...' or an object of option names and values, got {options!r}")
    seat = payload.get("seat", 0)
    if seat in ("0", "1"):
        seat = int(seat)
    if seat not in (0, 1) or isinstance(seat, bool):
        raise BadRequest(f"seat must be 0 or 1, got {seat!r}")
    seed = payload.get("seed")
    if seed in (None, ""):
        seed = secrets.randbelow(2**31)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise BadRequest(f"seed must be a non-negative integer, got {seed!r}")
    return game_against(make_game(env_id, **options), payload.get("opponent") or default_opponent, seat, seed)


def game_against(game, opponent_spec: Any, seat: int, seed: int) -> WebGame:
    """A ``WebGame`` of ``game`` (from ``new_state(seed)``) against the agent ``opponent_spec``."""
    if not isinstance(opponent_spec, str) or opponent_spec.strip() == "human":
        raise BadRequest(f"opponent must be an agent spec such as 'greedy' or 'alphabeta:depth=4', got {opponent_spec!r}")
    opponent_spec = opponent_spec.strip()
    opponent = make_agent(opponent_spec, seed=seed + 1)
    opponent.reset(seed=seed + 1)
    hint = make_agent(DEFAULT_HINT, seed=seed + 2)
    session = PlaySession(game, seat, opponent, hint, seed, opponent_name=opponent_spec)
    web_game = WebGame(session, opponent_spec)
    web_game.message = f"you are {session.seat_names[seat]}, against {opponent_spec}"
    web_game.agent_replies()
    return web_game


def create_app(default_opponent: str = "alphabeta:depth=4", default_env: str = "kalah-v0"):
    """The Flask app of ``mancala serve``; ``default_opponent`` plays games that name none."""
    make_agent(default_opponent)  # a bad spec fails here, before the server starts
    get_entry(default_env)
    app = flask.Flask("mancala_envs.cli.web", static_folder=str(WEB_FOLDER), static_url_path="/static")
    app.secret_key = secrets.token_bytes(32)
    games: dict[str, WebGame] = {}
    lock = threading.Lock()

    @contextmanager
    def current():
        """This browser session's game, held for the request."""
        key = flask.session.get("game")
        game = games.get(key) if key else None
        if game is None:
            raise BadRequest("no game in this browser session yet: start one (POST /api/new)")
        with game.lock:
            yield game

    def remember(game: WebGame) -> None:
        """Make ``game`` this browser session's game (the oldest game goes beyond ``MOST_GAMES``)."""
        with lock:
            key = flask.session.get("game") or secrets.token_hex(16)
            games.pop(key, None)
            games[key] = game
            while len(games) > MOST_GAMES:
                games.pop(next(iter(games)))
        flask.session["game"] = key

    def body() -> dict:
        payload = flask.request.get_json(silent=True)
        if not isinstance(payload, dict):
            raise BadRequest("the request body must be a JSON object")
        return payload

    @app.errorhandler(MancalaError)
    def refused(err):
        return flask.jsonify({"error": str(err)}), 400

    @app.get("/")
    def index():
        return flask.send_from_directory(WEB_FOLDER, "index.html")

    @app.get("/api/games")
    def list_games():
        return flask.jsonify({"games": [{"id": i, "description": get_entry(i).description} for i in list_envs()],
                              "default_env": default_env, "default_opponent": default_opponent})

    @app.post("/api/new")
    def start():
        game = new_game(body(), default_opponent)
        remember(game)
        return flask.jsonify(game.view())

    @app.get("/api/state")
    def state():
        with current() as game:
            return flask.jsonify(game.view())

    @app.post("/api/move")
    def move():
        payload = body()
        with current() as game:
            if "action" in payload:
                action = payload["action"]
                if not isinstance(action, int) or isinstance(action, bool):
                    raise BadRequest(f"action must be an integer, got {action!r}")
            elif isinstance(payload.get("cell"), str):
                action = game.action_of_click(payload["cell"], payload.get("side", ""))
            else:
                raise BadRequest("a move is {\"cell\": KEY, \"side\": \"left\"|\"right\"} or {\"action\": N}")
            game.play(action)
            return flask.jsonify(game.view())

    @app.post("/api/undo")
    def undo():
        with current() as game:
            game.undo()
            return flask.jsonify(game.view())

    @app.get("/api/record")
    def record():
        with current() as game:
            payload = game.session.record().to_json()
        response = flask.jsonify(payload)
        response.headers["Content-Disposition"] = f'attachment; filename="{payload["env_id"]}-game.json"'
        return response

    @app.post("/api/load")
    def load():
        payload = body().get("record")
        if not isinstance(payload, dict):
            raise RecordError("the record must be a JSON object (a file written by Save or records.save_json)")
        record = GameRecord.from_json(payload)
        game = game_against(record.game(), default_opponent, 0, record.seed or 0)
        remember(game)
        game.load(record)
        return flask.jsonify(game.view())

    @app.post("/api/step")
    def step():
        index = body().get("index")
        with current() as game:
            game.step(index)
            return flask.jsonify(game.view())

    @app.post("/api/hint")
    def hint():
        with current() as game:
            game.suggest()
            return flask.jsonify(game.view())

    @app.post("/api/evaluate")
    def evaluate():
        with current() as game:
            return flask.jsonify(game.evaluate())

    return app


def bound_server(host: str, port: int, opponent: str, env_id: str = "kalah-v0"):
    """``create_app``'s WSGI server (threaded), bound to ``host:port`` but not yet serving."""
    app = create_app(opponent, env_id)
    try:
        return serving.make_server(host, port, app, threaded=True)
    except OSError as err:
        raise MancalaError(f"cannot serve on {host}:{port}: {err.strerror or err}") from None
