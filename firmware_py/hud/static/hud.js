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
  const parts = [];
  if (state.best !== null && state.to_move) {
    parts.push(span(state.to_move, `${state.to_move}→${state.best}`));
    if (state.reply) {
      parts.push(span("then", "then"));
      parts.push(span(`${state.reply.colour} reply`, `${state.reply.colour}→${state.reply.column}`));
    }
  }
  $("moves-now").replaceChildren(...parts);
  let verdict = state.mode === "opponent" && state.state !== "finished"
    ? state.message || "Your move" : state.verdict;
  if (!verdict) {
    verdict = { scanning: "Looking for the board…", transitional: "The board is changing…",
                solved: "Thinking…", finished: "Game over" }[state.state] || "";
  }
  $("verdict").textContent = verdict;
  $("explain").textContent = explain(state);
}

function span(className, text) {
  const element = document.createElement("span");
  element.className = className;
  element.textContent = text;
  return element;
}

// One line that says what the headline means: whose turn, the reply, the distance.
function explain(state) {
  if (state.mode === "opponent") return state.opponent;
  if (state.best === null || !state.to_move) return "";
  let text = `${NAMES[state.to_move]} to move: play column ${state.best}`;
  if (state.reply) {
    text += `, then ${NAMES[state.reply.colour]}'s best reply is ${state.reply.column}`;
  }
  const discs = state.plies === 1 ? "disc" : "discs";
  return `${text}. "In ${state.plies}": ${state.plies} ${discs} to go, this one included.`;
}

const STATUS_WORDS = { ok: "the camera reads the board", finished: "the camera reads a finished game" };

function drawReading(reading, health) {
  const status = $("reading-status");
  const dead = health.camera === "no frames";
  $("reading-box").hidden = !reading && !dead;
  drawBoard($("reading"), reading ? reading.grid : null, []);
  if (dead) {
    status.textContent = "The camera delivers no pictures.";
  } else if (reading) {
    const markers = reading.markers ? `markers ${reading.markers.join(", ")}`
                                    : `${reading.marker_count} markers`;
    status.textContent = `${STATUS_WORDS[reading.status] || `camera: ${reading.status}`} (${markers})`;
  }
  status.className = "status" + (dead ? " bad" : "");
  status.dataset.status = reading ? reading.status : "";
  $("reading-reason").textContent = dead || !reading ? "" : reading.reason;
  $("reading-remedy").textContent = dead || !reading ? "" : reading.remedy || "";
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
}

function drawGame(game) {
  const review = game.review || [];
  const before = game.start ? game.start.join("").replace(/\./g, "").length : 0;
  const items = [];
  if (before) {
    const start = document.createElement("li");
    start.className = "start";
    start.textContent = `${before} disc${before === 1 ? "" : "s"} at the start`;
    items.push(start);
  }
  [...game.moves].forEach((column, index) => {
    const number = before + index + 1;  // the disc's number on the board, Red's first is 1
    const colour = number % 2 ? "R" : "Y";
    const item = document.createElement("li");
    item.className = colour;
    item.textContent = `${number}. ${colour}${column}`;
    const mark = review[index];
    if (mark) {
      const note = document.createElement("span");
      note.className = "mark" + (BAD_MARKS.includes(mark.mark) ? " bad" : "");
      note.textContent = mark.mark;
      item.appendChild(note);
    }
    items.push(item);
  });
  if (!items.length) {
    const none = document.createElement("li");
    none.className = "start";
    none.textContent = "no moves yet";
    items.push(none);
  }
  const list = $("game");
  list.replaceChildren(...items);
  list.scrollTop = list.scrollHeight;  // the latest moves stay in view
  list.dataset.moves = game.moves;
}

function render(state) {
  const pill = $("state");
  pill.textContent = state.state;
  pill.className = "pill " + state.state;
  drawHeadline(state);
  drawBoard($("board"), state.grid || state.committed, state.winning);
  $("board").classList.toggle("changing", !state.grid && !!state.committed);
  drawReading(state.reading, state.health);
  drawHealth(state.health);
  drawGame(state.game);
  document.body.dataset.seq = state.seq;
  window.c4piShown = { seq: state.seq, at: Date.now() };  // for tools/bench/hud.py
}

function refreshCamera() {
  $("camera").src = "/camera.mjpg?t=" + Date.now();
}

function showPhoneLink() {
  // Only the Pi's own screen gets a link, and only when phones may open the page.
  fetch("/phone.json").then((response) => response.ok ? response.json() : null).then((link) => {
    if (!link) return;
    $("qr").src = `${link.qr}?t=${Date.now()}`;
    $("phone-url").textContent = link.url;
    $("phone").hidden = false;
  }).catch(() => {});
}

function setOnline(online) {
  $("offline").hidden = online;
  document.body.classList.toggle("offline", !online);
}

function connect() {
  const events = new EventSource("/events");
  events.addEventListener("state", (message) => render(JSON.parse(message.data)));
  events.onopen = () => {
    if (document.body.classList.contains("offline")) refreshCamera();
    setOnline(true);
  };
  events.onerror = () => setOnline(false);
}

window.addEventListener("DOMContentLoaded", () => {
  drawBoard($("board"), null, []);
  $("camera").addEventListener("error", () => setTimeout(refreshCamera, 1000));
  $("camera").addEventListener("load", (event) => {  // the picture's shape sets its box
    const { naturalWidth: width, naturalHeight: height } = event.target;
    if (width && height) document.body.style.setProperty("--camera-aspect", `${width} / ${height}`);
  });
  connect();
  showPhoneLink();
  setInterval(showPhoneLink, 60000);  // the Pi's address may change (DHCP)
});
// The camera stream never ends: start it after the page has loaded.
window.addEventListener("load", refreshCamera);
