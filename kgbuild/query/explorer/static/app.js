// kgbuild explorer: search, an entity page (facts grouped by relation, each with its sentence,
// status, confidence, years and PubMed links), a neighbourhood graph and an as-of selector.
//
// Every name, alias and sentence comes from abstracts anyone can write: they enter the page
// through textContent / createTextNode / setAttribute only, never as markup (no innerHTML).
// The server's Content-Security-Policy allows no inline script besides.
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  let years = [];
  let searchTimer = null;
  let searchSeq = 0;
  let pageSeq = 0;

  // ---- small DOM helpers (text only) --------------------------------------------------------
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    return node;
  }
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }
  function entityHref(id, asOf) {
    return "#/entity/" + encodeURIComponent(id) + (asOf ? "?as_of=" + encodeURIComponent(asOf) : "");
  }
  function entityLink(node, asOf) {
    const a = el("a", "entity-link", node.name);
    a.setAttribute("href", entityHref(node.id, asOf));
    a.setAttribute("title", node.id);
    return a;
  }
  function pubmedLink(pmid) {
    if (!/^[0-9]{1,12}$/.test(String(pmid))) return el("span", "pmid", pmid);
    const a = el("a", "pmid", pmid);
    a.setAttribute("href", "https://pubmed.ncbi.nlm.nih.gov/" + pmid + "/");
    a.setAttribute("target", "_blank");
    a.setAttribute("rel", "noopener noreferrer");
    return a;
  }
  function plural(n, word) {
    return n + " " + word + (n === 1 ? "" : "s");
  }
  function setStatus(text) {
    $("status").textContent = text || "";
  }
  async function getJSON(url) {
    const r = await fetch(url, { headers: { Accept: "application/json" } });
    let body = null;
    try {
      body = await r.json();
    } catch (e) {
      body = { error: "HTTP " + r.status };
    }
    if (!r.ok) throw new Error((body && body.error) || "HTTP " + r.status);
    return body;
  }

  // ---- routing: #/ and #/entity/<id>?as_of=YEAR ----------------------------------------------
  function parseHash() {
    const h = location.hash.replace(/^#/, "");
    const [path, query] = h.split("?");
    const params = new URLSearchParams(query || "");
    const asOf = params.get("as_of") || "";
    const m = /^\/entity\/(.+)$/.exec(path || "");
    let id = null;
    if (m) {
      try {
        id = decodeURIComponent(m[1]);
      } catch (e) {
        id = null;
      }
    }
    return { id: id, asOf: asOf };
  }
  function currentAsOf() {
    return $("as-of").value;
  }
  function route() {
    const { id, asOf } = parseHash();
    if (asOf && years.indexOf(Number(asOf)) < 0) {
      // not one of the KG's snapshot years: show the latest, and say so in the address
      location.replace(id ? entityHref(id, "") : "#/");
      return;
    }
    $("as-of").value = asOf;
    if (id) {
      showEntity(id, currentAsOf());
    } else {
      $("entity").hidden = true;
      $("home").hidden = false;
      document.body.dataset.state = "ready";
      setStatus("");
    }
  }

  // ---- search --------------------------------------------------------------------------------
  function hideSuggestions() {
    $("suggestions").hidden = true;
  }
  async function search(q) {
    const seq = ++searchSeq;
    const list = $("suggestions");
    if (!q.trim()) {
      clear(list);
      hideSuggestions();
      return;
    }
    let found;
    try {
      found = await getJSON("/entities?limit=12&q=" + encodeURIComponent(q));
    } catch (e) {
      if (seq !== searchSeq) return;
      clear(list);
      list.appendChild(el("li", "empty", "search failed: " + e.message));
      list.hidden = false;
      return;
    }
    if (seq !== searchSeq) return; // an older answer arriving late
    clear(list);
    const entities = (found && found.entities) || [];
    if (!entities.length) list.appendChild(el("li", "empty", "no entity matches"));
    for (const ent of entities) {
      const li = el("li", "suggestion");
      li.setAttribute("role", "option");
      li.dataset.id = ent.id;
      li.appendChild(el("span", "name", ent.name));
      li.appendChild(el("span", "type", ent.type || "Other"));
      li.appendChild(el("span", "muted", ent.id));
      if (ent.degree !== undefined) li.appendChild(el("span", "muted", plural(ent.degree, "neighbour")));
      li.addEventListener("mousedown", (ev) => {
        ev.preventDefault();
        go(ent.id);
      });
      list.appendChild(li);
    }
    list.hidden = false;
  }
  function go(id) {
    hideSuggestions();
    location.hash = entityHref(id, currentAsOf());
  }

  // ---- entity page ---------------------------------------------------------------------------
  async function showEntity(id, asOf) {
    const seq = ++pageSeq;
    document.body.dataset.state = "loading";
    setStatus("loading…");
    const q = asOf ? "?as_of=" + encodeURIComponent(asOf) : "";
    let page, graph;
    try {
      [page, graph] = await Promise.all([
        getJSON("/api/entity/" + encodeURIComponent(id) + q),
        getJSON("/api/neighbourhood/" + encodeURIComponent(id) + q),
      ]);
    } catch (e) {
      if (seq !== pageSeq) return;
      $("entity").hidden = true;
      $("home").hidden = false;
      setStatus(e.message);
      document.body.dataset.state = "error";
      return;
    }
    if (seq !== pageSeq) return;
    $("home").hidden = true;
    $("entity").hidden = false;
    renderEntity(page, asOf);
    renderGraph(graph, asOf);
    document.title = page.entity.name + " — kgbuild explorer";
    setStatus("");
    document.body.dataset.state = "ready";
  }

  function renderEntity(page, asOf) {
    const ent = page.entity;
    $("entity-name").textContent = ent.name;
    const meta = [ent.id, ent.type];
    if (ent.symbol && ent.symbol !== ent.name) meta.push("symbol " + ent.symbol);
    meta.push(plural(ent.facts, "fact") + (asOf ? " as of " + asOf : ""));
    meta.push(plural(ent.degree, "neighbour") + " in the snapshot");
    if (ent.first_year) meta.push("first seen " + ent.first_year);
    $("entity-meta").textContent = meta.join(" · ");
    const aliases = $("entity-aliases");
    clear(aliases);
    if (ent.aliases && ent.aliases.length) {
      aliases.appendChild(el("span", "label", "Also called: "));
      ent.aliases.forEach((a, i) => {
        if (i) aliases.appendChild(document.createTextNode(", "));
        aliases.appendChild(el("span", "alias", a));
      });
    }
    const facts = $("facts");
    clear(facts);
    if (!page.relations.length) {
      facts.appendChild(el("p", "muted", asOf ? "No fact about it as of " + asOf + "." : "No fact."));
    }
    const terms = markTerms(ent);
    for (const group of page.relations) {
      const sec = el("section", "relation");
      sec.dataset.relation = group.relation;
      const h = el("h3", null, group.relation + " ");
      h.appendChild(el("span", "muted", "(" + plural(group.total, "fact") + ")"));
      sec.appendChild(h);
      for (const f of group.facts) sec.appendChild(renderFact(ent, f, terms, asOf));
      if (group.total > group.facts.length) {
        sec.appendChild(el("p", "muted", (group.total - group.facts.length) + " more, weaker facts not shown"));
      }
      facts.appendChild(sec);
    }
  }

  function renderFact(ent, f, terms, asOf) {
    const div = el("article", "fact");
    div.dataset.edge = f.edge;
    const head = el("div", "fact-head");
    const self = el("span", "self", ent.name);
    const rel = el("span", "rel", " " + f.relation + " ");
    if (f.direction === "in") {
      head.appendChild(entityLink(f.other, asOf));
      head.appendChild(rel);
      head.appendChild(self);
    } else {
      head.appendChild(self);
      head.appendChild(rel);
      head.appendChild(entityLink(f.other, asOf));
    }
    head.appendChild(el("span", "type", f.other.type));
    div.appendChild(head);
    if (f.evidence) {
      const q = el("blockquote", "sentence");
      appendMarked(q, f.evidence.sentence, terms.concat(nameParts(f.other.name)));
      div.appendChild(q);
      const src = el("div", "source muted");
      src.appendChild(document.createTextNode("PMID "));
      src.appendChild(pubmedLink(f.evidence.pmid));
      if (f.evidence.year) src.appendChild(document.createTextNode(" (" + f.evidence.year + ")"));
      src.appendChild(document.createTextNode(" · sentence confidence " + f.evidence.confidence));
      div.appendChild(src);
    }
    const meta = el("div", "fact-meta");
    meta.appendChild(el("span", "support", plural(f.support, "PMID")));
    meta.appendChild(el("span", "confidence", "confidence " + f.confidence));
    if (f.belief !== null && f.belief !== undefined) meta.appendChild(el("span", "belief", "belief " + f.belief));
    if (f.contested) {
      const c = el("span", "contested", "contested (" + f.contested.replace(/_/g, " ") + ")");
      c.setAttribute("title", "other papers disagree: see kgbuild conflicts");
      meta.appendChild(c);
    }
    const span = f.first_year === f.last_year ? String(f.first_year) : f.first_year + "–" + f.last_year;
    meta.appendChild(el("span", "years", "seen " + span));
    const st = Object.entries(f.statuses || {}).sort((a, b) => b[1] - a[1]);
    const stat = el("span", "statuses", st.length ? st.map(([k, v]) => k + " " + v).join(", ") : "status n/a");
    stat.setAttribute("title", "PMIDs per evidence status (asserted, hypothesis, negated …)");
    meta.appendChild(stat);
    div.appendChild(meta);
    const pm = el("div", "pmids");
    f.pmids.forEach((p, i) => {
      if (i) pm.appendChild(document.createTextNode(" "));
      pm.appendChild(pubmedLink(p));
    });
    if (f.support > f.pmids.length) pm.appendChild(el("span", "muted", " … " + (f.support - f.pmids.length) + " more"));
    div.appendChild(pm);
    if (window.kgCurate) window.kgCurate.attach(div, f); // curation buttons (curate.js)
    return div;
  }

  // The entity's names, to mark where the sentence mentions them (a reading aid, as text).
  function markTerms(ent) {
    return [ent.symbol].concat(nameParts(ent.name), ent.aliases || []);
  }
  function nameParts(name) {
    const m = /^(.*) \(([^()]+)\)$/.exec(name || ""); // "long name (SYMBOL)"
    return m ? [name, m[1], m[2]] : [name];
  }
  function appendMarked(parent, text, terms) {
    const lower = text.toLowerCase();
    const spans = [];
    const uniq = Array.from(new Set(terms.filter((t) => t && t.length >= 2).map((t) => t.toLowerCase())));
    uniq.sort((a, b) => b.length - a.length);
    for (const t of uniq) {
      let from = 0;
      for (let i = lower.indexOf(t, from); i >= 0; i = lower.indexOf(t, from)) {
        const j = i + t.length;
        const word = (c) => c !== undefined && /[a-z0-9]/i.test(c);
        if (!word(text[i - 1]) && !word(text[j]) && !spans.some(([a, b]) => i < b && a < j)) spans.push([i, j]);
        from = i + 1;
      }
    }
    spans.sort((a, b) => a[0] - b[0]);
    let at = 0;
    for (const [a, b] of spans) {
      if (a > at) parent.appendChild(document.createTextNode(text.slice(at, a)));
      parent.appendChild(el("mark", null, text.slice(a, b)));
      at = b;
    }
    if (at < text.length) parent.appendChild(document.createTextNode(text.slice(at)));
  }

  // ---- neighbourhood graph: a deterministic radial layout ------------------------------------
  function renderGraph(g, asOf) {
    const root = $("graph");
    clear(root);
    const W = 900, H = 560, cx = W / 2, cy = H / 2;
    const pos = new Map();
    const others = g.nodes.filter((n) => n.id !== g.center);
    const inner = others.slice(0, 12), outer = others.slice(12);
    pos.set(g.center, [cx, cy]);
    const ring = (list, rx, ry, offset) =>
      list.forEach((n, i) => {
        const a = -Math.PI / 2 + offset + (2 * Math.PI * i) / list.length;
        pos.set(n.id, [cx + rx * Math.cos(a), cy + ry * Math.sin(a)]);
      });
    if (outer.length) {
      ring(inner, 200, 135, 0);
      ring(outer, 400, 245, Math.PI / Math.max(outer.length, 1));
    } else {
      ring(inner, 300, 200, 0);
    }
    const edges = svg("g", { class: "edges" });
    for (const e of g.edges) {
      const a = pos.get(e.source), b = pos.get(e.target);
      if (!a || !b) continue;
      const touches = e.source === g.center || e.target === g.center;
      const line = svg("line", {
        x1: a[0].toFixed(1), y1: a[1].toFixed(1), x2: b[0].toFixed(1), y2: b[1].toFixed(1),
        class: touches ? "edge" : "edge side",
        "stroke-width": ((touches ? 1 : 0.5) * (1 + Math.log2(1 + e.support))).toFixed(2),
      });
      const t = svg("title");
      t.textContent = e.relation + " · " + e.support + " PMIDs" + (e.relations > 1 ? " · " + e.relations + " relations" : "");
      line.appendChild(t);
      edges.appendChild(line);
    }
    root.appendChild(edges);
    const nodes = svg("g", { class: "nodes" });
    for (const n of g.nodes) {
      const [x, y] = pos.get(n.id);
      const grp = svg("g", { class: "node type-" + String(n.type).replace(/[^A-Za-z]/g, "") + (n.id === g.center ? " center" : ""), tabindex: 0 });
      grp.dataset.id = n.id;
      const r = Math.min(22, 5 + 2 * Math.log2(1 + n.degree));
      grp.appendChild(svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: r.toFixed(1) }));
      const label = svg("text", { x: x.toFixed(1), y: (y + r + 12).toFixed(1), "text-anchor": "middle" });
      label.textContent = n.name.length > 28 ? n.name.slice(0, 27) + "…" : n.name;
      grp.appendChild(label);
      const t = svg("title");
      t.textContent = n.name + " (" + n.id + ", " + n.type + ", " + n.degree + " neighbours)";
      grp.appendChild(t);
      if (n.id !== g.center) {
        const open = () => { location.hash = entityHref(n.id, asOf); };
        grp.addEventListener("click", open);
        grp.addEventListener("keydown", (ev) => { if (ev.key === "Enter") open(); });
      }
      nodes.appendChild(grp);
    }
    root.appendChild(nodes);
  }

  // ---- start ---------------------------------------------------------------------------------
  async function start() {
    $("search").addEventListener("input", (ev) => {
      clearTimeout(searchTimer);
      const q = ev.target.value;
      searchTimer = setTimeout(() => search(q), 150);
    });
    $("search").addEventListener("blur", () => setTimeout(hideSuggestions, 150));
    $("search-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const first = $("suggestions").querySelector("li.suggestion");
      if (first) go(first.dataset.id);
      else search($("search").value);
    });
    $("as-of").addEventListener("change", () => {
      const { id } = parseHash();
      if (id) location.hash = entityHref(id, currentAsOf());
    });
    window.addEventListener("hashchange", route);
    try {
      const info = await getJSON("/api/years");
      years = info.years || [];
      const sel = $("as-of");
      for (const y of years.slice().reverse()) {
        const o = el("option", null, String(y));
        o.value = String(y);
        sel.appendChild(o);
      }
      $("kg-info").textContent =
        info.kg + " · snapshot " + String(info.snapshot).slice(0, 8) + " (" + info.as_of_year + ") · " +
        info.nodes + " nodes · " + info.edges + " facts";
    } catch (e) {
      setStatus("could not read the snapshot's years: " + e.message);
    }
    route();
  }
  document.addEventListener("DOMContentLoaded", start);
})();
