// The chair's turn marker (turns.html): a key per turn while an interactive stage is recorded, saved
// as a turns file for `adjudicate live push --audio ... --turns FILE`. Plain DOM, nothing sent anywhere;
// the marks survive a reload (localStorage) until cleared.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const KEY = "adjudicator.turns";
  let state = JSON.parse(localStorage.getItem(KEY) || "null") || { t0: null, turns: [] };
  let timer = null;

  const keep = () => localStorage.setItem(KEY, JSON.stringify(state));
  const now = () => (state.t0 === null ? 0 : (Date.now() - state.t0) / 1000);
  const clock = (s) => `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, "0")}`;
  const label = (t) => t.speaker || (t.side === "affirmative" ? "Affirmative (debater not named)" : "Negative (debater not named)");

  function render() {
    $("marks").replaceChildren(...state.turns.map((t) => {
      const li = document.createElement("li");
      li.textContent = `${clock(t.at_s)}  ${label(t)}`;
      return li;
    }));
    $("save").disabled = state.turns.length === 0;
    $("start").textContent = state.t0 === null ? "Start (Space)" : "Running";
    $("clock").textContent = clock(now());
  }

  function start() {
    if (state.t0 !== null) return;
    state.t0 = Date.now();
    keep();
    tick();
  }

  function tick() {
    clearInterval(timer);
    timer = setInterval(() => { $("clock").textContent = clock(now()); }, 100);
    render();
  }

  function mark(side) {
    if (state.t0 === null) start();
    state.turns.push({ at_s: Math.round(now() * 10) / 10, side });
    keep();
    render();
  }

  function name(position) {
    const last = state.turns[state.turns.length - 1];
    if (!last) return;
    last.speaker = `${last.side === "affirmative" ? "Affirmative" : "Negative"} Speaker ${position}`;
    keep();
    render();
  }

  function save() {
    const body = JSON.stringify({ turns: state.turns.map((t) => (t.speaker ? { at_s: t.at_s, speaker: t.speaker } : { at_s: t.at_s, side: t.side })) }, null, 2) + "\n";
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([body], { type: "application/json" }));
    a.download = `turns-${($("stage-id").value || "stage").replace(/[^\w.-]/g, "_")}.json`;
    a.click();
    URL.revokeObjectURL(a.href);
  }

  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key.toLowerCase();
    if (k === " ") { e.preventDefault(); start(); }
    else if (k === "a") mark("affirmative");
    else if (k === "n") mark("negative");
    else if ("1234".includes(k) && k.length === 1) name(Number(k));
    else if (k === "backspace") { state.turns.pop(); keep(); render(); }
  });
  $("start").addEventListener("click", start);
  $("save").addEventListener("click", save);
  $("clear").addEventListener("click", () => { state = { t0: null, turns: [] }; keep(); clearInterval(timer); render(); });
  if (state.t0 !== null) tick(); else render();
  document.body.dataset.ready = "1";  // the keys are listened to from here on
})();
