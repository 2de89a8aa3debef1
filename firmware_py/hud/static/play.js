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
  $("hint").disabled = $("undo").disabled = state.over || busy;
  $("moves").textContent = state.moves ? `moves: ${state.moves}` : "";
  document.body.dataset.moves = state.moves;
  document.body.dataset.over = state.over;
}

async function send(path, body) {
  busy = true;
  if (game) drawColumns(game);
  try {
    const response = await fetch(path, { method: "POST", body: JSON.stringify(body),
                                         headers: { "Content-Type": "application/json" } });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error || response.statusText);
    busy = false;
    show(answer);
  } catch (error) {
    busy = false;
    $("message").textContent = `Sorry: ${error.message}`;
    if (game) drawColumns(game);
  }
}

function play(input) {
  if (game && !game.over && !busy) send(`/play/${game.game}`, { input });
}

window.addEventListener("DOMContentLoaded", () => {
  drawBoard(null);
  drawColumns(null);
  $("setup").addEventListener("submit", (event) => {
    event.preventDefault();
    const colour = document.querySelector("input[name=colour]:checked").value;
    send("/play/new", { level: Number($("level").value), colour });
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
