// Live board: renders the server's board snapshots (GET /api/matches/{id} and its SSE stream).
// Plain DOM, no framework, no network beyond this server. Debate text is only ever set with
// textContent, never as HTML.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const TOKEN_KEY = "adjudicator-live-token";

  // The organiser URL carries ?token=...; keep it for this tab and take it out of the address bar.
  if (params.get("token")) {
    sessionStorage.setItem(TOKEN_KEY, params.get("token"));
    params.delete("token");
    const q = params.toString();
    history.replaceState(null, "", location.pathname + (q ? "?" + q : ""));
  }
  const token = sessionStorage.getItem(TOKEN_KEY);
  const path = location.pathname.replace(/\/+$/, "");
  const matchId = path.startsWith("/board/") ? decodeURIComponent(path.slice("/board/".length)) : params.get("match");
  const organiser = Boolean(token);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  }
  const sideShort = (s) => (s === "affirmative" ? "AFF" : "NEG");
  const KIND_ICON = { opened: "✦", advanced: "▲", defended: "■", conceded: "▼", contested: "⇄" };
  const fmtP = (p) => (p === null || p === undefined ? "–" : Number(p).toFixed(2));
  // "1 event", "2 events"
  const count = (n, one, many) => `${n} ${n === 1 ? one : many || one + "s"}`;
  const TENDENCY_NOTE = "From the trackers' analyses so far: a logistic of the like-for-like suggested-score gap and the clash momentum. The panel's verdict comes when the match is closed.";
  const SUPERSEDED_NOTE = "The trackers' provisional estimate as it stood before the panel met. It is not the result: the panel's verdict above is.";

  function setConn(state, text) {
    const c = $("conn");
    c.className = "conn " + state;
    c.textContent = text;
  }

  async function api(method, url, body) {
    const headers = { "Content-Type": "application/json" };
    if (token) headers["Authorization"] = "Bearer " + token;
    const resp = await fetch(url, { method, headers, body: body === undefined ? undefined : body });
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    if (!resp.ok) throw new Error((data && data.detail) || ("HTTP " + resp.status));
    return data;
  }

  function message(id, text, ok) {
    const m = $(id);
    m.textContent = text;
    m.className = "msg " + (ok ? "ok" : "bad");
  }

  // ------------------------------------------------------------------ match list

  async function showList() {
    $("list-view").hidden = false;
    document.title = "Live matches · adjudicator";
    if (organiser) {
      $("create-panel").hidden = false;
      $("create-body").value = JSON.stringify({
        match_id: "round1-a", format: "ccdb-4v4", language: "zh", motion: "", affirmative_position: "", negative_position: "",
        debaters: ["affirmative", "negative"].flatMap((side) => [1, 2, 3, 4].map((position) => ({ side, position, name: "" }))),
      }, null, 2);
      $("create-btn").onclick = async () => {
        try {
          const r = await api("POST", "/api/matches", $("create-body").value);
          location.href = r.board_url;
        } catch (e) { message("create-msg", e.message, false); }
      };
    }
    const refresh = async () => {
      try {
        const data = await api("GET", "/api/matches");
        const tbody = $("match-table").querySelector("tbody");
        tbody.replaceChildren(...data.matches.map((m) => el("tr", {},
          el("td", {}, el("a", { href: m.board_url, text: m.match_id })),
          el("td", { text: m.motion }), el("td", { text: m.format }), el("td", { text: m.status }),
          el("td", { text: `${m.analysed}/${m.received}` }))));
        $("no-matches").hidden = data.matches.length > 0;
        setConn("live", "connected");
      } catch (e) { setConn("down", "server unreachable"); }
    };
    await refresh();
    setInterval(refresh, 4000);
  }

  // ------------------------------------------------------------------ one match

  let lastNextSlot = null;
  let pushDirty = false;

  function renderHeader(s) {
    const m = s.match;
    document.title = `${m.match_id} · live board`;
    $("m-format").textContent = m.format;
    $("m-id").textContent = m.match_id;
    $("m-model").textContent = s.is_llm ? s.model : `${s.model} (offline baseline, not an LLM)`;
    $("m-motion").textContent = m.motion;
    $("m-aff").textContent = m.affirmative_position;
    $("m-neg").textContent = m.negative_position;
    const st = $("m-status");
    st.textContent = s.status;
    st.className = "badge " + s.status;
    const of = m.expected_stages ? ` of ${m.expected_stages}` : "";
    const noun = m.expected_stages || s.analysed !== 1 ? "stages" : "stage";
    $("stage-progress").textContent = `${s.analysed}${of} ${noun} analysed · ${s.received} received`;
    $("pending").hidden = s.pending.length === 0;
    $("pending").textContent = s.pending.length ? `analysing ${s.pending.join(", ")}…` : "";
    $("error").hidden = !s.error;
    $("error").textContent = s.error || "";
    $("panel-error").hidden = !s.panel_error;
    $("panel-error").textContent = s.panel_error ? "Panel: " + s.panel_error : "";
  }

  // After close the panel's verdict is the result; the trackers' tendency stays visible only as the
  // labelled pre-verdict estimate.
  function renderTendency(t, decided, analysed) {
    $("tendency-panel").classList.toggle("superseded", decided);
    $("tendency-title").textContent = decided ? "Pre-verdict estimate (not the result)" : "Provisional tendency";
    $("tendency-note").textContent = decided ? SUPERSEDED_NOTE : TENDENCY_NOTE;
    $("scores-title").textContent = decided ? "Trackers' stage scores (pre-verdict)" : "Provisional stage scores";
    const p = t.p;
    const pct = p === null ? 50 : Math.round(p * 100);
    $("tbar-aff").style.width = pct + "%";
    $("tbar-mark").style.left = pct + "%";
    $("tendency-p").textContent = fmtP(p);
    $("tendency-p").dataset.p = p === null ? "" : String(p);
    const gap = (t.score_gap >= 0 ? "+" : "") + t.score_gap.toFixed(2);
    const mom = (t.momentum >= 0 ? "+" : "") + t.momentum.toFixed(2);
    $("tendency-text").textContent = p === null
      ? (analysed ? "Not enough to compare yet: both sides must be scored in a comparable stage." : "Nothing analysed yet.")
      : `${decided ? "Trackers leaned" : "Leaning"}: ${t.leaning}. Like-for-like score gap ${gap} (${count(t.compared_groups, "comparable stage group")}), clash momentum ${mom} (${count(t.counted_events, "event")}).`;
  }

  function renderLatest(s, decided) {
    const l = s.latest;
    $("latest-empty").hidden = Boolean(l);
    $("latest").hidden = !l;
    if (!l) return;
    $("latest-name").textContent = `${l.stage_id} · ${l.stage_name}`;
    $("latest-scores").replaceChildren(...l.scores.map((x) => el("span", { class: "chip " + x.side, text: `${sideShort(x.side)}${x.role ? " " + x.role : ""} ${x.suggested_score}` })));
    $("latest-summary").textContent = l.summary || "";
    const items = l.clash_events.map((e) => el("li", {},
      el("span", { class: "chip " + e.side, text: `${KIND_ICON[e.kind] || ""} ${sideShort(e.side)} ${e.kind}` }), " ",
      el("strong", { text: e.title }), e.note ? " — " + e.note : ""));
    $("latest-events").replaceChildren(...(items.length ? items : [el("li", { class: "muted", text: "No clash moved in this stage." })]));
    const label = decided ? "Pre-verdict estimate" : "Provisional tendency";
    $("latest-move").textContent = l.tendency_before === null || l.tendency_before === undefined
      ? `${label} ${decided ? "" : "now "}${fmtP(l.tendency_after)}.`
      : `${label} ${fmtP(l.tendency_before)} → ${fmtP(l.tendency_after)}.`;
  }

  function meter(momentum) {
    const w = Math.round(Math.abs(momentum) * 50);
    const span = momentum >= 0
      ? el("span", { class: "a", style: `left:50%;width:${w}%` })
      : el("span", { class: "n", style: `left:${50 - w}%;width:${w}%` });
    return el("div", { class: "meter", title: `momentum ${momentum.toFixed(2)}` }, span);
  }

  function renderMap(s, latestId) {
    const stages = s.stages;
    const thead = $("clash-table").querySelector("thead");
    thead.replaceChildren(el("tr", {}, el("th", { text: "Clash and positions" }),
      ...stages.map((st, i) => el("th", { class: "stagehead", title: `${st.stage_id} ${st.name}`, text: `${i + 1}` }))));
    const rows = s.clashes.map((c) => {
      const cells = stages.map((st) => {
        const evs = c.events.filter((e) => e.stage_id === st.stage_id);
        return el("td", { class: "stagecell" }, ...evs.map((e) => el("span", {
          class: "chip " + e.side,
          title: `${st.name}: ${e.side} ${e.kind}${e.debater ? " (" + e.debater + ")" : ""}${e.note ? " — " + e.note : ""}`,
          text: `${KIND_ICON[e.kind] || "?"}${sideShort(e.side)[0]}`,
        })));
      });
      const tr = el("tr", { class: "clash-row", "data-clash": c.clash_id },
        el("td", {}, el("div", { class: "clash-title", text: c.title }),
          c.affirmative_position ? el("div", { class: "pos aff", text: "AFF: " + c.affirmative_position }) : null,
          c.negative_position ? el("div", { class: "pos neg", text: "NEG: " + c.negative_position }) : null,
          meter(c.momentum)),
        ...cells);
      if (c.events.some((e) => e.stage_id === latestId)) tr.classList.add("new");
      return tr;
    });
    $("clash-table").querySelector("tbody").replaceChildren(...rows);
    $("no-clashes").hidden = s.clashes.length > 0;
  }

  function scoreCell(x) {
    if (!x) return el("td", { class: "muted", text: "" });
    const title = `${x.task_performance} task · ${x.battlefield_judgement} battlefield · ${x.advancement} advancement${x.rationale ? "\n" + x.rationale : ""}`;
    return el("td", {}, el("span", { class: "score " + x.band, title, text: String(x.suggested_score) }), x.role ? el("span", { class: "role", text: " " + x.role }) : null);
  }

  function renderScores(s, latestId) {
    const bySide = {};
    for (const x of s.scores) bySide[x.stage_id + "|" + x.side] = x;
    const rows = s.stages.map((st, i) => {
      const tr = el("tr", { class: "score-row", "data-stage": st.stage_id },
        el("td", { text: String(i + 1) }), el("td", { text: st.name }), el("td", { text: st.type }),
        st.analysed || st.failed ? scoreCell(bySide[st.stage_id + "|affirmative"]) : el("td", { class: "muted", text: "…" }),
        st.analysed || st.failed ? scoreCell(bySide[st.stage_id + "|negative"]) : el("td", { class: "muted", text: "…" }));
      if (st.stage_id === latestId) tr.classList.add("new");
      if (st.failed) tr.title = "analysis failed; see the failures";
      return tr;
    });
    $("score-table").querySelector("tbody").replaceChildren(...rows);
  }

  function renderVerdict(s) {
    const v = s.verdict;
    $("verdict-panel").hidden = !v;
    if (!v) return;
    $("verdict-winner").textContent = v.winner ? `Winner: ${v.winner}` : "No winner determined";
    $("verdict-winner").className = "big " + (v.winner === "affirmative" ? "aff-text" : "neg-text");
    $("verdict-p").textContent = v.p === null ? "" : `winner tendency p = ${fmtP(v.p)}`;
    $("verdict-split").textContent = v.winner_split ? `panel split ${v.winner_split}` : "";
    const votes = Object.entries(v.best_debater_votes).map(([k, n]) => `${k} ${n}`).join(", ");
    $("verdict-best").textContent = `Best debater: ${v.best_debaters.join(", ") || "–"} (votes: ${votes || "none"})`;
    $("verdict-ballots").replaceChildren(...v.ballots.map((b) => el("li", { text: `${b.judge_id}${b.perspective ? " (" + b.perspective + ")" : ""}: ${b.winner}, p = ${fmtP(b.p)}` })));
    $("verdict-report").href = v.report_url;
    $("verdict-json").href = v.verdict_url;
  }

  function renderOrganiser(s) {
    if (!organiser) return;
    $("push-panel").hidden = s.status === "closed";
    const slot = s.next_slot;
    const key = slot ? JSON.stringify(slot.stage) : "";
    $("push-hint").textContent = slot
      ? `Next: #${slot.position}${slot.of ? " of " + slot.of : ""} ${slot.stage.name} (${slot.stage.type}). Fill in the utterances and push.`
      : s.status === "open" ? "All stages of the format are in; close the match to run the panel." : "";
    if (key !== lastNextSlot && !pushDirty) {
      $("push-body").value = slot ? JSON.stringify(slot.stage, null, 2) : "";
    }
    lastNextSlot = key;
    $("close-btn").disabled = s.status !== "open" && s.status !== "closing";
  }

  function render(s) {
    const latestId = s.latest ? s.latest.stage_id : null;
    renderHeader(s);
    const decided = s.status === "closed" && Boolean(s.verdict);
    renderTendency(s.tendency, decided, s.analysed);
    renderLatest(s, decided);
    renderMap(s, latestId);
    renderScores(s, latestId);
    renderVerdict(s);
    renderOrganiser(s);
    document.body.dataset.revision = String(s.revision);
    document.body.dataset.analysed = String(s.analysed);
    document.body.dataset.status = s.status;
  }

  function showMatch(id) {
    $("match-view").hidden = false;
    if (organiser) {
      $("push-body").addEventListener("input", () => { pushDirty = true; });
      $("push-btn").onclick = async () => {
        $("push-btn").disabled = true;
        message("push-msg", "pushing…", true);
        try {
          const r = await api("POST", `/api/matches/${encodeURIComponent(id)}/stages`, $("push-body").value);
          pushDirty = false;
          message("push-msg", `${r.stage_id}: ${r.duplicate ? "already received" : r.status}`, true);
        } catch (e) { message("push-msg", e.message, false); }
        $("push-btn").disabled = false;
      };
      $("close-btn").onclick = async () => {
        if (!confirm("Close the match and run the panel? No more stages can be pushed.")) return;
        $("close-btn").disabled = true;
        message("push-msg", "the panel is deliberating…", true);
        try {
          const v = await api("POST", `/api/matches/${encodeURIComponent(id)}/close`);
          message("push-msg", `closed: winner ${v.winner}`, true);
        } catch (e) { message("push-msg", e.message, false); $("close-btn").disabled = false; }
      };
    }
    const source = new EventSource(`/api/matches/${encodeURIComponent(id)}/events`);
    source.addEventListener("board", (ev) => {
      setConn("live", "live");
      render(JSON.parse(ev.data));
    });
    source.onopen = () => setConn("live", "live");
    source.onerror = () => {
      setConn("down", "reconnecting…");
      // a match that does not exist: say so instead of retrying forever
      fetch(`/api/matches/${encodeURIComponent(id)}`).then((r) => {
        if (r.status === 404) {
          source.close();
          setConn("down", "no such match");
          $("error").hidden = false;
          $("error").textContent = `No live match "${id}".`;
        }
      }).catch(() => {});
    };
  }

  if (matchId) showMatch(matchId);
  else showList();
})();
