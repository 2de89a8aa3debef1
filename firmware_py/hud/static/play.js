// c4pi play page: a game against c4pi in the browser (POST /play/new, POST /play/<game>).
"use strict";

const $ = (id) => document.getElementById(id);
let game = null;
let busy = false;

function drawBoard(state) {
  const wins = new Set((state ? state.winning : []).map(([col, row]) => `${col},${row}`));
  const cells = [];
  for (let top = 0; top < 6; top++) {
    for (let col = 1; col <= 7; col++) {
      const disc = state ? state.grid[top][col - 1] : ".";
      const cell = document.createElement("div");
      cell.className = "cell" + (disc === "." ? "" : " " + disc);
      if (wins.has(`${col},${6 - top}`)) cell.classList.add("win");
      if (state && (state.hint || []).includes(col)) cell.classList.add("hinted");
      cell.dataset.column = col;
      cells.push(cell);
    }
  }
  $("board").replaceChildren(...cells);
  $("board").dataset.grid = state ? state.grid.join("/") : "";
}

function drawColumns(state) {
  const buttons = [];
  for (let col = 1; col <= 7; col++) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = col;
    button.dataset.column = col;
    button.disabled = !state || !state.legal.includes(col) || busy;
    if (state && (state.hint || []).includes(col)) button.classList.add("hinted");
    button.setAttribute("aria-label", `drop a disc in column ${col}`);
    buttons.push(button);
  }
  $("columns").replaceChildren(...buttons);
}

function show(state) {
  game = state;
  drawBoard(state);
  drawColumns(state);
  $("message").textContent = state.text.split("\n").filter((line) => line).join(" ");
  $("message").classList.toggle("over", state.over);  // the end is said big
  $("hint").disabled = $("undo").disabled = state.over || busy;
  $("moves").textContent = state.moves ? `Moves so far: ${movesText(state.moves, state.first)}`
    : "";
  $("new").textContent = state.over ? "Play again" : "New game";
  $("new").classList.toggle("quiet", !state.over);  // mid-game it is not the thing to tap
  document.body.dataset.moves = state.moves;
  document.body.dataset.over = state.over;
}

// "4153" -> "R4 Y1 R5 Y3" when Red started, "Y4 R1 Y5 R3" when Yellow did.
function movesText(moves, first) {
  const second = first === "Y" ? "R" : "Y";
  return [...moves].map((column, index) => `${index % 2 ? second : first}${column}`).join(" ");
}

function setOnline(online) {
  $("offline").hidden = online;
  document.body.classList.toggle("offline", !online);
  $("play-status").textContent = online ? "" : "no connection to c4pi";
}

async function send(path, body) {
  busy = true;
  if (game) drawColumns(game);
  try {
    const response = await fetch(path, { method: "POST", body: JSON.stringify(body),
                                         headers: { "Content-Type": "application/json" } });
    const answer = await response.json();
    setOnline(true);
    if (!response.ok) throw new Error(answer.error || response.statusText);
    busy = false;
    show(answer);
  } catch (error) {
    busy = false;
    if (error instanceof TypeError) setOnline(false);  // fetch itself failed: no server
    $("message").textContent = `Sorry: ${error.message}`;
    if (game) drawColumns(game);
  }
}

function play(input) {
  if (game && !game.over && !busy) send(`/play/${game.game}`, { input });
}

// The level chosen at first is the appliance's [play] level.
async function loadOptions() {
  try {
    const response = await fetch("/play/options");
    if (!response.ok) return;
    const options = await response.json();
    $("level").replaceChildren(...options.levels.map((level) => {
      const option = document.createElement("option");
      option.value = level.number;
      option.textContent = `${level.number} ${level.name}`;
      option.selected = level.number === options.level;
      return option;
    }));
    showStarter(options.first, options.first_fixed);
    document.body.dataset.options = "loaded";
  } catch (error) { setOnline(false); }
}

// Who starts at first; where [game] first names a colour, only that one can.
function showStarter(first, fixed) {
  for (const input of document.querySelectorAll("input[name=first]")) {
    input.checked = input.value === first;
    input.disabled = fixed && input.value !== first;
  }
  $("starts").title = fixed ? "this table's rule says who starts" : "";
}

// Is c4pi still there? (The page has no event stream to tell it.)
async function checkOnline() {
  try {
    await fetch("/play/options", { method: "HEAD", cache: "no-store" });
    setOnline(true);
  } catch (error) { setOnline(false); }
}

window.addEventListener("DOMContentLoaded", () => {
  drawBoard(null);
  drawColumns(null);
  loadOptions();
  setInterval(checkOnline, 3000);
  $("setup").addEventListener("submit", (event) => {
    event.preventDefault();
    // a game under way is not thrown away by a stray tap: ask first
    if (game && !game.over && game.moves && !confirm("Give up this game and start a new one?")) {
      return;
    }
    const colour = document.querySelector("input[name=colour]:checked").value;
    const first = document.querySelector("input[name=first]:checked").value;
    send("/play/new", { level: Number($("level").value), colour, first });
  });
  const onColumn = (event) => {
    const column = event.target.dataset.column;
    if (column) play(column);
  };
  $("columns").addEventListener("click", onColumn);
  $("board").addEventListener("click", onColumn);
  $("hint").addEventListener("click", () => play("h"));
  $("undo").addEventListener("click", () => play("u"));
});
