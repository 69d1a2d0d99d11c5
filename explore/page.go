package explore

import "html/template"

// page is the explorer: the data inline, the views drawn by a small
// script from the URL's fragment.
var page = template.Must(template.New("explore").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #222; }
header { background: #234; color: #fff; padding: 8px 16px; display: flex; gap: 16px; align-items: center; flex-wrap: wrap; }
header a { color: #cde; }
header h1 { font-size: 18px; margin: 0; }
header input { font: inherit; padding: 2px 6px; }
main { display: flex; min-height: calc(100vh - 48px); }
nav { width: 330px; flex: none; border-right: 1px solid #ccc; overflow: auto; padding: 8px; max-height: calc(100vh - 64px); }
nav ul { list-style: none; padding-left: 14px; margin: 0; }
nav > ul { padding-left: 0; }
nav li { margin: 1px 0; }
#view { flex: 1; padding: 12px 20px; overflow: auto; }
.bar { display: inline-block; height: 8px; background: #6a9fd4; vertical-align: middle; margin-right: 6px; }
.muted { color: #777; }
.words td { padding: 1px 8px 1px 0; }
.doc { border-bottom: 1px solid #eee; padding: 6px 0; }
.chips a { display: inline-block; margin: 2px 6px 2px 0; }
svg text { font-size: 11px; fill: #333; }
svg circle { fill: #6a9fd4; fill-opacity: 0.55; stroke: #345; cursor: pointer; }
svg circle.on { fill: #d4823a; }
</style>
</head>
<body>
<header>
  <h1>{{.Title}}</h1>
  <span id="layers"></span>
  <a href="#docs">documents</a>
  <form id="search"><input id="q" type="search" placeholder="find a word" aria-label="find a word"></form>
</header>
<main>
  <nav id="tree" aria-label="topic tree"></nav>
  <section id="view" aria-live="polite"></section>
</main>
<script id="data" type="application/json">{{.Data}}</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const topics = {};
for (const l of D.layers) for (const t of l.topics) topics[t.id] = t;
const docIndex = {};
D.docs.forEach((d, i) => { docIndex[d.id] = i; });
const L = D.layers.length;

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const k of kids) e.append(k);
  return e;
}
function link(hash, text) { return el("a", {href: "#" + hash}, text); }
function pct(x) { return (100 * x).toFixed(1) + "%"; }
function label(id) { return id + " " + topics[id].words.slice(0, 3).map(w => w.w).join(" "); }
function bar(x, max) { return el("span", {class: "bar", style: "width:" + Math.max(1, Math.round(120 * x / max)) + "px"}); }

// The tree: the broadest layer's topics, each opened into the topics it
// is made of, down to layer 1; sized by weight.
function tree() {
  const nav = document.getElementById("tree");
  const top = D.layers[L - 1].topics.slice().sort((a, b) => b.weight - a.weight);
  const maxW = Math.max(...D.layers.flatMap(l => l.topics.map(t => t.weight)));
  function node(t, share) {
    const li = el("li", {}, bar(t.weight, maxW), link("topic=" + t.id, label(t.id)),
      el("span", {class: "muted"}, " " + pct(t.weight) + (share === undefined ? "" : ", " + pct(share) + " of it")));
    if (t.madeOf.length) li.append(el("ul", {}, ...t.madeOf.map(m => node(topics[m.id], m.share))));
    return li;
  }
  nav.replaceChildren(el("div", {class: "muted"}, "Layer " + L + " topics, each made of layer " + (L - 1 || 1) + " topics:"),
    el("ul", {}, ...top.map(t => node(t))));
  const ls = document.getElementById("layers");
  ls.replaceChildren(...D.layers.map(l => link("layer=" + l.layer, "layer " + l.layer + " ")));
}

function view(kind, ...kids) {
  const v = document.getElementById("view");
  v.dataset.view = kind;
  v.replaceChildren(...kids);
}

function showLayer(n) {
  const lay = D.layers[n - 1];
  if (!lay) return notFound("layer " + n);
  const W = 640, H = 480, R = 60;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("width", W); svg.setAttribute("height", H); svg.setAttribute("id", "map");
  svg.setAttribute("viewBox", "0 0 " + W + " " + H); svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "map of layer " + n + "'s topics");
  const maxW = Math.max(...lay.topics.map(t => t.weight));
  for (const t of lay.topics) {
    const x = W / 2 + t.x * (W / 2 - R), y = H / 2 - t.y * (H / 2 - R);
    const c = document.createElementNS(svg.namespaceURI, "circle");
    c.setAttribute("cx", x); c.setAttribute("cy", y);
    c.setAttribute("r", 4 + 26 * Math.sqrt(t.weight / maxW));
    c.addEventListener("click", () => { location.hash = "topic=" + t.id; });
    const title = document.createElementNS(svg.namespaceURI, "title");
    title.textContent = label(t.id);
    c.append(title);
    const tx = document.createElementNS(svg.namespaceURI, "text");
    tx.setAttribute("x", x); tx.setAttribute("y", y); tx.setAttribute("text-anchor", "middle");
    tx.textContent = t.id;
    svg.append(c, tx);
  }
  const rows = lay.topics.slice().sort((a, b) => b.weight - a.weight).map(t =>
    el("tr", {}, el("td", {}, link("topic=" + t.id, t.id)), el("td", {}, pct(t.weight)), el("td", {}, fmtNPMI(t.npmi)),
      el("td", {}, t.words.slice(0, 8).map(w => w.w).join(" "))));
  view("layer", el("h2", {}, "Layer " + n + ": " + lay.topics.length + " topics"),
    el("p", {}, "NPMI " + fmtNPMI(lay.npmi) + ", diversity " + lay.diversity.toFixed(3) + ", specialization " + fmtNPMI(lay.specialization) +
      (lay.affinityChildren === null ? "" : ", affinity to layer " + (n - 1) + ": children " + fmtNPMI(lay.affinityChildren) + ", others " + fmtNPMI(lay.affinityOthers)) +
      ". The map places topics by the Jensen–Shannon distance of their words; circles are sized by weight."),
    svg, el("table", {class: "words"}, el("tr", {}, el("th", {}, "topic"), el("th", {}, "weight"), el("th", {}, "NPMI"), el("th", {}, "words")), ...rows));
}

function fmtNPMI(v) { return v === null ? "—" : v.toFixed(3); }

function showTopic(id) {
  const t = topics[id];
  if (!t) return notFound("topic " + id);
  const maxP = t.words.length ? t.words[0].p : 1;
  const kids = [el("h2", {id: "topic-title"}, "Topic " + id),
    el("p", {}, "Weight " + pct(t.weight) + " of layer " + id.split(".")[0] + "; NPMI " + fmtNPMI(t.npmi) + (t.note ? " (" + t.note + ")" : "") +
      (t.parentShare === null ? "" : "; " + pct(t.parentShare) + " of its mass from its largest topic of the layer before")),
    el("table", {class: "words"}, ...t.words.map(w => el("tr", {}, el("td", {}, link("word=" + encodeURIComponent(w.w), w.w)), el("td", {}, bar(w.p, maxP), pct(w.p)))))];
  if (t.madeOf.length) kids.push(el("h3", {}, "Made of (layer " + (+id.split(".")[0] - 1) + ")"),
    el("div", {class: "chips"}, ...t.madeOf.map(m => el("span", {}, link("topic=" + m.id, label(m.id)), " " + pct(m.share)))));
  if (t.partOf.length) kids.push(el("h3", {}, "Part of (layer " + (+id.split(".")[0] + 1) + ")"),
    el("div", {class: "chips"}, ...t.partOf.map(m => el("span", {}, link("topic=" + m.id, label(m.id)), " " + pct(m.share) + " of it"))));
  kids.push(el("h3", {}, "Most representative documents"),
    ...t.docs.map(i => el("div", {class: "doc"}, link("doc=" + encodeURIComponent(D.docs[i].id), D.docs[i].id), " ", el("span", {class: "muted"}, D.docs[i].text))));
  view("topic", ...kids);
  for (const c of document.querySelectorAll("#map circle")) c.classList.remove("on");
}

function showDoc(id) {
  const i = docIndex[id];
  if (i === undefined) return notFound("document " + id);
  const d = D.docs[i];
  view("doc", el("h2", {}, "Document " + d.id),
    el("h3", {}, "Its path through the layers"),
    el("ol", {}, ...d.path.map((p, l) => el("li", {}, p.id ? link("topic=" + p.id, label(p.id)) : "no weight", p.id ? " " + pct(p.share) : ""))),
    el("p", {id: "doc-text"}, d.text || "(no text: the documents were a matrix)"));
}

function showWord(w) {
  const hits = (D.words[w] || D.words[w.toLowerCase()] || []).slice().sort((a, b) => a.id.split(".")[0] - b.id.split(".")[0] || a.rank - b.rank);
  view("word", el("h2", {}, "“" + w + "”"),
    hits.length ? el("ul", {}, ...hits.map(h => el("li", {}, link("topic=" + h.id, label(h.id)), " rank " + h.rank)))
      : el("p", {}, "No topic ranks this word among its top words."));
}

function showDocs() {
  view("docs", el("h2", {}, D.docs.length + " documents"),
    ...D.docs.map(d => el("div", {class: "doc"}, link("doc=" + encodeURIComponent(d.id), d.id), " ", el("span", {class: "muted"}, d.text.slice(0, 160)))));
}

function notFound(what) { view("missing", el("h2", {}, "No " + what + " here")); }

function route() {
  const h = location.hash.slice(1);
  const eq = h.indexOf("=");
  const key = eq < 0 ? h : h.slice(0, eq), val = eq < 0 ? "" : decodeURIComponent(h.slice(eq + 1));
  switch (key) {
    case "topic": return showTopic(val);
    case "doc": return showDoc(val);
    case "word": return showWord(val);
    case "docs": return showDocs();
    case "layer": return showLayer(+val);
    default: return showLayer(L);
  }
}

document.getElementById("search").addEventListener("submit", e => {
  e.preventDefault();
  location.hash = "word=" + encodeURIComponent(document.getElementById("q").value.trim());
});
window.addEventListener("hashchange", route);
tree();
route();
</script>
</body>
</html>
`))
