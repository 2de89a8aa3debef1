// c4pi HUD: draws the state the appliance pushes over server-sent events.
"use strict";

const NAMES = { R: "Red", Y: "Yellow" };
const OTHER = { R: "Y", Y: "R" };
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

// The words for the appliance's states, on the pill (the raw state is in data-state).
const STATE_WORDS = { scanning: "looking for the board", transitional: "board changing",
                      solved: "solved", finished: "game over" };
let lastAdvice = null;  // the last solved headline: kept, dimmed, while a disc drops
let lastGame = null;  // the game's list, drawn again when the window changes size

function drawHeadline(state) {
  // A disc dropping makes the board "transitional" for a moment: the last advice stays
  // (dimmed) instead of the headline blinking out at every move.
  const dropping = state.state === "transitional" && lastAdvice && state.mode !== "opponent";
  if (state.state === "solved" && state.best !== null) lastAdvice = state;
  else if (!dropping) lastAdvice = null;
  const shown = dropping ? lastAdvice : state;
  $("moves-now").classList.toggle("stale", !!dropping);
  $("verdict").classList.toggle("stale", !!dropping);
  const parts = [];
  // No colour before anyone has started (an empty board when either colour may).
  if (shown.best !== null) {
    const mover = shown.to_move || "";
    parts.push(span(mover || "either", `${mover}→${shown.best}`));
    if (shown.reply) {
      const colour = shown.reply.colour || "";
      parts.push(span("then", "then"));
      parts.push(span(`${colour || "either"} reply`, `${colour}→${shown.reply.column}`));
    }
  }
  $("moves-now").replaceChildren(...parts);
  let verdict = state.mode === "opponent" && state.state !== "finished"
    ? state.message || "Your move" : shown.verdict;
  if (!verdict) {
    verdict = { scanning: "Looking for the board…", transitional: "The board is changing…",
                solved: "Thinking…", finished: "Game over" }[state.state] || "";
  }
  $("verdict").textContent = verdict;
  $("explain").textContent = dropping ? "The board is changing…" : explain(state);
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
  if (state.best === null) return "";
  const mover = state.to_move ? `${NAMES[state.to_move]} to move` : "Either colour may start";
  let text = `${mover}: play column ${state.best}`;
  if (state.reply) {
    const whose = state.reply.colour ? `${NAMES[state.reply.colour]}'s` : "the";
    text += `, then ${whose} best reply is ${state.reply.column}`;
  }
  const discs = state.plies === 1 ? "disc" : "discs";
  return `${text}. "In ${state.plies}": ${state.plies} ${discs} to go, this one included.`;
}

// What the camera reads, in words: the reader's own reason only when a refusal lasts
// (the hub then adds the advice); a frame refused now and then is normal play.
const STATUS_WORDS = { ok: "reads the board", finished: "reads a finished game",
                       "no-board": "finds no board", invalid: "cannot read this frame" };

function drawReading(reading, health) {
  const status = $("reading-status");
  const dead = health.camera === "no frames";
  $("reading-box").hidden = !reading && !dead;
  drawBoard($("reading"), reading ? reading.grid : null, []);
  const lasting = !!(reading && reading.remedy);
  if (dead) {
    status.textContent = "The camera delivers no pictures.";
  } else if (reading) {
    const count = reading.markers ? reading.markers.length : reading.marker_count;
    const markers = count === 4 ? "" : `, ${count} of 4 markers seen`;
    const words = STATUS_WORDS[reading.status] || reading.status;
    const passing = reading.status === "ok" || reading.status === "finished" || lasting
      ? "" : " (a hand or a falling disc: normal)";
    status.textContent = `Camera ${words}${markers}${passing}`;
    status.title = reading.reason || "";
  }
  status.className = "status" + (dead || lasting ? " bad" : "");
  status.dataset.status = reading ? reading.status : "";
  $("reading-reason").textContent = dead || !lasting ? "" : reading.reason;
  $("reading-remedy").textContent = dead || !lasting ? "" : reading.remedy;
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
  if (health.serial && health.serial !== "connected") add(`robot port: ${health.serial}`, true);
  if (health.looks) add(health.looks, false);
  if (health.first_sight) add(health.first_sight, true);
  $("health").replaceChildren(...parts);
}

function drawGame(game) {
  lastGame = game;
  const review = game.review || [];
  const before = game.start ? game.start.join("").replace(/\./g, "").length : 0;
  const items = [];
  if (before) {
    const start = document.createElement("li");
    start.className = "start";
    start.textContent = `${before} disc${before === 1 ? "" : "s"} at the start`;
    items.push(start);
  }
  const first = game.first || "R";  // the colour that started: its first disc is number 1
  [...game.moves].forEach((column, index) => {
    const number = before + index + 1;  // the disc's number on the board
    const colour = number % 2 ? first : OTHER[first];
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
  foldEarlyMoves(list);
  list.dataset.moves = game.moves;
}

// Where the list does not fit, the earliest moves fold into one "…" item: the
// latest moves always show whole, never cut at the edge of the box.
function foldEarlyMoves(list) {
  const moves = [...list.querySelectorAll("li.R, li.Y")];
  let folded = 0;
  const fold = document.createElement("li");
  fold.className = "start fold";
  while (list.scrollHeight > list.clientHeight + 1 && folded < moves.length - 1) {
    moves[folded].hidden = true;
    folded += 1;
    fold.textContent = `… ${folded} earlier`;
    if (!fold.isConnected) moves[0].before(fold);
  }
}

function render(state) {
  const pill = $("state");
  pill.textContent = STATE_WORDS[state.state] || state.state;
  pill.dataset.state = state.state;
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
  if (document.body.classList.contains("unpaired")) return;
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
  if (!online) {  // what the bar said is old too: say only that it is not known
    $("state").textContent = "offline";
    $("health").replaceChildren(document.createTextNode("no connection to c4pi"));
  }
}

// A phone on the network without the pairing code gets no camera picture and no play
// page: say how to pair instead of showing a broken picture and a link that refuses.
function checkPairing() {
  fetch("/camera.jpg", { method: "HEAD", cache: "no-store" }).then((response) => {
    const unpaired = response.status === 403;
    document.body.classList.toggle("unpaired", unpaired);
    $("pair-note").hidden = !unpaired;
    if (unpaired) $("camera").removeAttribute("src");
  }).catch(() => {});
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
  window.addEventListener("resize", () => { if (lastGame) drawGame(lastGame); });
  connect();
  checkPairing();
  showPhoneLink();
  setInterval(showPhoneLink, 60000);  // the Pi's address may change (DHCP)
});
// The camera stream never ends: start it after the page has loaded.
window.addEventListener("load", refreshCamera);
