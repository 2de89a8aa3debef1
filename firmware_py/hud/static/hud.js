// c4pi HUD: draws the state the appliance pushes over server-sent events.
"use strict";

const NAMES = { R: "Red", Y: "Yellow" };
const BAD_MARKS = ["threw the win away", "threw the win away (draw)", "lost the draw"];
const $ = (id) => document.getElementById(id);

function drawBoard(element, grid, winning) {
  const wins = new Set((winning || []).map(([col, row]) => `${col},${row}`));
  const cells = [];
  for (let top = 0; top < 6; top++) {
    for (let col = 1; col <= 7; col++) {
      const disc = grid ? grid[top][col - 1] : ".";
      const cell = document.createElement("div");
      cell.className = "cell" + (disc === "." ? "" : " " + disc);
      if (wins.has(`${col},${6 - top}`)) cell.classList.add("win");
      cells.push(cell);
    }
  }
  element.replaceChildren(...cells);
  element.dataset.grid = grid ? grid.join("/") : "";
}

function drawHeadline(state) {
  const now = $("moves-now");
  const parts = [];
  if (state.best !== null && state.to_move) {
    parts.push([state.to_move, `${state.to_move}→${state.best}`]);
    if (state.reply) parts.push([state.reply.colour, `${state.reply.colour}→${state.reply.column}`]);
  }
  now.replaceChildren(...parts.flatMap(([colour, text], index) => {
    const span = document.createElement("span");
    span.className = colour;
    span.textContent = text;
    if (index === 0) return [span];
    const gap = document.createElement("span");
    gap.className = "sep";
    return [gap, span];
  }));
  let verdict = state.mode === "opponent" && state.state !== "finished"
    ? state.message || "Your move" : state.verdict;
  if (!verdict) {
    verdict = { scanning: "Looking for the board…", transitional: "The board is changing…",
                solved: "Thinking…", finished: "Game over" }[state.state] || "";
  }
  $("verdict").textContent = verdict;
  $("opponent").textContent = state.mode === "opponent" ? state.opponent : "";
}

function drawReading(reading) {
  const box = $("reading-box");
  if (!reading) { box.hidden = true; return; }
  box.hidden = false;
  drawBoard($("reading"), reading.grid, []);
  const markers = reading.markers ? ` (markers ${reading.markers.join(", ")})`
                                  : ` (${reading.marker_count} markers)`;
  $("reading-status").textContent = `camera reads: ${reading.status}${markers}`;
  $("reading-reason").textContent = reading.reason;
  $("reading-remedy").textContent = reading.remedy || "";
}

function drawHealth(health) {
  const parts = [];
  const add = (text, bad) => {
    const span = document.createElement("span");
    span.textContent = text;
    if (bad) span.className = "bad";
    parts.push(span, document.createTextNode("  "));
  };
  add(health.camera === "live" ? `camera ${health.fps.toFixed(1)} fps`
      : health.camera === "starting" ? "camera starting" : "camera: no frames",
      health.camera === "no frames");
  add(health.solver === "gone" ? "solver unavailable" : `solver ${health.solver}`,
      health.solver === "gone");
  if (health.speech && health.speech !== "on") {
    add(`speech ${health.speech}`, health.speech === "down" || health.speech === "failing");
  }
  $("health").replaceChildren(...parts);
  const note = $("camera-note");
  note.textContent = health.camera === "no frames" ? "The camera delivers no pictures." : "";
  note.className = "note" + (health.camera === "no frames" ? " bad" : "");
}

function drawGame(game) {
  const review = game.review || [];
  const moves = [...game.moves];
  const first = game.start ? (game.start.join("").replace(/\./g, "").length % 2 ? "Y" : "R") : "R";
  const items = moves.map((column, index) => {
    const colour = (index % 2 === 0) === (first === "R") ? "R" : "Y";
    const item = document.createElement("li");
    item.className = colour;
    item.textContent = `${index + 1}. ${colour}${column}`;
    const mark = review[index];
    if (mark) {
      const note = document.createElement("span");
      note.className = "mark" + (BAD_MARKS.includes(mark.mark) ? " bad" : "");
      note.textContent = mark.mark;
      item.appendChild(note);
    }
    return item;
  });
  $("game").replaceChildren(...items);
  $("game").dataset.moves = game.moves;
}

function render(state) {
  const pill = $("state");
  pill.textContent = state.state;
  pill.className = "pill " + state.state;
  drawHeadline(state);
  drawBoard($("board"), state.grid || state.committed, state.winning);
  $("board").classList.toggle("changing", !state.grid && !!state.committed);
  drawReading(state.reading);
  drawHealth(state.health);
  drawGame(state.game);
  document.body.dataset.seq = state.seq;
  window.c4piShown = { seq: state.seq, at: Date.now() };  // for tools/bench/hud.py
}

function refreshCamera() {
  $("camera").src = "/camera.mjpg?t=" + Date.now();
}

function connect() {
  const events = new EventSource("/events");
  events.addEventListener("state", (message) => render(JSON.parse(message.data)));
  events.onopen = () => {
    if (!$("link").hidden) refreshCamera();
    $("link").hidden = true;
  };
  events.onerror = () => { $("link").hidden = false; };
}

window.addEventListener("DOMContentLoaded", () => {
  drawBoard($("board"), null, []);
  $("camera").addEventListener("error", () => setTimeout(refreshCamera, 1000));
  connect();
});
// The camera stream never ends: start it after the page has loaded.
window.addEventListener("load", refreshCamera);
