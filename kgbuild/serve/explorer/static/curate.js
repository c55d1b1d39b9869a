// kgbuild explorer: curation. app.js calls window.kgCurate.attach(factElement, fact) for each
// fact it renders; this adds "states it / does not state it / wrong concept" buttons and a note
// under the fact's sentence, posts a curation to /api/curations (same origin, JSON, with the
// server's token from /api/curate/token: never in a URL), and shows the fact's curations.
// Sentences and notes come from abstracts and curators: they enter the page as text only.
(function () {
  "use strict";
  const LABELS = [
    ["states", "states it"],
    ["does_not_state", "does not state it"],
    ["wrong_concept", "wrong concept"],
  ];
  const SAY = {states: "states it", does_not_state: "does not state it", wrong_concept: "wrong concept"};
  let tokenP = null;
  let pending = [];
  let timer = null;

  function el(tag, cls, text) {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function token() {
    if (!tokenP) {
      tokenP = fetch("/api/curate/token", {credentials: "same-origin"}).then((r) => {
        if (!r.ok) throw new Error("no curation token (" + r.status + ")");
        return r.json();
      });
      tokenP.catch(() => { tokenP = null; });
    }
    return tokenP;
  }

  function curator() {
    let name = "";
    try { name = localStorage.getItem("kgbuild.curator") || ""; } catch (e) { name = ""; }
    return name;
  }

  function show(div, c) {
    let box = div.querySelector(".curation-state");
    if (!box) {
      box = el("div", "curation-state");
      const bar = div.querySelector(".curate");
      div.insertBefore(box, bar);
    }
    box.textContent = "curated: " + (SAY[c.label] || c.label) + " (" + c.curator + ")"
      + (c.note ? " — " + c.note : "")
      + (c.demoted ? " · taken out of what is served" : "");
    div.classList.toggle("curated-out", !!c.demoted);
    div.dataset.curation = c.label;
  }

  async function send(div, f, label, note, msg) {
    let who = curator();
    const input = div.querySelector(".curator");
    if (input && input.value.trim()) who = input.value.trim();
    if (!who) { msg.textContent = "type your name first"; return; }
    try { localStorage.setItem("kgbuild.curator", who); } catch (e) { /* private mode */ }
    msg.textContent = "saving…";
    try {
      const t = await token();
      const headers = {"Content-Type": "application/json"};
      headers[t.header] = t.token;
      const r = await fetch("/api/curations", {
        method: "POST", credentials: "same-origin", headers: headers,
        body: JSON.stringify({triple_id: f.edge, pmid: String(f.evidence.pmid),
                              sentence: f.evidence.sentence, label: label, note: note,
                              curator: who}),
      });
      const body = await r.json().catch(() => ({}));
      if (!r.ok) { msg.textContent = "not saved: " + (body.error || r.status); return; }
      msg.textContent = "saved";
      show(div, body);
    } catch (e) {
      msg.textContent = "not saved: " + e.message;
    }
  }

  function attach(div, f) {
    if (!f || !f.evidence) return;
    const bar = el("div", "curate");
    bar.appendChild(el("span", "muted", "This sentence: "));
    const who = el("input", "curator");
    who.setAttribute("placeholder", "your name");
    who.setAttribute("maxlength", "64");
    who.setAttribute("aria-label", "Curator name");
    who.value = curator();
    const note = el("input", "curation-note");
    note.setAttribute("placeholder", "note (optional)");
    note.setAttribute("maxlength", "500");
    note.setAttribute("aria-label", "Curation note");
    const msg = el("span", "curation-msg muted");
    LABELS.forEach(([label, text]) => {
      const b = el("button", "curate-" + label, text);
      b.type = "button";
      b.addEventListener("click", () => send(div, f, label, note.value.trim(), msg));
      bar.appendChild(b);
    });
    bar.appendChild(note);
    bar.appendChild(who);
    bar.appendChild(msg);
    div.appendChild(bar);
    pending.push([div, f]);
    if (!timer) timer = setTimeout(load, 0);
  }

  // One request for every fact just rendered: their sentences' latest curations.
  async function load() {
    const batch = pending.slice(0, 200);
    pending = pending.slice(200);
    timer = pending.length ? setTimeout(load, 0) : null;
    if (!batch.length) return;
    const q = batch.map(([, f]) => "edge=" + encodeURIComponent(f.edge)).join("&");
    try {
      const r = await fetch("/api/curations?" + q, {credentials: "same-origin"});
      if (!r.ok) return;
      const got = await r.json();
      batch.forEach(([div, f]) => {
        (got[f.edge] || []).filter((c) => c.pmid === String(f.evidence.pmid))
          .forEach((c) => show(div, c));
        const n = (got[f.edge] || []).filter((c) => c.demoted).length;
        if (n) div.dataset.curatedOut = String(n);
      });
    } catch (e) { /* the page works without them */ }
  }

  window.kgCurate = {attach: attach};
})();
