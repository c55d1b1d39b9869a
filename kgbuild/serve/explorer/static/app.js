// kgbuild explorer: search; an entity page (its facts filtered and paged on the server, each
// with its sentence — subject and object marked — its status, belief, years, PubMed links and
// a link to the annotated abstract); an abstract view (PubTator-style: every mention marked by
// kind and linked to its entity, the fact's sentence marked); paths between two entities; a
// neighbourhood graph that expands on click; and an as-of selector every view follows.
//
// Every name, alias, title, abstract and sentence comes from abstracts anyone can write: they
// enter the page through textContent / createTextNode / setAttribute only, never as markup
// (no innerHTML). The server's Content-Security-Policy allows no inline script besides.
//
// Each evidence row carries an empty <div class="curation" data-edge data-pmid> (and, where the
// server knows it, data-evidence-id): the hook a curation control fills.
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  const VIEWS = ["home", "entity", "abstract", "paths"];
  const FILTERS = ["relation", "status", "year_from", "year_to", "min_belief"];
  const PAGE = 25;
  let years = [];
  let info = null;
  let viewSeq = 0;

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
  function kindClass(prefix, kind) {
    return prefix + String(kind || "Other").replace(/[^A-Za-z]/g, "");
  }
  function hashOf(path, params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== "") q.set(k, v);
    const s = q.toString();
    return "#" + path + (s ? "?" + s : "");
  }
  function entityHref(id, asOf, extra) {
    return hashOf("/entity/" + encodeURIComponent(id), Object.assign({ as_of: asOf }, extra || {}));
  }
  function abstractHref(pmid, edge, asOf) {
    return hashOf("/abstract/" + encodeURIComponent(pmid), { edge: edge, as_of: asOf });
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
  function apiQuery(params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, v);
    const s = q.toString();
    return s ? "?" + s : "";
  }

  // ---- the as-of year every view shows ------------------------------------------------------
  function asOfLabel(asOf, snapshotYear) {
    return asOf ? "as of " + asOf : "latest (" + (snapshotYear || (info && info.as_of_year) || "?") + ")";
  }
  function showAsOf(asOf, snapshot, snapshotYear) {
    const label = asOfLabel(asOf, snapshotYear);
    $("as-of-shown").textContent = "showing " + label;
    document.body.dataset.asOf = asOf || "";
    if (info && snapshot) {
      $("kg-info").textContent = info.kg + " · snapshot " + String(snapshot).slice(0, 8) + " (" + snapshotYear + ")";
    } else if (info) {
      // before a view has answered: the year's snapshot, never the latest one's id
      $("kg-info").textContent = asOf ? info.kg + " · snapshot of " + asOf
        : info.kg + " · snapshot " + String(info.snapshot).slice(0, 8) + " (" + info.as_of_year + ")";
    }
    for (const node of document.querySelectorAll(".view-as-of")) node.textContent = "— " + label;
  }

  // ---- routing ------------------------------------------------------------------------------
  // #/  ·  #/entity/<id>?as_of&relation&status&year_from&year_to&min_belief&page
  // #/abstract/<pmid>?edge&as_of  ·  #/paths?from&to&hops&as_of
  function parseHash() {
    const h = location.hash.replace(/^#/, "");
    const cut = h.indexOf("?");
    const path = cut < 0 ? h : h.slice(0, cut);
    const params = new URLSearchParams(cut < 0 ? "" : h.slice(cut + 1));
    const m = /^\/(entity|abstract)\/(.+)$/.exec(path);
    let view = path === "/paths" ? "paths" : "home";
    let id = null;
    if (m) {
      try {
        id = decodeURIComponent(m[2]);
        view = m[1];
      } catch (e) {
        id = null;
      }
    }
    return { view: view, id: id, params: params, asOf: params.get("as_of") || "" };
  }
  function currentAsOf() {
    return $("as-of").value;
  }
  function showView(name) {
    for (const v of VIEWS) $(v).hidden = v !== name;
  }
  function route() {
    const r = parseHash();
    if (r.asOf && years.indexOf(Number(r.asOf)) < 0) {
      // not one of the KG's snapshot years: show the latest, and say so in the address
      r.params.delete("as_of");
      const s = r.params.toString();
      location.replace(location.hash.split("?")[0] + (s ? "?" + s : ""));
      return;
    }
    $("as-of").value = r.asOf;
    showAsOf(r.asOf);
    if (r.view === "entity") showEntity(r.id, r.asOf, r.params);
    else if (r.view === "abstract") showAbstract(r.id, r.asOf, r.params.get("edge") || "");
    else if (r.view === "paths") showPaths(r.asOf, r.params);
    else {
      showView("home");
      document.title = "kgbuild explorer";
      document.body.dataset.state = "ready";
      document.body.dataset.view = "home";
      setStatus("");
    }
  }
  function failed(seq, e) {
    if (seq !== viewSeq) return;
    showView("home");
    setStatus(e.message);
    document.body.dataset.state = "error";
  }
  function ready(seq, view, title) {
    document.title = title + " — kgbuild explorer";
    setStatus("");
    document.body.dataset.view = view;
    document.body.dataset.state = "ready";
  }

  // ---- search (the header's, and the paths form's two) --------------------------------------
  function attachSearch(input, list, pick) {
    let timer = null;
    let seq = 0;
    async function search(q) {
      const mine = ++seq;
      if (!q.trim()) {
        clear(list);
        list.hidden = true;
        return;
      }
      let found;
      try {
        found = await getJSON("/entities?limit=12&q=" + encodeURIComponent(q));
      } catch (e) {
        if (mine !== seq) return;
        clear(list);
        list.appendChild(el("li", "empty", "search failed: " + e.message));
        list.hidden = false;
        return;
      }
      if (mine !== seq) return; // an older answer arriving late
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
          list.hidden = true;
          pick(ent);
        });
        list.appendChild(li);
      }
      list.hidden = false;
    }
    input.addEventListener("input", () => {
      clearTimeout(timer);
      delete input.dataset.id;
      const q = input.value;
      timer = setTimeout(() => search(q), 150);
    });
    input.addEventListener("blur", () => setTimeout(() => { list.hidden = true; }, 150));
    return () => {
      const first = list.querySelector("li.suggestion");
      if (first) {
        list.hidden = true;
        pick({ id: first.dataset.id, name: first.querySelector(".name").textContent });
      } else search(input.value);
    };
  }

  // ---- a sentence with both endpoints marked ------------------------------------------------
  // spans: [[start, end, class], ...] character offsets into text; overlapping ones are dropped.
  function appendSpans(parent, text, spans) {
    const kept = [];
    for (const s of spans.filter((x) => x && x[0] < x[1]).sort((a, b) => a[0] - b[0])) {
      if (!kept.length || s[0] >= kept[kept.length - 1][1]) kept.push(s);
    }
    let at = 0;
    for (const [a, b, cls] of kept) {
      if (a > at) parent.appendChild(document.createTextNode(text.slice(at, a)));
      const m = el("mark", cls, text.slice(a, b));
      m.setAttribute("title", cls === "subject" ? "subject" : "object");
      parent.appendChild(m);
      at = b;
    }
    if (at < text.length) parent.appendChild(document.createTextNode(text.slice(at)));
  }
  function evidenceRow(ev, edge, asOf) {
    // the fact's sentence, its source and the empty curation hook, as one unit
    const row = el("div", "evidence");
    row.dataset.edge = edge;
    row.dataset.pmid = ev.pmid;
    const q = el("blockquote", "sentence");
    appendSpans(q, ev.sentence, [
      ev.head_span ? [ev.head_span[0], ev.head_span[1], "subject"] : null,
      ev.tail_span ? [ev.tail_span[0], ev.tail_span[1], "object"] : null,
    ]);
    row.appendChild(q);
    const src = el("div", "source muted");
    src.appendChild(document.createTextNode("PMID "));
    src.appendChild(pubmedLink(ev.pmid));
    if (ev.year) src.appendChild(document.createTextNode(" (" + ev.year + ")"));
    if (ev.confidence !== undefined) src.appendChild(document.createTextNode(" · sentence confidence " + ev.confidence));
    src.appendChild(document.createTextNode(" · "));
    const a = el("a", "abstract-link", "annotated abstract");
    a.setAttribute("href", abstractHref(ev.pmid, edge, asOf));
    src.appendChild(a);
    row.appendChild(src);
    const hook = el("div", "curation");
    hook.dataset.edge = edge;
    hook.dataset.pmid = ev.pmid;
    if (ev.evidence_id) hook.dataset.evidenceId = ev.evidence_id;
    row.appendChild(hook);
    return row;
  }

  // ---- entity view: header, filters, a page of facts, pager, graph --------------------------
  // (the address holds the filters and the page: #/entity/<id>?relation=…&page=2&limit=25)
  function filtersOf(params) {
    const f = {};
    for (const k of FILTERS) f[k] = params.get(k) || "";
    f.page = Math.max(0, parseInt(params.get("page") || "0", 10) || 0);
    f.limit = Math.min(100, Math.max(1, parseInt(params.get("limit") || "", 10) || PAGE));
    return f;
  }
  async function showEntity(id, asOf, params) {
    const seq = ++viewSeq;
    const f = filtersOf(params);
    document.body.dataset.state = "loading";
    setStatus("loading…");
    const base = encodeURIComponent(id);
    const q = apiQuery({ as_of: asOf });
    const fq = apiQuery(Object.assign({}, f, { as_of: asOf, offset: f.page * f.limit, page: "" }));
    let page, facts, graph;
    try {
      [page, facts, graph] = await Promise.all([
        getJSON("/api/entity/" + base + apiQuery({ as_of: asOf, per_relation: 1 })),
        // a filter the server refuses (400) leaves the page up with its message
        getJSON("/api/facts/" + base + fq).catch((e) => ({ error: e.message })),
        getJSON("/api/neighbourhood/" + base + q),
      ]);
    } catch (e) {
      return failed(seq, e);
    }
    if (seq !== viewSeq) return;
    showView("entity");
    showAsOf(asOf, page.snapshot, graph.snapshot_year);
    renderEntityHeader(page, asOf);
    if (facts.error) {
      clear($("facts"));
      $("facts-count").textContent = "These filters cannot be applied: " + facts.error;
      $("pager").hidden = true;
    } else {
      renderFilters(facts, f);
      renderFacts(page.entity, facts, asOf);
      renderPager(facts, f);
    }
    graphView.draw(graph, asOf);
    ready(seq, "entity", page.entity.name);
  }

  function renderEntityHeader(page, asOf) {
    const ent = page.entity;
    $("entity-name").textContent = ent.name;
    const meta = [ent.id, ent.type];
    if (ent.symbol && ent.symbol !== ent.name) meta.push("symbol " + ent.symbol);
    meta.push(plural(ent.facts, "fact") + " " + asOfLabel(asOf, null));
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
  }

  function fillSelect(sel, counts, value) {
    clear(sel);
    const any = el("option", null, "any");
    any.value = "";
    sel.appendChild(any);
    const names = Object.keys(counts || {});
    if (value && names.indexOf(value) < 0) names.push(value);
    for (const name of names) {
      const o = el("option", null, name + (counts[name] !== undefined ? " (" + counts[name] + ")" : ""));
      o.value = name;
      sel.appendChild(o);
    }
    sel.value = value || "";
  }
  function renderFilters(facts, f) {
    fillSelect($("f-relation"), facts.facets.relations, f.relation);
    fillSelect($("f-status"), facts.facets.statuses, f.status);
    const span = facts.facets.years || [];
    $("f-year-from").value = f.year_from;
    $("f-year-to").value = f.year_to;
    $("f-year-from").placeholder = span.length ? String(span[0]) : "from";
    $("f-year-to").placeholder = span.length ? String(span[1]) : "to";
    $("f-min-belief").value = f.min_belief;
  }
  function filterHash(page) {
    const { id, asOf } = parseHash();
    const extra = {
      relation: $("f-relation").value,
      status: $("f-status").value,
      year_from: $("f-year-from").value.trim(),
      year_to: $("f-year-to").value.trim(),
      min_belief: $("f-min-belief").value.trim(),
      limit: parseHash().params.get("limit") || "",
      page: page ? String(page) : "",
    };
    return entityHref(id, asOf, extra);
  }

  function renderFacts(ent, page, asOf) {
    const box = $("facts");
    clear(box);
    const from = page.total ? page.offset + 1 : 0;
    const to = page.offset + page.facts.length;
    $("facts-count").textContent = page.total
      ? "Facts " + from + "–" + to + " of " + page.total + " matching (" + plural(ent.facts, "fact") + " in all)"
      : "No fact matches these filters " + asOfLabel(asOf, page.snapshot_year) + ".";
    const sections = new Map(); // the page's facts grouped by relation, in order of strength
    for (const f of page.facts) {
      let sec = sections.get(f.relation);
      if (!sec) {
        sec = el("section", "relation");
        sec.dataset.relation = f.relation;
        sec.appendChild(el("h3", null, f.relation));
        sections.set(f.relation, sec);
        box.appendChild(sec);
      }
      sec.appendChild(renderFact(ent, f, asOf));
    }
  }

  function renderFact(ent, f, asOf) {
    const div = el("article", "fact");
    div.dataset.edge = f.edge;
    const head = el("div", "fact-head");
    const self = el("span", "self", ent.name);
    const rel = el("span", "rel", " " + f.relation + " ");
    if (f.direction === "in") head.append(entityLink(f.other, asOf), rel, self);
    else head.append(self, rel, entityLink(f.other, asOf));
    head.appendChild(el("span", "type", f.other.type));
    div.appendChild(head);
    if (f.evidence) div.appendChild(evidenceRow(f.evidence, f.edge, asOf));
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

  function renderPager(page, f) {
    const pages = Math.max(1, Math.ceil(page.total / f.limit));
    $("page-info").textContent = "page " + (f.page + 1) + " of " + pages;
    $("page-prev").disabled = f.page <= 0;
    $("page-next").disabled = page.offset + page.facts.length >= page.total;
    $("pager").hidden = page.total <= f.limit && f.page === 0;
  }

  // ---- abstract view: PubTator-style mentions by kind, the fact's sentence ------------------
  async function showAbstract(pmid, asOf, edge) {
    const seq = ++viewSeq;
    document.body.dataset.state = "loading";
    setStatus("loading…");
    let doc;
    try {
      doc = await getJSON("/api/abstract/" + encodeURIComponent(pmid) + apiQuery({ as_of: asOf, edge: edge }));
    } catch (e) {
      return failed(seq, e);
    }
    if (seq !== viewSeq) return;
    showView("abstract");
    showAsOf(asOf, doc.snapshot, doc.snapshot_year);
    renderAbstract(doc, asOf);
    ready(seq, "abstract", "PMID " + doc.pmid);
  }

  function renderAbstract(doc, asOf) {
    const meta = $("abstract-meta");
    clear(meta);
    meta.appendChild(document.createTextNode("PMID "));
    meta.appendChild(pubmedLink(doc.pmid));
    if (doc.year) meta.appendChild(document.createTextNode(" · " + doc.year));
    if (doc.journal) meta.appendChild(document.createTextNode(" · " + doc.journal));
    meta.appendChild(document.createTextNode(" · " + plural(doc.mentions.length, "mention") + " · " + asOfLabel(asOf, doc.snapshot_year)));
    const f = doc.fact;
    const box = $("abstract-fact");
    clear(box);
    box.hidden = !f;
    if (f) {
      box.appendChild(el("span", "label", "This abstract is evidence that "));
      box.append(entityLink(f.head, asOf), el("span", "rel", " " + f.relation + " "), entityLink(f.tail, asOf));
      const key = el("span", "muted", " — in the text: ");
      key.append(el("span", "subject", "subject"), document.createTextNode(", "), el("span", "object", "object"));
      box.appendChild(key);
      if (!f.sentence_span) box.appendChild(el("p", "muted", "(its sentence could not be placed in the text)"));
      const hook = el("div", "curation");
      hook.dataset.edge = f.edge;
      hook.dataset.pmid = doc.pmid;
      if (f.evidence_id) hook.dataset.evidenceId = f.evidence_id;
      box.appendChild(hook);
      $("abstract-back").setAttribute("href", entityHref(f.head.id, asOf));
    } else {
      $("abstract-back").setAttribute("href", hashOf("/", { as_of: asOf }));
    }
    renderLegend($("abstract-legend"), doc.kinds, "kind-", "Mentions by kind: ");
    const title = $("abstract-title");
    const body = $("abstract-text");
    clear(title);
    clear(body);
    appendAnnotated(title, doc, 0, doc.title_end, asOf);
    appendAnnotated(body, doc, Math.min(doc.title_end + 1, doc.text.length), doc.text.length, asOf);
  }

  // The text [lo, hi) cut at every mention and sentence boundary; each piece is a text node, a
  // <span> (inside the fact's sentence) or a mention link — classes say which, never markup.
  function appendAnnotated(parent, doc, lo, hi, asOf) {
    const f = doc.fact;
    const sent = f && f.sentence_span;
    const cuts = new Set([lo, hi]);
    const inside = (x) => x > lo && x < hi;
    for (const m of doc.mentions) {
      if (inside(m.start)) cuts.add(m.start);
      if (inside(m.end)) cuts.add(m.end);
    }
    for (const s of [sent, f && f.head_span, f && f.tail_span]) {
      if (s) {
        if (inside(s[0])) cuts.add(s[0]);
        if (inside(s[1])) cuts.add(s[1]);
      }
    }
    const points = Array.from(cuts).sort((a, b) => a - b);
    const within = (s, a, b) => s && s[0] <= a && b <= s[1];
    let mi = 0;
    for (let i = 0; i + 1 < points.length; i++) {
      const a = points[i], b = points[i + 1];
      const text = doc.text.slice(a, b);
      while (mi < doc.mentions.length && doc.mentions[mi].end <= a) mi++;
      const m = mi < doc.mentions.length && doc.mentions[mi].start <= a && b <= doc.mentions[mi].end ? doc.mentions[mi] : null;
      const cls = [];
      if (within(sent, a, b)) cls.push("in-sentence");
      if (f && within(f.head_span, a, b)) cls.push("subject");
      if (f && within(f.tail_span, a, b)) cls.push("object");
      let node;
      if (m) {
        cls.unshift("mention", kindClass("kind-", m.kind));
        node = el(m.id ? "a" : "span", cls.join(" "), text);
        node.dataset.kind = m.kind;
        if (m.id) {
          node.setAttribute("href", entityHref(m.id, asOf));
          node.dataset.id = m.id;
          node.setAttribute("title", m.kind + ": " + m.name + " (" + m.id + ")");
        } else {
          node.setAttribute("title", m.kind + (m.concept ? " (" + m.concept + ", not a node of this snapshot)" : ""));
        }
      } else if (cls.length) {
        node = el("span", cls.join(" "), text);
      } else {
        node = document.createTextNode(text);
      }
      parent.appendChild(node);
    }
  }

  function renderLegend(box, kinds, prefix, label) {
    clear(box);
    if (!kinds.length) return;
    box.appendChild(el("span", "label", label));
    for (const k of kinds) {
      const item = el("span", "legend-item");
      item.dataset.kind = k;
      item.appendChild(el("span", "swatch " + kindClass(prefix, k)));
      item.appendChild(document.createTextNode(k));
      box.appendChild(item);
    }
  }

  // ---- paths view ---------------------------------------------------------------------------
  async function showPaths(asOf, params) {
    const seq = ++viewSeq;
    showView("paths");
    const from = params.get("from") || "", to = params.get("to") || "";
    const hops = params.get("hops") || "3";
    $("path-hops").value = hops;
    clear($("path-list"));
    $("paths-summary").textContent = from && to ? "" : "Pick two entities.";
    if (!from || !to) {
      showAsOf(asOf);
      return ready(seq, "paths", "Paths");
    }
    document.body.dataset.state = "loading";
    setStatus("loading…");
    let res;
    try {
      res = await getJSON("/api/paths" + apiQuery({ from: from, to: to, hops: hops, as_of: asOf }));
    } catch (e) {
      if (seq !== viewSeq) return;
      setStatus(e.message);
      document.body.dataset.state = "error";
      return;
    }
    if (seq !== viewSeq) return;
    showAsOf(asOf, res.snapshot, res.snapshot_year);
    $("path-from").value = res.source.name;
    $("path-from").dataset.id = res.source.id;
    $("path-to").value = res.target.name;
    $("path-to").dataset.id = res.target.id;
    renderPaths(res, asOf);
    ready(seq, "paths", "Paths: " + res.source.name + " → " + res.target.name);
  }
  function renderPaths(res, asOf) {
    $("paths-summary").textContent = res.paths.length
      ? plural(res.found, "shortest path") + " of " + plural(res.paths[0].hops, "hop") + " " + asOfLabel(asOf, res.snapshot_year) +
        (res.found > res.paths.length ? "; the " + res.paths.length + " strongest shown" : "")
      : "No path of at most " + plural(res.max_hops, "hop") + " " + asOfLabel(asOf, res.snapshot_year) + ".";
    const list = $("path-list");
    for (const p of res.paths) {
      const li = el("li", "path");
      const chain = el("div", "chain");
      p.nodes.forEach((n, i) => {
        if (i) {
          const e = p.edges[i - 1];
          const forward = e.head === p.nodes[i - 1].id;
          chain.appendChild(el("span", "rel", forward ? " — " + e.relation + " → " : " ← " + e.relation + " — "));
        }
        chain.appendChild(entityLink(n, asOf));
      });
      li.appendChild(chain);
      for (const e of p.edges) {
        const step = el("div", "step");
        step.dataset.edge = e.edge;
        if (e.evidence) step.appendChild(evidenceRow(e.evidence, e.edge, asOf));
        else step.appendChild(el("p", "muted", "no sentence as of this year"));
        li.appendChild(step);
      }
      list.appendChild(li);
    }
  }
  function submitPaths(ev) {
    ev.preventDefault();
    const from = $("path-from").dataset.id, to = $("path-to").dataset.id;
    if (!from || !to) {
      $("paths-summary").textContent = "Pick both entities from the suggestions.";
      return;
    }
    location.hash = hashOf("/paths", { from: from, to: to, hops: $("path-hops").value, as_of: currentAsOf() });
  }

  // ---- neighbourhood graph: radial layout, expand on click, legend, labels that never overlap
  const graphView = (function () {
    const W = 900, H = 560, MARGIN = 4, NAME_CHARS = 24, REL_CHARS = 18;
    // A click expands a node and a double-click opens it. Expanding redraws the graph, and a
    // redraw between the two clicks of a double-click replaces the node under the pointer, so
    // the browser never sees the double-click: the redraw waits out the double-click interval
    // (500 ms, Chrome's and Windows' default) after the click that asked for it.
    const DOUBLE_CLICK_MS = 500;
    let state = null;
    let lastNodeClick = -Infinity;

    function draw(g, asOf) {
      state = { center: g.center, asOf: asOf, nodes: new Map(), edges: new Map(), pos: new Map(), expanded: new Set([g.center]) };
      const others = g.nodes.filter((n) => n.id !== g.center);
      const inner = others.slice(0, 12), outer = others.slice(12);
      const cx = W / 2, cy = H / 2;
      state.pos.set(g.center, [cx, cy]);
      const ring = (list, rx, ry, offset) =>
        list.forEach((n, i) => {
          const a = -Math.PI / 2 + offset + (2 * Math.PI * i) / list.length;
          state.pos.set(n.id, [cx + rx * Math.cos(a), cy + ry * Math.sin(a)]);
        });
      if (outer.length) {
        ring(inner, 200, 130, 0);
        ring(outer, 390, 235, Math.PI / Math.max(outer.length, 1));
      } else {
        ring(inner, 290, 190, 0);
      }
      add(g);
      render();
    }
    function add(g) {
      for (const n of g.nodes) if (!state.nodes.has(n.id)) state.nodes.set(n.id, n);
      for (const e of g.edges) {
        const key = e.source < e.target ? e.source + "\u0000" + e.target : e.target + "\u0000" + e.source;
        if (!state.edges.has(key)) state.edges.set(key, e);
      }
    }
    async function expand(id) {
      if (!state || state.expanded.has(id)) return select(id);
      const asOf = state.asOf;
      const mine = state;
      const hash = location.hash; // a double-click opens the node: this page is left then
      let g;
      try {
        g = await getJSON("/api/neighbourhood/" + encodeURIComponent(id) + apiQuery({ as_of: asOf, limit: 8 }));
      } catch (e) {
        setStatus(e.message);
        return;
      }
      const wait = lastNodeClick + DOUBLE_CLICK_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (mine !== state || location.hash !== hash) return; // the page changed meanwhile
      state.expanded.add(id);
      const [x, y] = state.pos.get(id);
      const fresh = g.nodes.filter((n) => !state.pos.has(n.id));
      // new nodes on an arc facing away from the centre
      const [cx, cy] = state.pos.get(state.center);
      const base = Math.atan2(y - cy, x - cx);
      fresh.forEach((n, i) => {
        const a = base + (i - (fresh.length - 1) / 2) * 0.45;
        const r = 90 + 28 * (i % 2);
        const px = Math.max(20, Math.min(W - 20, x + r * Math.cos(a)));
        const py = Math.max(20, Math.min(H - 30, y + r * Math.sin(a)));
        state.pos.set(n.id, [px, py]);
      });
      add(g);
      render();
      select(id);
      document.body.dataset.graph = "expanded";
    }
    function select(id) {
      const n = state && state.nodes.get(id);
      const box = $("graph-selected");
      clear(box);
      if (!n) return;
      box.appendChild(document.createTextNode(n.name + " (" + n.type + ", " + plural(n.degree, "neighbour") + ") · "));
      const a = el("a", "open-node", "open its page");
      a.setAttribute("href", entityHref(n.id, state.asOf));
      box.appendChild(a);
    }
    function truncate(s, n) {
      s = String(s);
      return s.length > n ? s.slice(0, n - 1) + "…" : s;
    }
    function overlaps(a, b) {
      return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
    }
    // Place a text at the first candidate spot that stays inside the drawing and clear of the
    // labels already placed; a label with no such spot is hidden (its <title> still tells).
    function place(text, spots, placed) {
      for (const [x, y, anchor] of spots) {
        text.setAttribute("x", x.toFixed(1));
        text.setAttribute("y", y.toFixed(1));
        text.setAttribute("text-anchor", anchor);
        const b = text.getBBox();
        const box = { x: b.x - 1, y: b.y - 1, w: b.width + 2, h: b.height + 2 };
        const inside = box.x >= MARGIN && box.y >= MARGIN && box.x + box.w <= W - MARGIN && box.y + box.h <= H - MARGIN;
        if (inside && !placed.some((p) => overlaps(p, box))) {
          placed.push(box);
          return true;
        }
      }
      text.setAttribute("visibility", "hidden");
      text.classList.add("crowded");
      return false;
    }
    function render() {
      const root = $("graph");
      clear(root);
      const edgeLayer = svg("g", { class: "edges" });
      const labelLayer = svg("g", { class: "edge-labels" });
      const nodeLayer = svg("g", { class: "nodes" });
      root.append(edgeLayer, nodeLayer, labelLayer);
      const placed = [];
      const nodeTexts = [];
      for (const n of state.nodes.values()) {
        const [x, y] = state.pos.get(n.id);
        const cls = "node " + kindClass("type-", n.type) + (n.id === state.center ? " center" : "") +
          (state.expanded.has(n.id) && n.id !== state.center ? " expanded" : "");
        const grp = svg("g", { class: cls, tabindex: 0 });
        grp.dataset.id = n.id;
        const r = Math.min(20, 5 + 2 * Math.log2(1 + n.degree));
        grp.appendChild(svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: r.toFixed(1) }));
        const label = svg("text", { class: "node-label" });
        label.textContent = truncate(n.name, NAME_CHARS);
        grp.appendChild(label);
        const t = svg("title");
        t.textContent = n.name + " (" + n.id + ", " + n.type + ", " + n.degree + " neighbours)";
        grp.appendChild(t);
        grp.addEventListener("click", () => { lastNodeClick = performance.now(); expand(n.id); });
        grp.addEventListener("dblclick", () => { location.hash = entityHref(n.id, state.asOf); });
        grp.addEventListener("keydown", (ev) => {
          if (ev.key === "Enter") location.hash = entityHref(n.id, state.asOf);
          else if (ev.key === " ") expand(n.id);
        });
        nodeLayer.appendChild(grp);
        nodeTexts.push([label, x, y, r, n.id === state.center]);
      }
      const labelled = [];
      for (const e of state.edges.values()) {
        const a = state.pos.get(e.source), b = state.pos.get(e.target);
        if (!a || !b) continue;
        const main = state.expanded.has(e.source) || state.expanded.has(e.target);
        const line = svg("line", {
          x1: a[0].toFixed(1), y1: a[1].toFixed(1), x2: b[0].toFixed(1), y2: b[1].toFixed(1),
          class: main ? "edge" : "edge side",
          "stroke-width": ((main ? 1 : 0.5) * (1 + Math.log2(1 + e.support))).toFixed(2),
        });
        line.dataset.source = e.source;
        line.dataset.target = e.target;
        line.dataset.relation = e.relation;
        const t = svg("title");
        t.textContent = e.relation + " · " + e.support + " PMIDs" + (e.relations > 1 ? " · " + e.relations + " relations" : "");
        line.appendChild(t);
        edgeLayer.appendChild(line);
        if (main) labelled.push([e, a, b]);
      }
      // the circles are obstacles; node labels first (the centre's first of all), then edge
      // labels where room is left
      for (const [, x, y, r] of nodeTexts) placed.push({ x: x - r, y: y - r, w: 2 * r, h: 2 * r });
      nodeTexts.sort((p, q) => Number(q[4]) - Number(p[4]));
      for (const [label, x, y, r] of nodeTexts) {
        place(label, [
          [x, y + r + 12, "middle"], [x, y - r - 5, "middle"],
          [x + r + 4, y + 4, "start"], [x - r - 4, y + 4, "end"],
          [x, y + r + 24, "middle"], [x, y - r - 17, "middle"],
        ], placed);
      }
      for (const [e, a, b] of labelled) {
        const text = svg("text", { class: "edge-label" });
        text.textContent = truncate(e.relation, REL_CHARS);
        text.dataset.relation = e.relation;
        const t = svg("title");
        t.textContent = e.relation + " · " + e.support + " PMIDs";
        text.appendChild(t);
        labelLayer.appendChild(text);
        // nearer the outer end than the middle: the centre is where every edge meets
        const [near, far] = state.expanded.has(e.source) ? [a, b] : [b, a];
        const spots = [0.62, 0.5, 0.75].map((k) => [near[0] + k * (far[0] - near[0]), near[1] + k * (far[1] - near[1]) + 4, "middle"]);
        place(text, spots, placed);
      }
      const types = Array.from(new Set(Array.from(state.nodes.values()).map((n) => n.type || "Other"))).sort();
      renderLegend($("graph-legend"), types, "type-", "Node colours: ");
    }
    return { draw: draw, expand: expand };
  })();

  // ---- start ---------------------------------------------------------------------------------
  function changeAsOf() {
    // the same view, as of the chosen year (a fact page starts again at its first page)
    const r = parseHash();
    if (currentAsOf()) r.params.set("as_of", currentAsOf());
    else r.params.delete("as_of");
    r.params.delete("page");
    const s = r.params.toString();
    location.hash = (location.hash.split("?")[0] || "#/") + (s ? "?" + s : "");
  }
  async function start() {
    const go = attachSearch($("search"), $("suggestions"), (ent) => {
      location.hash = entityHref(ent.id, currentAsOf());
    });
    $("search-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      go();
    });
    const pick = (input) => (ent) => {
      input.value = ent.name;
      input.dataset.id = ent.id;
    };
    attachSearch($("path-from"), $("path-from-suggestions"), pick($("path-from")));
    attachSearch($("path-to"), $("path-to-suggestions"), pick($("path-to")));
    $("paths-form").addEventListener("submit", submitPaths);
    $("paths-link").addEventListener("click", (ev) => {
      ev.preventDefault();
      location.hash = hashOf("/paths", { as_of: currentAsOf() });
    });
    $("fact-filters").addEventListener("submit", (ev) => {
      ev.preventDefault();
      location.hash = filterHash(0);
    });
    $("f-reset").addEventListener("click", () => {
      const { id, asOf } = parseHash();
      location.hash = entityHref(id, asOf);
    });
    $("page-prev").addEventListener("click", () => {
      location.hash = filterHash(Math.max(0, filtersOf(parseHash().params).page - 1));
    });
    $("page-next").addEventListener("click", () => {
      location.hash = filterHash(filtersOf(parseHash().params).page + 1);
    });
    $("as-of").addEventListener("change", changeAsOf);
    window.addEventListener("hashchange", route);
    try {
      info = await getJSON("/api/years");
      years = info.years || [];
      const sel = $("as-of");
      for (const y of years.slice().reverse()) {
        const o = el("option", null, String(y));
        o.value = String(y);
        sel.appendChild(o);
      }
    } catch (e) {
      setStatus("could not read the snapshot's years: " + e.message);
    }
    route();
  }
  document.addEventListener("DOMContentLoaded", start);
})();
