// The workbench of `mtgcontrol serve` (GET /): edit a snapshot, see its ruling as
// `adjudicate --format html` draws it, ask why (and why not), compare two CR versions.
//
// Everything shown comes from the service's own answers.  Text from a snapshot (ids,
// names, notes) is only ever set as text (textContent, option labels), never as
// markup; the ruling and explanation pages are framed with a sandbox that runs no
// script, and the server's Content-Security-Policy allows no script but this file.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const editor = $("snapshot");
  const status = $("status");
  const problems = $("problems");
  const ruling = $("ruling");
  const rulingB = $("ruling-b");
  let sequence = 0;   // the answer shown is the last request's
  let timer = null;
  const FACT_CELLS = { owner: "owner", controller: "controller", you: "you",
                       default_controller: "default-controller" };

  // --- talking to the service ------------------------------------------------------------
  function selectedChanges() {
    const select = $("changes");
    return select ? Array.from(select.selectedOptions, (o) => o.value).join(",") : "";
  }

  function common() {
    return { rules: $("version").value, changes: selectedChanges(), lang: $("lang").value };
  }

  async function post(path, params, body) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value) query.set(key, value);
    }
    const response = await fetch(`${path}?${query}`, {
      method: "POST", body, headers: { "content-type": "application/json" } });
    return { status: response.status, text: await response.text() };
  }

  // --- the ruling -----------------------------------------------------------------------
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(judge, 300);
  }

  async function judge() {
    const mine = ++sequence;
    const text = editor.value;
    if (!text.trim()) {
      setStatus("Pick an example or paste a snapshot.", false);
      return;
    }
    setStatus("judging…", false);
    const started = performance.now();
    const params = common();
    const other = $("compare").value;
    const asks = [post("/adjudicate", { ...params, format: "html" }, text)];
    if (other) {
      asks.push(post("/adjudicate", { ...params, format: "json" }, text),
                post("/adjudicate", { ...params, rules: other, format: "json" }, text),
                post("/adjudicate", { ...params, rules: other, format: "html" }, text));
    }
    let replies;
    try {
      replies = await Promise.all(asks);
    } catch (err) {
      if (mine === sequence) setStatus(`the service cannot be reached (${err.message})`, true);
      return;
    }
    if (mine !== sequence) return;
    const bad = replies.find((r) => r.status !== 200);
    if (bad) {
      showProblems(bad);
      return;
    }
    clearProblems();
    fillChoices(JSON.parse(text));
    await show(ruling, replies[0].text);
    if (mine !== sequence) return;
    if (other) {
      await compare(JSON.parse(replies[1].text), JSON.parse(replies[2].text), replies[3].text);
    } else {
      rulingB.hidden = true;
      $("differences").hidden = true;
    }
    const ms = Math.round(performance.now() - started);
    setStatus(`ruled in ${ms} ms${other ? ", and compared" : ""}`, false);
    ruling.dataset.ruled = String(mine);
    if (!$("explanation-box").hidden) explain();
  }

  function show(frame, html) {
    return new Promise((resolve) => {
      frame.addEventListener("load", () => {
        frame.classList.remove("stale");
        clickable(frame);
        resolve();
      }, { once: true });
      frame.hidden = false;
      frame.srcdoc = html;
    });
  }

  // Clicking an object's row in a ruling asks why it has its controller.
  function clickable(frame) {
    const doc = frame.contentDocument;
    if (!doc) return;
    for (const row of doc.querySelectorAll("tr[data-object]")) {
      row.style.cursor = "pointer";
      row.title = "why? (click)";
      row.addEventListener("click", () => {
        choose($("object"), row.dataset.object);
        explain();
      });
    }
  }

  function choose(select, value) {
    for (const option of select.options) {
      if (option.value === value) {
        select.value = value;
        return;
      }
    }
  }

  function fillChoices(doc) {
    const ids = [];
    for (const obj of Array.isArray(doc.objects) ? doc.objects : []) {
      ids.push(obj.id);
      for (const ability of Array.isArray(obj.abilities) ? obj.abilities : []) ids.push(ability.id);
    }
    const players = (Array.isArray(doc.players) ? doc.players : [])
      .map((p) => (typeof p === "string" ? p : p.id));
    refill($("object"), ids, null);
    refill($("why-not"), players, "(nobody)");
  }

  function refill(select, values, none) {
    const kept = select.value;
    select.replaceChildren();
    if (none !== null) select.append(new Option(none, ""));
    for (const value of values) select.append(new Option(value, value));
    choose(select, kept);
  }

  // --- problems -------------------------------------------------------------------------
  function setStatus(text, bad) {
    status.textContent = text;
    status.classList.toggle("bad", bad);
  }

  function clearProblems() {
    problems.replaceChildren();
    editor.classList.remove("invalid");
  }

  function showProblems(reply) {
    let record;
    try {
      record = JSON.parse(reply.text);
    } catch (err) {
      record = { error: [{ path: "$", expected: reply.text.slice(0, 300) }] };
    }
    problems.replaceChildren();
    for (const problem of record.error || []) {
      const item = document.createElement("li");
      const path = document.createElement("span");
      path.className = "path";
      path.textContent = problem.path;
      item.append(path, document.createTextNode(`: expected ${problem.expected}`));
      item.dataset.path = problem.path;
      item.addEventListener("click", () => select(problem.path, problem.expected));
      problems.append(item);
    }
    const count = (record.error || []).length;
    setStatus(`HTTP ${reply.status}: ${count} problem(s); the ruling shown is the last good one`,
              true);
    editor.classList.add("invalid");
    ruling.classList.add("stale");
    rulingB.classList.add("stale");
  }

  // Select the text a JSON path names (or where a syntax error is).
  function select(path, expected) {
    const text = editor.value;
    let span = null;
    const at = /line (\d+) column (\d+)/.exec(expected);
    if (path === "$" && at) {
      const lines = text.split("\n").slice(0, Number(at[1]) - 1);
      const start = lines.reduce((n, line) => n + line.length + 1, 0) + Number(at[2]) - 1;
      span = [start, start + 1];
    } else {
      const spans = locate(text);
      let p = path;
      while (!span) {  // the path, else the nearest enclosing one the text has
        span = spans.get(p) || null;
        const outer = p.replace(/(\.[^.[]*|\[[^\]]*\])$/, "");
        if (outer === p) break;
        p = outer;
      }
    }
    if (!span) return;
    editor.focus();
    editor.setSelectionRange(span[0], span[1]);
    const line = text.slice(0, span[0]).split("\n").length;
    const height = parseFloat(getComputedStyle(editor).lineHeight) || 17;
    editor.scrollTop = Math.max(0, (line - 3) * height);
  }

  // Where each JSON path's value is in the text: path -> [start, end].
  function locate(text) {
    const spans = new Map();
    let i = 0;
    const blank = () => { while (i < text.length && " \t\r\n".includes(text[i])) i++; };
    const string = () => {
      const start = i++;
      while (i < text.length && text[i] !== "\"") i += text[i] === "\\" ? 2 : 1;
      i++;
      try { return JSON.parse(text.slice(start, i)); } catch (err) { return ""; }
    };
    const key = (k) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);
    const value = (path, depth) => {
      blank();
      const start = i;
      if (depth > 200 || i >= text.length) return;
      if (text[i] === "{") {
        i++;
        for (blank(); i < text.length && text[i] !== "}"; blank()) {
          if (text[i] === ",") { i++; blank(); }
          if (text[i] !== "\"") break;
          const k = string();
          blank();
          if (text[i] === ":") i++;
          value(path + key(k), depth + 1);
        }
        i++;
      } else if (text[i] === "[") {
        i++;
        for (let n = 0; ; n++) {
          blank();
          if (i >= text.length || text[i] === "]") break;
          if (text[i] === ",") { i++; blank(); }
          const before = i;
          value(`${path}[${n}]`, depth + 1);
          if (i === before) break;
        }
        i++;
      } else if (text[i] === "\"") {
        string();
      } else {
        while (i < text.length && !",]} \t\r\n".includes(text[i])) i++;
      }
      spans.set(path, [start, Math.min(i, text.length)]);
    };
    value("$", 0);
    return spans;
  }

  // --- why and why not --------------------------------------------------------------------
  async function explain(event) {
    if (event) event.preventDefault();
    const object = $("object").value;
    if (!object) return;
    const fact = $("fact").value;
    const whyNot = $("why-not").value;
    const reply = await post("/explain", { ...common(), object, fact, why_not: whyNot,
                                           format: "html" }, editor.value);
    if (reply.status !== 200) {
      showProblems(reply);
      return;
    }
    $("explanation-box").hidden = false;
    $("explanation-title").textContent =
      `Why: ${fact} of ${object}${whyNot ? `, and why not ${whyNot}` : ""}`;
    await show($("explanation"), reply.text);
  }

  // --- two versions side by side -------------------------------------------------------
  const shown = (value) => (value === undefined || value === null ? "–" :
    typeof value === "string" ? value : JSON.stringify(value));

  function cited(entry) {
    return [...new Set((entry.because || []).map((b) => b.rule))].sort().join(" ");
  }

  function differences(a, b) {
    const found = [];
    const add = (object, fact, x, y) => {
      if (shown(x) !== shown(y)) found.push({ object, fact, a: shown(x), b: shown(y) });
    };
    const ids = [...new Set([...Object.keys(a.objects), ...Object.keys(b.objects)])];
    for (const id of ids) {
      const x = a.objects[id] || {};
      const y = b.objects[id] || {};
      for (const fact of Object.keys(FACT_CELLS)) add(id, fact, x[fact], y[fact]);
      add(id, "fate", (a.left_game || {})[id], (b.left_game || {})[id]);
      add(id, "history", x.history, y.history);
      add(id, "rules cited", cited(x), cited(y));
    }
    for (const id of new Set([...Object.keys(a.abilities || {}),
                              ...Object.keys(b.abilities || {})])) {
      const x = (a.abilities || {})[id] || {};
      const y = (b.abilities || {})[id] || {};
      add(id, "may_activate", x.may_activate, y.may_activate);
    }
    add("", "planar controller", a.planar_controller, b.planar_controller);
    add("", "controlled players", a.controlled_players, b.controlled_players);
    add("", "choices", a.choices, b.choices);
    add("", "violations", (a.violations || []).map((v) => `${v.rule} ${v.code}`),
        (b.violations || []).map((v) => `${v.rule} ${v.code}`));
    return found;
  }

  async function compare(a, b, pageB) {
    const found = differences(a, b);
    const table = $("difference-table");
    table.querySelector("th.version-a").textContent = `CR ${a.rules}`;
    table.querySelector("th.version-b").textContent = `CR ${b.rules}`;
    $("differences-title").textContent =
      `Differences between CR ${a.rules} and CR ${b.rules}: ${found.length}`;
    const body = table.tBodies[0];
    body.replaceChildren();
    for (const d of found) {
      const row = body.insertRow();
      row.dataset.object = d.object;
      row.dataset.fact = d.fact;
      for (const [text, differs] of [[d.object, false], [d.fact, false], [d.a, true],
                                     [d.b, true]]) {
        const cell = row.insertCell();
        cell.textContent = text;
        if (differs) cell.className = "differs";
      }
    }
    if (!found.length) {
      const cell = body.insertRow().insertCell();
      cell.colSpan = 4;
      cell.textContent = "no fact differs";
    }
    $("differences").hidden = false;
    await show(rulingB, pageB);
    for (const frame of [ruling, rulingB]) mark(frame, found);
  }

  // Highlight, in a framed ruling, the rows and cells of the facts that differ.
  function mark(frame, found) {
    const doc = frame.contentDocument;
    if (!doc) return;
    const style = doc.createElement("style");
    style.textContent = "tr.mtg-differs { background: #fff3b0; }" +
      " td.mtg-differs { outline: 2px solid #e0a000; font-weight: 700; }";
    doc.head.append(style);
    for (const row of doc.querySelectorAll("tr[data-object]")) {
      for (const d of found.filter((x) => x.object === row.dataset.object)) {
        row.classList.add("mtg-differs");
        const cell = FACT_CELLS[d.fact] && row.querySelector(`td.${FACT_CELLS[d.fact]}`);
        if (cell) cell.classList.add("mtg-differs");
      }
    }
  }

  // --- wiring ---------------------------------------------------------------------------
  $("example").addEventListener("change", async () => {
    const name = $("example").value;
    if (!name) return;
    const response = await fetch(`/examples/${encodeURIComponent(name)}`);
    editor.value = await response.text();
    judge();
  });
  editor.addEventListener("input", schedule);
  for (const id of ["version", "compare", "lang", "changes"]) {
    const control = $(id);
    if (control) control.addEventListener("change", judge);
  }
  $("explain-bar").addEventListener("submit", explain);
  $("controls").addEventListener("submit", (event) => event.preventDefault());
})();
