// Live board: renders the server's board snapshots (GET /api/matches/{id} and its SSE stream), a
// tournament round's overview (GET /api/tournaments/{t}/rounds/{r}), and, for a token holder, the
// forms to push stages and to confirm or release a verdict.
// Plain DOM, no framework, no network beyond this server. Debate text is only ever set with
// textContent, never as HTML. Every word comes from the label table (GET /api/labels) in the match's
// language.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const TOKEN_KEY = "adjudicator-live-token";

  // The organiser or chair URL carries ?token=...; keep it for this tab and take it out of the address bar.
  if (params.get("token")) {
    sessionStorage.setItem(TOKEN_KEY, params.get("token"));
    params.delete("token");
    const q = params.toString();
    history.replaceState(null, "", location.pathname + (q ? "?" + q : ""));
  }
  const token = sessionStorage.getItem(TOKEN_KEY);
  const path = location.pathname.replace(/\/+$/, "");
  const roundMatch = path.match(/^\/board\/round\/([^/]+)\/([^/]+)$/);
  const matchId = roundMatch ? null : path.startsWith("/board/") ? decodeURIComponent(path.slice("/board/".length)) : params.get("match");
  const organiser = Boolean(token);

  let TABLES = null;
  let L = {};

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k === "style") node.style.cssText = v; // CSSOM: the page's Content-Security-Policy allows no inline style attribute
      else node.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  }
  // "{name}" placeholders filled from vars
  const t = (key, vars) => {
    let s = L[key];
    if (s === undefined) s = key;
    for (const [k, v] of Object.entries(vars || {})) s = s.split("{" + k + "}").join(String(v));
    return s;
  };
  const side = (s) => t("side." + s);
  const sideShort = (s) => t("side_short." + s);
  const stageType = (x) => t("stage_type." + x);
  const KIND_ICON = { opened: "✦", advanced: "▲", defended: "■", conceded: "▼", contested: "⇄" };
  const fmtP = (p) => (p === null || p === undefined ? "–" : Number(p).toFixed(2));
  const signed = (x) => (x >= 0 ? "+" : "") + Number(x).toFixed(2);
  // English "1 event" / "2 events"; Chinese counters do not inflect
  const count = (n, one, many) => `${n} ${n === 1 ? t(one) : t(many)}`;

  async function loadLabels() {
    try {
      const r = await fetch("/api/labels");
      TABLES = await r.json();
    } catch (e) { TABLES = { en: {} }; }
    setLanguage("en");
  }

  function setLanguage(lang) {
    L = (TABLES && TABLES[lang]) || (TABLES && TABLES.en) || {};
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
    document.body.dataset.lang = lang;
    for (const node of document.querySelectorAll("[data-l]")) {
      const v = L[node.dataset.l];
      if (v !== undefined) node.textContent = v;
    }
  }

  function setConn(state, key) {
    const c = $("conn");
    c.className = "conn " + state;
    c.textContent = t(key);
  }

  // A 401 to a tab that sends a token: the server does not know it (revoked, or another server's).
  // Forget it and show the page as the public sees it, instead of failing every read.
  function forgetStaleToken(resp) {
    if (resp.status === 401 && token) {
      sessionStorage.removeItem(TOKEN_KEY);
      location.reload();
    }
  }

  async function api(method, url, body) {
    const headers = { "Content-Type": "application/json" };
    if (token) headers["Authorization"] = "Bearer " + token;
    const resp = await fetch(url, { method, headers, body: body === undefined ? undefined : body });
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    forgetStaleToken(resp);
    if (!resp.ok) {
      const err = new Error((data && data.detail) || ("HTTP " + resp.status));
      err.status = resp.status;
      throw err;
    }
    return data;
  }

  // A stored UTC ISO 8601 time, shown in the reader's time zone in the board's language.
  const fmtTime = (iso) => {
    if (!iso) return "";
    const d = new Date(iso);
    return isNaN(d) ? iso : d.toLocaleString(document.documentElement.lang || "en", { dateStyle: "medium", timeStyle: "short" });
  };

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
        debaters: ["affirmative", "negative"].flatMap((s) => [1, 2, 3, 4].map((position) => ({ side: s, position, name: "" }))),
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
        const ts = (await api("GET", "/api/tournaments")).tournaments;
        $("tournament-list").hidden = ts.length === 0;
        $("tournaments").replaceChildren(...ts.map((x) => el("li", {}, el("strong", { text: x.name }), " ",
          ...x.rounds.map((r) => el("a", { class: "round-link", href: `/board/round/${encodeURIComponent(x.tournament_id)}/${encodeURIComponent(r)}`, text: r })))));
        setConn("live", "conn.live");
      } catch (e) { setConn("down", "conn.reconnecting"); }
    };
    await refresh();
    setInterval(refresh, 4000);
  }

  // ------------------------------------------------------------------ a round of a tournament

  function verdictCell(room) {
    const state = room.verdict_state;
    const label = t("state." + state);
    const cell = el("td", { class: "verdict-cell state-" + state, "data-state": state });
    cell.append(el("span", { class: "state-badge", text: label }));
    if (room.winner) {
      cell.append(" ", el("span", { class: room.winner === "affirmative" ? "aff-text" : "neg-text", text: t("verdict.winner", { side: side(room.winner) }) + (room.winner_team ? ` (${room.winner_team})` : "") }));
    }
    return cell;
  }

  function tendencyCell(room) {
    const p = room.tendency;
    const pct = p === null ? 50 : Math.round(p * 100);
    return el("td", { class: "tendency-cell" },
      el("div", { class: "mini-bar" }, el("span", { class: "a", style: `width:${pct}%` })),
      el("span", { class: "mini-p", text: room.leaning === "withheld" ? t("leaning.withheld") : fmtP(p) }));
  }

  async function showRound(tid, rid) {
    $("round-view").hidden = false;
    let langSet = false;
    const refresh = async () => {
      try {
        const data = await api("GET", `/api/tournaments/${encodeURIComponent(tid)}/rounds/${encodeURIComponent(rid)}`);
        if (!langSet) { setLanguage(data.language); langSet = true; }
        document.title = `${data.round.name} · ${data.tournament.name}`;
        $("r-tournament").textContent = data.tournament.name;
        $("r-name").textContent = data.round.name;
        $("r-motion").textContent = data.round.motion;
        const rows = data.rooms.map((room) => el("tr", { class: "room-row", "data-room": room.room_id },
          el("td", {}, el("a", { href: room.board_url, text: room.name })),
          el("td", {}, el("span", { class: "aff-text", text: room.teams.affirmative }), " – ", el("span", { class: "neg-text", text: room.teams.negative })),
          el("td", { class: "stages-cell", text: room.expected_stages ? `${room.analysed} / ${room.expected_stages}` : String(room.analysed) }),
          tendencyCell(room), verdictCell(room)));
        $("round-table").querySelector("tbody").replaceChildren(...rows);
        $("round-empty").hidden = data.rooms.length > 0;
        // the server says who the token is: a spectator or a chair sees no organiser control (a stale token is forgotten: api())
        $("round-actions").hidden = data.viewer !== "organiser";
        $("release-round-btn").textContent = t("round.release");
        document.body.dataset.rooms = String(data.rooms.length);
        document.body.dataset.released = String(data.rooms.filter((r) => r.verdict_state === "released").length);
        setConn("live", "conn.live");
      } catch (e) { setConn("down", "conn.reconnecting"); }
    };
    $("release-round-btn").onclick = async () => {
      try {
        await api("POST", `/api/tournaments/${encodeURIComponent(tid)}/rounds/${encodeURIComponent(rid)}/release`, "{}");
        message("round-msg", t("confirm.released"), true);
        refresh();
      } catch (e) { message("round-msg", e.message, false); }
    };
    await refresh();
    setInterval(refresh, 3000);
  }

  // ------------------------------------------------------------------ one match

  let lastNextSlot = null;
  let pushDirty = false;
  let current = null;      // the latest public snapshot
  let privateRoom = null;  // the room as its chair or the organiser sees it (draft, override)
  let confirmDirty = false;

  function progressText(s) {
    const m = s.match;
    if (document.body.dataset.lang === "zh") {
      const n = m.expected_stages ? `${s.analysed}/${m.expected_stages}` : `${s.analysed}`;
      return `已分析 ${n} 个环节 · 已收到 ${s.received} 个`;
    }
    const of = m.expected_stages ? ` of ${m.expected_stages}` : "";
    const noun = m.expected_stages || s.analysed !== 1 ? "stages" : "stage";
    return `${s.analysed}${of} ${noun} analysed · ${s.received} received`;
  }

  function renderHeader(s) {
    const m = s.match;
    document.title = `${m.match_id} · ${t("page.title")}`;
    $("m-room").textContent = s.room ? `${s.room.round_name} · ${t("page.room")} ${s.room.name}${s.room.chair ? " · " + t("page.chair") + " " + s.room.chair : ""} · ` : "";
    $("m-format").textContent = m.format;
    $("m-id").textContent = m.match_id;
    $("m-model").textContent = s.is_llm ? s.model : `${s.model} (${t("page.offline")})`;
    $("m-motion").textContent = m.motion;
    $("m-aff").textContent = m.affirmative_position;
    $("m-neg").textContent = m.negative_position;
    $("m-aff-team").textContent = s.room ? `(${s.room.teams.affirmative})` : "";
    $("m-neg-team").textContent = s.room ? `(${s.room.teams.negative})` : "";
    const st = $("m-status");
    st.textContent = t("status." + s.status);
    st.className = "badge " + s.status;
    $("stage-progress").textContent = progressText(s);
    $("pending").hidden = s.pending.length === 0;
    $("pending").textContent = s.pending.length ? t("progress.pending", { ids: s.pending.join(", ") }) : "";
    $("error").hidden = !s.error;
    $("error").textContent = s.error || "";
    $("panel-error").hidden = !s.panel_error;
    $("panel-error").textContent = s.panel_error ? t("panel.error", { error: s.panel_error }) : "";
    const crumbs = $("crumbs");
    crumbs.replaceChildren(...(s.room ? [el("a", { href: s.room.round_url, text: `${t("round.title")}: ${s.room.round_name}` })] : []));
  }

  // After the verdict is shown the panel's verdict is the result; the trackers' tendency stays visible
  // only as the labelled pre-verdict estimate.
  function renderTendency(tn, decided, analysed) {
    $("tendency-panel").classList.toggle("superseded", decided);
    $("tendency-title").textContent = decided ? t("tendency.superseded_title") : t("tendency.title");
    $("tendency-note").textContent = decided ? t("tendency.superseded_note") : t("tendency.note");
    $("scores-title").textContent = decided ? t("scores.superseded_title") : t("scores.title");
    const p = tn.p;
    const pct = p === null ? 50 : Math.round(p * 100);
    $("tbar-aff").style.width = pct + "%";
    $("tbar-mark").style.left = pct + "%";
    $("tendency-p").textContent = fmtP(p);
    $("tendency-p").dataset.p = p === null ? "" : String(p);
    $("tendency-text").textContent = p === null
      ? (tn.leaning === "withheld" ? t("tendency.withheld") : analysed ? t("tendency.not_comparable") : t("tendency.nothing"))
      : t("tendency.text", {
        label: decided ? t("tendency.leaned") : t("tendency.leaning"), leaning: t("leaning." + tn.leaning),
        gap: signed(tn.score_gap), groups: count(tn.compared_groups, "tendency.group", "tendency.groups"),
        momentum: signed(tn.momentum), events: count(tn.counted_events, "tendency.event", "tendency.events"),
      });
  }

  function stageLabel(s, stageId) {
    const st = s.stages.find((x) => x.stage_id === stageId);
    return st ? (st.display_name || st.name) : stageId;
  }

  function renderLatest(s, decided) {
    const l = s.latest;
    $("latest-empty").hidden = Boolean(l);
    $("latest").hidden = !l;
    if (!l) return;
    $("latest-name").textContent = `${l.stage_id} · ${l.stage_display_name || l.stage_name}`;
    $("latest-scores").replaceChildren(...l.scores.map((x) => el("span", { class: "chip " + x.side, text: `${sideShort(x.side)}${x.role ? " " + t("role." + x.role) : ""} ${x.suggested_score}` })));
    $("latest-summary").textContent = l.summary || "";
    const items = l.clash_events.map((e) => el("li", {},
      el("span", { class: "chip " + e.side, text: `${KIND_ICON[e.kind] || ""} ${sideShort(e.side)} ${t("kind." + e.kind)}` }), " ",
      el("strong", { text: e.title }), e.note ? " — " + e.note : ""));
    $("latest-events").replaceChildren(...(items.length ? items : [el("li", { class: "muted", text: t("latest.no_move") })]));
    const label = decided ? t("latest.label_done") : t("latest.label");
    $("latest-move").textContent = l.tendency_after === null || l.tendency_after === undefined ? ""
      : l.tendency_before === null || l.tendency_before === undefined
        ? (decided ? `${label} ${fmtP(l.tendency_after)}.` : t("latest.now", { label, p: fmtP(l.tendency_after) }))
        : t("latest.move", { label, before: fmtP(l.tendency_before), after: fmtP(l.tendency_after) });
  }

  function renderTimeline(s) {
    const items = (s.timeline || []).map((tp) => {
      const how = tp.driver === "clash"
        ? t("timeline.by_clash", { title: tp.clash_title, events: tp.clash_events.map((e) => { const [sd, kd] = e.split(" "); return `${side(sd)} ${t("kind." + kd)}`; }).join(", ") })
        : t("timeline.by_scores", { before: signed(tp.score_gap_before), after: signed(tp.score_gap_after) });
      return el("li", { class: "turn " + tp.toward, "data-stage": tp.stage_id },
        el("strong", { text: `${tp.position}. ${tp.stage_display_name || tp.stage_name}` }), " ",
        el("span", { class: tp.toward === "affirmative" ? "aff-text" : "neg-text", text: t("timeline.toward", { side: side(tp.toward), before: fmtP(tp.p_before), after: fmtP(tp.p_after) }) }),
        el("div", { class: "small muted", text: how }));
    });
    $("timeline").replaceChildren(...items);
    $("timeline-empty").hidden = items.length > 0;
  }

  function meter(momentum) {
    const w = Math.round(Math.abs(momentum) * 50);
    const span = momentum >= 0
      ? el("span", { class: "a", style: `left:50%;width:${w}%` })
      : el("span", { class: "n", style: `left:${50 - w}%;width:${w}%` });
    return el("div", { class: "meter", title: `${t("report.momentum")} ${signed(momentum)}` }, span);
  }

  function renderMap(s, latestId) {
    const stages = s.stages;
    const thead = $("clash-table").querySelector("thead");
    thead.replaceChildren(el("tr", {}, el("th", { text: t("map.clash") }),
      ...stages.map((st, i) => el("th", { class: "stagehead", title: `${st.stage_id} ${st.display_name || st.name}`, text: `${i + 1}` }))));
    const rows = s.clashes.map((c) => {
      const cells = stages.map((st) => {
        const evs = c.events.filter((e) => e.stage_id === st.stage_id);
        return el("td", { class: "stagecell" }, ...evs.map((e) => el("span", {
          class: "chip " + e.side,
          title: `${st.display_name || st.name}: ${side(e.side)} ${t("kind." + e.kind)}${e.debater ? " (" + e.debater + ")" : ""}${e.note ? " — " + e.note : ""}`,
          text: `${KIND_ICON[e.kind] || "?"}${sideShort(e.side)[0]}`,
        })));
      });
      const tr = el("tr", { class: "clash-row", "data-clash": c.clash_id },
        el("td", {}, el("div", { class: "clash-title", text: c.title }),
          c.affirmative_position ? el("div", { class: "pos aff", text: `${sideShort("affirmative")}: ` + c.affirmative_position }) : null,
          c.negative_position ? el("div", { class: "pos neg", text: `${sideShort("negative")}: ` + c.negative_position }) : null,
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
    const title = [
      `${t("measure.task_performance")}: ${t("level." + x.task_performance)}`,
      `${t("measure.battlefield_judgement")}: ${t("level." + x.battlefield_judgement)}`,
      `${t("measure.advancement")}: ${t("level." + x.advancement)}`,
      t("band." + x.band),
    ].join("\n") + (x.rationale ? "\n" + x.rationale : "");
    return el("td", {}, el("span", { class: "score " + x.band, title, text: String(x.suggested_score) }), x.role ? el("span", { class: "role", text: " " + t("role." + x.role) }) : null);
  }

  // A machine-made stage's transcript under its score row: one line per utterance with its times.
  function transcriptRow(s, tr) {
    const mmss = (x) => (x === null || x === undefined ? "" : `${Math.floor(x / 60)}:${String(Math.floor(x % 60)).padStart(2, "0")}`);
    const lines = tr.utterances.map((u) => el("li", { class: "transcript-line", title: u.confidence === null ? null : t("transcript.confidence", { value: u.confidence.toFixed(2) }) },
      el("span", { class: "muted", text: `${mmss(u.start_s)}–${mmss(u.end_s)} ` }),
      el("strong", { class: u.side === "affirmative" ? "aff-text" : u.side === "negative" ? "neg-text" : "muted", text: (u.speaker ? debaterText(s, u.speaker) : t("transcript.unattributed")) + ": " }),
      el("span", { text: u.text })));
    const summary = t("transcript.summary", { model: tr.model, attribution: t("transcript.attribution." + tr.attribution), lines: tr.utterances.length, minutes: mmss(tr.duration_s) });
    return el("tr", { class: "transcript-row" }, el("td", {}), el("td", { colspan: "4" }, el("details", {}, el("summary", { class: "small", text: summary }), el("ol", { class: "transcript small" }, ...lines))));
  }

  function renderScores(s, latestId) {
    const bySide = {};
    for (const x of s.scores) bySide[x.stage_id + "|" + x.side] = x;
    const rows = s.stages.map((st, i) => {
      const tr = el("tr", { class: "score-row", "data-stage": st.stage_id },
        el("td", { text: String(i + 1) }), el("td", { text: st.display_name || st.name }), el("td", { text: stageType(st.type) }),
        st.analysed || st.failed ? scoreCell(bySide[st.stage_id + "|affirmative"]) : el("td", { class: "muted", text: "…" }),
        st.analysed || st.failed ? scoreCell(bySide[st.stage_id + "|negative"]) : el("td", { class: "muted", text: "…" }));
      if (st.stage_id === latestId) tr.classList.add("new");
      if (st.failed) tr.title = t("scores.failed");
      return st.transcript ? [tr, transcriptRow(s, st.transcript)] : [tr];
    });
    $("score-table").querySelector("tbody").replaceChildren(...rows.flat());
  }

  function debaterText(s, label) {
    const d = s.match.debaters.find((x) => x.label === label);
    let base = label;
    if (document.body.dataset.lang === "zh") {
      const m = label.match(/^(Affirmative|Negative) Speaker ([1-4])$/);
      if (m) base = (m[1] === "Affirmative" ? "正方" : "反方") + "一二三四"[Number(m[2]) - 1] + "辩";
    }
    return d && d.name ? `${base} ${d.name}` : base;
  }

  // The verdict block to show: the public one, else (chair, organiser) the private one of the room.
  function shownVerdict(s) {
    if (s.verdict) return { v: s.verdict, isPrivate: false };
    if (privateRoom && privateRoom.verdict) return { v: privateRoom.verdict, isPrivate: true };
    return { v: null, isPrivate: false };
  }

  function renderVerdict(s) {
    const { v, isPrivate } = shownVerdict(s);
    $("verdict-panel").hidden = !v;
    $("awaiting-panel").hidden = Boolean(v) || !(s.decision && s.decision.state === "awaiting");
    $("void-panel").hidden = !(s.decision && s.decision.state === "void");  // the public's board of a void room says so
    if (!v) return;
    $("verdict-winner").textContent = v.winner ? t("verdict.winner", { side: side(v.winner) }) : t("verdict.no_winner");
    $("verdict-winner").className = "big " + (v.winner === "affirmative" ? "aff-text" : "neg-text");
    $("verdict-team").textContent = v.winner_team ? `(${v.winner_team})` : "";
    const automatedWinner = v.automated ? v.automated.winner : v.winner;
    // p is the panel's; when a person changed the winner it describes the automated original only
    $("verdict-p").textContent = v.p === null || automatedWinner !== v.winner ? "" : t("verdict.p", { p: fmtP(v.p) });
    $("verdict-split").textContent = v.winner_split && automatedWinner === v.winner ? t("verdict.split", { split: v.winner_split }) : "";
    const votes = Object.entries(v.best_debater_votes).map(([k, n]) => `${debaterText(s, k)} ${n}`).join(", ");
    $("verdict-best").textContent = t("verdict.best", { names: v.best_debaters.map((b) => debaterText(s, b)).join(", ") || t("verdict.none"), votes: votes || t("verdict.none") });
    $("verdict-ballots").replaceChildren(...v.ballots.map((b) => el("li", { text: `${b.judge_id}${b.perspective ? " (" + b.perspective + ")" : ""}: ${side(b.winner)}, p = ${fmtP(b.p)}` })));
    const stateLine = $("verdict-state");
    if (v.state) {
      const parts = [t("state." + v.state)];
      if (v.state === "draft") parts[0] = t("verdict.draft_banner");
      if (v.confirmed_by) parts.push(t("verdict.confirmed_by", { name: v.confirmed_by, at: fmtTime(v.confirmed_at) }));
      if (v.released_at) parts.push(t("verdict.released_at", { at: fmtTime(v.released_at) }));
      stateLine.textContent = parts.join(" ");
      stateLine.className = "state-line state-" + v.state;
      stateLine.hidden = false;
      stateLine.dataset.state = v.state;
    } else { stateLine.hidden = true; }
    const ov = $("verdict-override");
    if (v.overridden) {
      const lines = [automatedWinner !== v.winner ? t("verdict.overridden", { winner: side(automatedWinner) }) : t("verdict.overridden_scores")];
      if (automatedWinner !== v.winner && v.automated) lines.push(t("confirm.automated", { side: side(v.automated.winner), p: fmtP(v.automated.p), split: v.automated.winner_split || "–" }));
      if (v.override && v.override.note) lines.push(t("verdict.note", { note: v.override.note }));
      ov.textContent = lines.join(" ");
      ov.hidden = false;
    } else { ov.hidden = true; }
    const report = $("verdict-report");
    const reportUrl = `/api/matches/${encodeURIComponent(s.match.match_id)}/report.html`;
    if (isPrivate) {
      report.href = "#";
      report.onclick = async (ev) => {
        ev.preventDefault();
        const r = await fetch(reportUrl, { headers: { Authorization: "Bearer " + token } });
        const blob = new Blob([await r.text()], { type: "text/html" });
        window.open(URL.createObjectURL(blob), "_blank");
      };
    } else {
      report.href = reportUrl;
      report.onclick = null;
    }
    $("verdict-json").href = v.verdict_url;
    renderReview(v.review);
    renderFeedback(s, v);
  }

  // The coach's feedback per debater: what worked, the response missed, one thing to work on, each
  // with its stage and clash.
  function renderFeedback(s, v) {
    const box = $("verdict-feedback");
    const items = v.feedback || [];
    box.hidden = items.length === 0;
    if (!items.length) return;
    const stageName = (id) => { const st = (s.stages || []).find((x) => x.stage_id === id); return st ? st.display_name : id; };
    const clashTitle = (id) => { const c = (s.clashes || []).find((x) => x.clash_id === id); return c ? c.title : id; };
    $("verdict-feedback-from").textContent = t("read.feedback.from", { judge: v.feedback_from });
    $("verdict-feedback-list").replaceChildren(...items.map((f) => el("div", { class: "feedback-debater", "data-debater": f.debater },
      el("b", { text: debaterText(s, f.debater) }),
      el("ul", {}, ...["worked", "missed", "work_on"].map((k) => {
        const pt = f[k];
        const where = stageName(pt.stage_id) + (pt.clash_id ? " · " + t("read.feedback.clash", { title: clashTitle(pt.clash_id) }) : "");
        return el("li", { "data-kind": k }, el("b", { text: t("read.feedback." + k) }), ` (${where}): ${pt.text}`);
      })))));
  }

  // The quality gate's review, at the top of the verdict: whether a person should check it, and why.
  function renderReview(r) {
    const box = $("verdict-review");
    box.hidden = !r;
    if (!r) return;
    box.className = "review " + (r.escalate ? "escalate" : "clear");
    box.dataset.escalate = String(r.escalate);
    $("verdict-review-head").textContent = `${t("review.title")}: ${r.escalate ? t("review.escalate", { n: r.sentences.length }) : t("review.clear")}`;
    $("verdict-review-list").replaceChildren(...r.sentences.map((x) => el("li", { text: x })));
  }

  function renderOrganiser(s) {
    if (!organiser) return;
    const reader = privateRoom && privateRoom.viewer !== "organiser" && privateRoom.viewer !== "chair"; // a panellist's or board token pushes nothing
    $("push-panel").hidden = s.status === "closed" || Boolean(reader);
    const slot = s.next_slot;
    const key = slot ? JSON.stringify(slot.stage) : "";
    $("push-hint").textContent = slot
      ? t("push.next", { position: slot.position, of: slot.of ? ` ${t("progress.of")} ${slot.of}` : "", name: slot.stage.name, type: stageType(slot.stage.type) })
      : s.status === "open" ? t("push.all_in") : "";
    if (key !== lastNextSlot && !pushDirty) {
      $("push-body").value = slot ? JSON.stringify(slot.stage, null, 2) : "";
    }
    lastNextSlot = key;
    $("close-btn").disabled = s.status !== "open" && s.status !== "closing";
  }

  // ------------------------------------------------------------------ confirming a room's verdict

  function renderConfirm(s) {
    const panel = $("confirm-panel");
    const d = privateRoom && privateRoom.decision;
    const writer = privateRoom && (privateRoom.viewer === "organiser" || privateRoom.viewer === "chair"); // a panellist's or board token confirms nothing
    panel.hidden = !(organiser && writer && s.room && d && d.state !== "released");
    $("release-btn").hidden = !(privateRoom && privateRoom.viewer === "organiser" && d && d.state === "confirmed");
    if (panel.hidden || confirmDirty) return;
    const a = d.automated;
    $("confirm-automated").textContent = t("confirm.automated", { side: side(a.winner), p: fmtP(a.p), split: a.winner_split || "–" })
      + (d.state === "confirmed" ? " " + t("verdict.confirmed_by", { name: d.confirmed_by.name, at: fmtTime(d.confirmed_at) }) : "");
    const eff = privateRoom.effective;
    const sel = $("confirm-winner");
    sel.replaceChildren(el("option", { value: "", text: t("confirm.keep", { side: side(a.winner) }) }),
      ...["affirmative", "negative"].map((x) => el("option", { value: x, text: `${side(x)} (${s.room.teams[x]})` })));
    sel.value = d.override && d.override.winner ? d.override.winner : "";
    if (!$("confirm-by").value) $("confirm-by").value = privateRoom.viewer_name || s.room.chair || ""; // a person token acts as its person
    $("confirm-note").value = d.override ? d.override.note || "" : "";
    const rows = Object.entries(a.stage_scores).map(([unit, mean]) => {
      const [sid, sd] = unit.split("|");
      const input = el("input", { type: "number", min: "1", max: "10", step: "0.25", value: String(eff.stage_scores[unit]), "data-unit": unit, "data-auto": String(mean) });
      return el("tr", {}, el("td", { text: `${stageLabel(s, sid)}` }), el("td", { class: sd === "affirmative" ? "aff-text" : "neg-text", text: side(sd) }),
        el("td", { class: "muted", text: Number(mean).toFixed(2) }), el("td", {}, input));
    });
    $("confirm-scores").querySelector("tbody").replaceChildren(...rows);
    const total = Object.values(a.best_debater_votes).reduce((x, y) => x + y, 0);
    $("confirm-votes-title").textContent = t("confirm.votes", { total });
    $("confirm-votes").replaceChildren(...privateRoom.debaters.map((dd) => {
      const label = `${dd.side.charAt(0).toUpperCase() + dd.side.slice(1)} Speaker ${dd.position}`;
      return el("label", { class: "vote" }, el("span", { text: debaterText(s, label) }),
        el("input", { type: "number", min: "0", max: String(total), step: "1", value: String(eff.best_debater_votes[label] || 0), "data-label": label, "data-auto": String(a.best_debater_votes[label] || 0) }));
    }));
  }

  function confirmBody() {
    const d = privateRoom.decision;
    const body = { by: $("confirm-by").value.trim() || null, note: $("confirm-note").value.trim(), expected_version: d.version };
    if ($("confirm-winner").value) body.winner = $("confirm-winner").value;
    const scores = {};
    for (const input of document.querySelectorAll("#confirm-scores input")) {
      if (Math.abs(Number(input.value) - Number(input.dataset.auto)) > 1e-9) scores[input.dataset.unit] = Number(input.value);
    }
    if (Object.keys(scores).length) body.stage_scores = scores;
    const votes = {};
    let changed = false;
    for (const input of document.querySelectorAll("#confirm-votes input")) {
      votes[input.dataset.label] = Number(input.value);
      if (Number(input.value) !== Number(input.dataset.auto)) changed = true;
    }
    if (changed) body.best_debater_votes = votes;
    return body;
  }

  async function refreshPrivate(s) {
    if (!organiser || !s.room) return;
    try {
      privateRoom = await api("GET", s.room.api_url);
    } catch (e) { privateRoom = null; }
  }

  function render(s) {
    current = s;
    const latestId = s.latest ? s.latest.stage_id : null;
    renderHeader(s);
    const decided = Boolean(shownVerdict(s).v) && s.status === "closed";
    renderTendency(s.tendency, decided, s.analysed);
    renderLatest(s, decided);
    renderTimeline(s);
    renderMap(s, latestId);
    renderScores(s, latestId);
    renderVerdict(s);
    renderOrganiser(s);
    renderConfirm(s);
    document.body.dataset.revision = String(s.revision);
    document.body.dataset.analysed = String(s.analysed);
    document.body.dataset.status = s.status;
    document.body.dataset.verdictState = s.decision ? s.decision.state : (s.verdict ? "shown" : "none");
    document.body.dataset.privateState = privateRoom && privateRoom.decision ? privateRoom.decision.state : "";
  }

  function showMatch(id) {
    $("match-view").hidden = false;
    let langSet = false;
    if (organiser) {
      $("push-body").addEventListener("input", () => { pushDirty = true; });
      for (const f of ["confirm-winner", "confirm-note", "confirm-scores", "confirm-votes"]) $(f).addEventListener("input", () => { confirmDirty = true; });
      $("confirm-winner").addEventListener("change", () => { confirmDirty = true; });
      $("push-btn").onclick = async () => {
        $("push-btn").disabled = true;
        message("push-msg", t("push.pushing"), true);
        try {
          const r = await api("POST", `/api/matches/${encodeURIComponent(id)}/stages`, $("push-body").value);
          pushDirty = false;
          message("push-msg", `${r.stage_id}: ${r.duplicate ? t("push.already") : r.status}`, true);
        } catch (e) { message("push-msg", e.message, false); }
        $("push-btn").disabled = false;
      };
      $("close-btn").onclick = async () => {
        if (!confirm(t("push.confirm_close"))) return;
        $("close-btn").disabled = true;
        message("push-msg", t("push.deliberating"), true);
        const close = (force) => api("POST", `/api/matches/${encodeURIComponent(id)}/close${force ? "?force=true" : ""}`);
        try {
          let v;
          try { v = await close(false); } catch (e) {
            // a speech seems missing (409): say so and close only if the organiser insists
            if (e.status !== 409 || !confirm(`${e.message}\n\n${t("push.close_anyway")}`)) throw e;
            v = await close(true);
          }
          message("push-msg", t("push.closed", { side: side(v.winner) }), true);
        } catch (e) { message("push-msg", e.message, false); $("close-btn").disabled = false; }
      };
      $("confirm-btn").onclick = async () => {
        try {
          const r = await api("POST", `${current.room.api_url}/confirm`, JSON.stringify(confirmBody()));
          confirmDirty = false;
          privateRoom = r;
          message("confirm-msg", t("confirm.done", { version: r.decision.version }), true);
          render(current);
        } catch (e) { message("confirm-msg", e.message, false); }
      };
      $("release-btn").onclick = async () => {
        try {
          await api("POST", `${current.room.api_url}/release`, "{}");
          message("confirm-msg", t("confirm.released"), true);
        } catch (e) { message("confirm-msg", e.message, false); }
      };
    }
    follow(id, async (s) => {
      if (!langSet) { setLanguage(s.match.language); langSet = true; }
      setConn("live", "conn.live");
      await refreshPrivate(s);
      render(s);
    });
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // The match's event stream (server-sent events), read with fetch rather than EventSource: fetch
  // sends the token (a private board, a chair's page) and sees a full server's 503 and its
  // Retry-After, where EventSource gives up for good on any error status. Reconnects until the page
  // closes; a match that does not exist is said so once.
  async function follow(id, onBoard) {
    let retryMs = 2000;
    for (;;) {
      let wait = retryMs;
      try {
        const headers = { Accept: "text/event-stream" };
        if (token) headers["Authorization"] = "Bearer " + token;
        const r = await fetch(`/api/matches/${encodeURIComponent(id)}/events`, { headers, cache: "no-store" });
        forgetStaleToken(r);
        if (r.status === 404) {
          setConn("down", "conn.no_match");
          $("error").hidden = false;
          $("error").textContent = `No live match "${id}".`;
          return;
        }
        if (!r.ok || !r.body) {
          // full (503): wait as told, plus a random share so a hall of phones does not return at once
          wait = (Number(r.headers.get("Retry-After")) || 10) * 1000 * (1 + Math.random() / 2);
          setConn("down", r.status === 503 ? "conn.busy" : "conn.reconnecting");
        } else {
          const reader = r.body.getReader();
          const decoder = new TextDecoder();
          let buf = "";
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buf += decoder.decode(value, { stream: true });
            let end;
            while ((end = buf.indexOf("\n\n")) >= 0) {
              const block = buf.slice(0, end);
              buf = buf.slice(end + 2);
              let event = "message";
              const data = [];
              for (const line of block.split("\n")) {
                if (line.startsWith("event:")) event = line.slice(6).trim();
                else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
                else if (line.startsWith("retry:")) retryMs = Number(line.slice(6)) || retryMs;
              }
              if (event === "board" && data.length) await onBoard(JSON.parse(data.join("\n")));
            }
          }
          setConn("down", "conn.reconnecting");
        }
      } catch (e) {
        setConn("down", "conn.reconnecting");
      }
      await sleep(wait);
    }
  }

  loadLabels().then(() => {
    if (roundMatch) showRound(decodeURIComponent(roundMatch[1]), decodeURIComponent(roundMatch[2]));
    else if (matchId) showMatch(matchId);
    else showList();
  });
})();
