// The page of `mancala serve`: plain JavaScript, no build step, nothing loaded from elsewhere.
// The server draws the board (SVG with one transparent rect.cell per cell) and checks every move.
"use strict";

const $ = (id) => document.getElementById(id);
let view = null;

async function call(method, path, payload) {
  const options = { method, headers: {} };
  if (payload !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(payload);
  }
  const response = await fetch(path, options);
  const answer = await response.json();
  if (!response.ok) {
    throw new Error(answer.error || response.statusText);
  }
  return answer;
}

function say(text, isError) {
  const line = $("message");
  line.textContent = text || "";
  line.className = isError ? "error" : "";
}

async function act(method, path, payload) {
  try {
    show(await call(method, path, payload));
  } catch (err) {
    say(err.message, true);
  }
}

function show(next) {
  view = next;
  document.body.dataset.shown = Number(document.body.dataset.shown || 0) + 1; // views drawn (tests wait on it)
  $("board").innerHTML = view.svg;
  $("board").dataset.plies = view.plies;
  say(view.over && view.result ? `${view.message ? view.message + ". " : ""}${view.result}` : view.message, false);
  const buttons = $("buttons");
  buttons.replaceChildren();
  for (const choice of view.buttons) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = choice.name;
    button.dataset.action = choice.action;
    button.addEventListener("click", () => act("POST", "/api/move", { action: choice.action }));
    buttons.append(button);
  }
  const moves = $("moves");
  moves.replaceChildren();
  for (const move of view.moves) {
    const item = document.createElement("li");
    const who = view.seats[move.player] || `player_${move.player}`;
    item.textContent = `${who}${!view.review && move.player === view.seat ? " (you)" : ""}: ${move.name}`;
    item.className = `p${move.player}`;
    if (view.review) {
      item.style.cursor = "pointer";
      item.addEventListener("click", () => act("POST", "/api/step", { index: move.ply }));
    }
    moves.append(item);
  }
  $("review").hidden = !view.review;
  if (view.review) {
    $("ply").textContent = `ply ${view.index} of ${view.length}`;
  }
  $("undo").disabled = view.review;
  $("hint").disabled = view.review || !view.your_turn;
  $("evaluation").textContent = "";
}

function onBoardClick(event) {
  const cell = event.target.closest(".cell");
  if (!cell || !view || view.review) {
    return;
  }
  const box = cell.getBoundingClientRect();
  const side = event.clientX < box.left + box.width / 2 ? "left" : "right";
  act("POST", "/api/move", { cell: cell.dataset.cell, side });
}

function step(index) {
  if (view && view.review) {
    act("POST", "/api/step", { index: Math.max(0, Math.min(view.length, index)) });
  }
}

async function loadRecord(file) {
  try {
    const record = JSON.parse(await file.text());
    show(await call("POST", "/api/load", { record }));
  } catch (err) {
    say(err instanceof SyntaxError ? `${file.name} is not JSON: ${err.message}` : err.message, true);
  }
}

async function start() {
  const listing = await call("GET", "/api/games");
  const select = $("game");
  for (const game of listing.games) {
    const option = document.createElement("option");
    option.value = game.id;
    option.textContent = game.id;
    option.title = game.description;
    select.append(option);
  }
  select.value = listing.default_env;
  $("opponent").value = listing.default_opponent;
  $("setup").addEventListener("submit", (event) => {
    event.preventDefault();
    const seed = $("seed").value.trim();
    act("POST", "/api/new", {
      env_id: select.value,
      options: $("options").value.trim(),
      opponent: $("opponent").value.trim(),
      seat: Number($("seat").value),
      seed: seed === "" ? null : /^\d+$/.test(seed) ? Number(seed) : seed,
    });
  });
  $("board").addEventListener("click", onBoardClick);
  $("undo").addEventListener("click", () => act("POST", "/api/undo"));
  $("hint").addEventListener("click", () => {
    say("the hint agent is thinking...", false);
    act("POST", "/api/hint");
  });
  $("evaluate").addEventListener("click", async () => {
    $("evaluation").textContent = "the oracle is thinking...";
    try {
      $("evaluation").textContent = (await call("POST", "/api/evaluate")).text;
    } catch (err) {
      $("evaluation").textContent = err.message;
    }
  });
  $("load-file").addEventListener("change", (event) => {
    if (event.target.files.length) {
      loadRecord(event.target.files[0]);
      event.target.value = "";
    }
  });
  $("first").addEventListener("click", () => step(0));
  $("prev").addEventListener("click", () => step(view.index - 1));
  $("next").addEventListener("click", () => step(view.index + 1));
  $("last").addEventListener("click", () => step(view.length));
  try {
    show(await call("GET", "/api/state"));
  } catch (err) {
    act("POST", "/api/new", { env_id: select.value, seat: 0 });
  }
}

start();
