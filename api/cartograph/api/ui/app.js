// The dashboard: task-shaped pages over /graphql (docs/dashboard.md). No framework and no build
// step: every page is a function that asks GraphQL once or a few times and builds its DOM with
// `h` (text is always set as text, never parsed as HTML). The address after `#` is the page, so
// every page has a URL to share.

const view = document.getElementById("view");
const TOKEN_KEY = "cartograph-token";
let token = sessionStorage.getItem(TOKEN_KEY) || "";
const GRAPH_COLUMN_CAP = 8; // nodes shown per hop of a call graph before "show more"
const LIST_CAP = 50; // rows of a long list shown before "show all"
const PATCH_KEY = "cartograph-pasted-diff"; // the diff last pasted in this tab

// ---------------------------------------------------------------- DOM helpers

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  setAttributes(node, attrs);
  append(node, children);
  return node;
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  setAttributes(node, attrs);
  append(node, children);
  return node;
}

function setAttributes(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key === "className" ? "class" : key, value === true ? "" : value);
  }
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
}

const link = (href, text, attrs = {}) => h("a", { href, ...attrs }, text);
const symbolHref = (id) => `#/symbol/${encodeURIComponent(id)}`;
const repoHref = (name) => `#/repo/${encodeURIComponent(name)}`;
const symbolLink = (s) => link(symbolHref(s.id), s.qualname || s.name, { title: `${s.path}:${s.start_line ?? s.startLine}` });
const number = (n) => (n === null || n === undefined ? "—" : Number(n).toLocaleString("en"));

// A table cut at `cap` rows, like `capped`: a button shows the rest.
function table(caption, headers, rows, empty = "none", cap = LIST_CAP) {
  if (!rows.length) return h("p", { className: "empty" }, `${caption}: ${empty}`);
  const row = (cells) => h("tr", {}, cells.map((c) => h("td", {}, c)));
  const body = h("tbody", {}, rows.slice(0, cap).map(row));
  const shown = h(
    "table",
    {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, headers.map((x) => h("th", { scope: "col" }, x)))),
    body,
  );
  if (rows.length <= cap) return shown;
  const more = h("button", { type: "button", onclick: () => {
    more.remove();
    append(body, rows.slice(cap).map(row));
  } }, `show all ${rows.length} rows`);
  return h("div", {}, shown, more);
}

// A list cut at `cap` rows with a button that shows the rest.
function capped(items, render, cap = LIST_CAP) {
  const list = h("ul", {}, items.slice(0, cap).map((x) => h("li", {}, render(x))));
  if (items.length <= cap) return list;
  const more = h("button", { type: "button", onclick: () => {
    more.remove();
    append(list, items.slice(cap).map((x) => h("li", {}, render(x))));
  } }, `show all ${items.length}`);
  return h("div", {}, list, more);
}

// A section drawn when its own answer arrives: the page shows as soon as its first answer
// has, a placeholder stands for the rest, and the page is ready once every one is drawn.
let waiting = [];

function later(title, content) {
  const status = h("p", { className: "note", role: "status" }, "loading…");
  const holder = section(title, status);
  holder.setAttribute("aria-busy", "true");
  waiting.push(content.then(
    (drawn) => holder.replaceWith(...[drawn].flat(Infinity).filter(Boolean)),
    (error) => {
      holder.removeAttribute("aria-busy");
      status.className = "error";
      status.textContent = `Not available: ${error.message}`;
    },
  ));
  return holder;
}

function section(title, ...children) {
  const id = title.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return h("section", { "aria-labelledby": id }, h("h2", { id }, title), children);
}

// ---------------------------------------------------------------- GraphQL

class GraphError extends Error {
  constructor(message, kind) {
    super(message);
    this.kind = kind;
  }
}

async function gql(query, variables = {}) {
  const headers = { "content-type": "application/json", accept: "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch("/graphql", {
    method: "POST",
    headers,
    body: JSON.stringify({ query, variables }),
  });
  if (response.status === 401) {
    await signIn(token ? "That token was refused." : "");
    return gql(query, variables);
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok && !body.errors) {
    throw new GraphError(body.detail || `the server answered ${response.status}`, "unavailable");
  }
  if (body.errors && body.errors.length) {
    const first = body.errors[0];
    throw new GraphError(first.message, (first.extensions || {}).kind || "");
  }
  return body.data;
}

// What the pages read of the typed answers (GraphQL spells fields in camelCase: `answer` asks
// for each under its snake_case name, as the answer's JSON form has it, so a page reads
// `stats.unresolved_rate` whichever way the answer came).
const ENVELOPE = "envelope { repos { name indexedSha indexedAt dirty } }";
const SYMBOL = "id name qualname kind repo path startLine signature";
const NEIGHBOURS = `total nextOffset items { symbol { ${SYMBOL} } lines through via crosses }`;
const SELECTIONS = {
  stats: `files symbols languages unresolvedRate ${ENVELOPE}`,
  trackedRepositories: "name branch headSha lag queueDepth lastJobAt lastJobSeconds lastError",
  overview: `packages { name files lines folder imports } externalPackages mostCalled
    providers { repo edges packages } consumers { repo edges }`,
  hotspots: "mined spots { path churn fanIn score owners { name email } } clusters { files size commits }",
  deadCode: `counts items { symbol { ${SYMBOL} } reason }`,
  services: `routeTotal requestTotal clients
    routes { route { name repo } handler { ${SYMBOL} } requests }
    requests { source { ${SYMBOL} } method base path route { name repo } via }`,
  explain: `${ENVELOPE} context { symbol { ${SYMBOL} } callers { ${NEIGHBOURS} } callees { ${NEIGHBOURS} } }
    history { sha at name author message } owners { owners { name email share commits last } codeowners }
    partners { name count symbol { ${SYMBOL} } } filePartners { name count }`,
  source: "lines startLine cut",
  team: `claims lessons { at agent about text }
    sessions { session { id agent task startedAt lastSeen } touched
      claims { repo path intent since expiresAt } recent { repo path kind at } }`,
};
const aliased = (selection) => selection.replace(/\b[a-z]+[A-Z]\w*\b/g, (name) => `${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}: ${name}`);
const selected = (field) => `{ ${aliased(SELECTIONS[field])} }`;

// The same query, but a field the token's scopes do not reach answers null instead of failing.
async function optional(query, variables = {}) {
  try {
    return await gql(query, variables);
  } catch (error) {
    if (error.kind === "forbidden") return null;
    throw error;
  }
}

let pendingSignIn = null;

function signIn(message) {
  if (pendingSignIn) return pendingSignIn;
  const dialog = document.getElementById("login");
  const form = document.getElementById("login-form");
  const input = document.getElementById("token");
  document.getElementById("login-error").textContent = message;
  pendingSignIn = new Promise((resolve) => {
    form.addEventListener("submit", () => {
      token = input.value.trim();
      sessionStorage.setItem(TOKEN_KEY, token);
      input.value = "";
      pendingSignIn = null;
      resolve();
    }, { once: true });
  });
  if (!dialog.open) dialog.showModal();
  input.focus();
  return pendingSignIn;
}

// ---------------------------------------------------------------- freshness

function age(stamp) {
  if (!stamp) return "never";
  const seconds = (Date.now() - Date.parse(stamp)) / 1000;
  if (Number.isNaN(seconds)) return stamp;
  if (seconds < 90) return "just now";
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 129600) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} days ago`;
}

// A badge that says how far the graph is behind the code: fresh, behind N commits, queued,
// failing, indexed from a dirty work tree, or unknown (not tracked).
function freshness(repo, tracked) {
  if (tracked && tracked.last_error) return badge("error", "failing", tracked.last_error);
  if (tracked && tracked.lag > 0) return badge("behind", `behind ${tracked.lag}`, `${tracked.lag} commits not indexed yet`);
  if (tracked && tracked.queue_depth > 0) return badge("behind", "queued", `${tracked.queue_depth} pushes waiting`);
  if (repo.dirty) return badge("dirty", "uncommitted", "indexed from a work tree with uncommitted changes");
  if (tracked && tracked.lag === 0) return badge("fresh", "fresh", "the indexed commit is the branch head");
  return badge("local", "indexed", `indexed ${age(repo.indexed_at)}`);
}

const badge = (kind, text, title) => h("span", { className: `badge ${kind}`, title }, text);

function envelopeBadges(envelope) {
  if (!envelope) return [];
  return envelope.repos.map((r) =>
    h("span", { className: "envelope" }, freshness(r, null), ` ${r.name} at `, h("code", {}, (r.indexed_sha || "work tree").slice(0, 10)), ` (${age(r.indexed_at)})`),
  );
}

// ---------------------------------------------------------------- pages

async function repositoriesPage() {
  const [data, tracked] = await Promise.all([
    gql("{ repositories { name indexedSha indexedAt } }"),
    optional(`{ trackedRepositories ${selected("trackedRepositories")} }`),
  ]);
  const byName = new Map(((tracked && tracked.trackedRepositories) || []).map((t) => [t.name, t]));
  const stats = await Promise.all(
    data.repositories.map((r) => gql(`query($r: String!) { stats(repo: $r) ${selected("stats")} }`, { r: r.name }).then((d) => d.stats)),
  );
  const rows = data.repositories.map((r, i) => {
    const s = stats[i];
    const t = byName.get(r.name);
    const dirty = s.envelope.repos.find((x) => x.name === r.name)?.dirty;
    const languages = Object.entries(s.languages).map(([name, v]) => `${name} ${number(v.files)}`).join(", ");
    const symbols = Object.values(s.symbols).reduce((a, b) => a + b, 0);
    return [
      link(repoHref(r.name), r.name),
      freshness({ dirty, indexed_at: r.indexedAt }, t),
      t ? t.branch : "—",
      h("code", {}, (r.indexedSha || "work tree").slice(0, 10)),
      t ? h("code", {}, (t.head_sha || "—").slice(0, 10)) : "—",
      t ? number(t.lag) : "—",
      t ? number(t.queue_depth) : "—",
      t && t.last_job_at ? `${t.last_job_seconds.toFixed(1)} s, ${age(t.last_job_at)}` : "—",
      t && t.last_error ? h("span", { className: "error" }, t.last_error) : "—",
      languages,
      number(s.files),
      number(symbols),
      age(r.indexedAt),
    ];
  });
  return [
    h("h1", {}, "Repositories"),
    tracked ? null : h("p", { className: "note" }, "Tracking (branch, head, lag, queue, errors) needs a token with the admin scope."),
    table(
      `${data.repositories.length} repositories`,
      ["Repository", "Freshness", "Branch", "Indexed", "Head", "Lag", "Queue", "Last job", "Last error", "Languages", "Files", "Symbols", "Indexed at"],
      rows,
      "nothing is indexed yet (cartograph index PATH)",
    ),
  ];
}

async function repositoryPage(name) {
  const ask = (field, more = "") => gql(`query($r: String!) { ${field}(repo: $r${more}) ${selected(field)} }`, { r: name }).then((d) => d[field]);
  const stats = await ask("stats");
  const overview = ask("overview", ", first: 15");
  const hotspots = ask("hotspots", ", first: 15");
  const reviews = gql("{ repositories { name reviews(first: 10) { number title verdict computedAt } } }")
    .then((d) => d.repositories.find((r) => r.name === name)?.reviews || []);
  const symbols = Object.values(stats.symbols).reduce((a, b) => a + b, 0);
  const lines = Object.values(stats.languages).reduce((a, l) => a + l.lines, 0);
  return [
    h("h1", {}, name),
    h("p", { className: "summary" }, envelopeBadges(stats.envelope), " · ",
      `${number(stats.files)} files, ${number(symbols)} symbols, ${number(lines)} lines, `,
      `${Math.round(stats.unresolved_rate * 100)} % of calls unresolved`),
    later("Changes", reviews.then((found) => changesSection(name, found))),
    later("Packages", overview.then(packagesSection)),
    later("Hot spots", hotspots.then((found) => section("Hot spots",
      found.mined ? null : h("p", { className: "note" }, "No history mined yet: churn is unknown."),
      table("Files that change most and are called most (churn × fan-in)", ["File", "Commits", "Calls in", "Score", "Owners"],
        found.spots.map((s) => [h("code", {}, s.path), number(s.churn), number(s.fan_in), number(s.score), s.owners.map((o) => o.name || o.email).join(", ") || "—"]))))),
    later("Co-change clusters", hotspots.then((found) => section("Co-change clusters",
      found.clusters.length
        ? capped(found.clusters, (c) => [h("strong", {}, `${c.size} files`), ` (up to ${c.commits} commits together): `, c.files.join(", "), c.size > c.files.length ? ` and ${c.size - c.files.length} more` : ""])
        : h("p", { className: "empty" }, "No files changed together often enough.")))),
    later("Dead code", ask("deadCode", ", first: 100").then((found) => section("Dead code",
      h("p", {}, Object.entries(found.counts).map(([verdict, n]) => `${verdict}: ${number(n)}`).join(" · ")),
      capped(found.items, (item) => [symbolLink(item.symbol), ` — ${item.reason}`])))),
    later("Service map", ask("services", ", first: 50").then((found) => servicesSection(name, found))),
    later("Dependencies", overview.then((found) => section("Dependencies",
      h("h3", {}, "External packages it uses"),
      found.external_packages.length ? capped(found.external_packages, ([pkg, n]) => `${pkg} (${number(n)} imports)`) : h("p", { className: "empty" }, "none"),
      h("h3", {}, "Repositories it uses"),
      found.providers.length ? capped(found.providers, (l) => [link(repoHref(l.repo), l.repo), ` — ${number(l.edges)} edges through ${l.packages.join(", ")}`]) : h("p", { className: "empty" }, "none"),
      h("h3", {}, "Repositories that use it"),
      found.consumers.length ? capped(found.consumers, (l) => [link(repoHref(l.repo), l.repo), ` — ${number(l.edges)} edges`]) : h("p", { className: "empty" }, "none")))),
    later("Most called", overview.then((found) => section("Most called",
      capped(found.most_called, ([s, n]) => [symbolLink(s), ` — ${number(n)} calls`])))),
  ];
}

// What a change reaches: the pull requests with a stored report, and two refs to compare.
function changesSection(name, reviews) {
  const form = h("form", { className: "refs", onsubmit: (event) => {
    event.preventDefault();
    const given = new FormData(event.target);
    const query = new URLSearchParams({ base: given.get("base"), head: given.get("head") });
    location.hash = `#/change/${encodeURIComponent(name)}?${query}`;
  } },
  h("label", { for: "base-ref" }, "Base"), h("input", { id: "base-ref", name: "base", value: "HEAD~1", required: true }),
  h("label", { for: "head-ref" }, "Head"), h("input", { id: "head-ref", name: "head", value: "HEAD", required: true }),
  h("button", { type: "submit" }, "Show its impact"));
  // a pasted diff is too long for an address: this tab keeps it, and the address says so
  const pasted = h("form", { className: "patch", onsubmit: (event) => {
    event.preventDefault();
    sessionStorage.setItem(PATCH_KEY, new FormData(event.target).get("patch"));
    location.hash = `#/change/${encodeURIComponent(name)}?patch=pasted`;
  } },
  h("label", { for: "patch-text" }, "Or paste a diff (against the indexed commit)"),
  h("textarea", { id: "patch-text", name: "patch", rows: 6, required: true, spellcheck: "false" }),
  h("button", { type: "submit" }, "Show the diff's impact"));
  return section("Changes",
    reviews.length
      ? capped(reviews, (r) => [link(`#/change/${encodeURIComponent(name)}/${r.number}`, `#${r.number} ${r.title}`), " ", badge(r.verdict === "breaking" ? "error" : "local", r.verdict || "pending", ""), ` ${age(r.computedAt)}`])
      : h("p", { className: "empty" }, "No pull request reports yet (they come with a forge: cartograph repo forge)."),
    form, pasted);
}

// Packages and their imports, one level at a time: a package's imports open on demand.
function packagesSection(overview) {
  const rows = overview.packages.map((p) =>
    h("details", {},
      h("summary", {}, h("code", {}, p.name), ` — ${number(p.files)} files, ${number(p.lines)} lines, imports ${p.imports.length} packages`),
      p.imports.length ? h("ul", {}, p.imports.map(([other, n]) => h("li", {}, h("code", {}, other), ` (${number(n)} file imports)`))) : h("p", { className: "empty" }, "imports no other package"),
    ),
  );
  const cap = 15;
  const holder = h("div", { className: "packages" }, rows.slice(0, cap));
  const more = rows.length > cap
    ? h("button", { type: "button", onclick: () => { more.remove(); append(holder, rows.slice(cap)); } }, `show all ${rows.length} packages`)
    : null;
  return section("Packages", holder, more);
}

// The service map: the repositories whose requests reach this one's routes (left), the
// repository, and where its own requests go (right: the repositories serving them, or the base
// URLs no indexed route serves); then the routes it serves (with the number of requests of
// indexed code reaching each) and the requests it sends.
function servicesSection(name, services) {
  if (!services.route_total && !services.request_total) {
    return section("Service map", h("p", { className: "empty" }, "No HTTP routes or requests found."));
  }
  const reaches = new Map();
  for (const r of services.requests) {
    const target = r.route ? r.route.repo : `unmatched: ${r.base || "relative"}`;
    reaches.set(target, (reaches.get(target) || 0) + 1);
  }
  const clients = Object.entries(services.clients || {}).filter(([repo]) => repo !== name);
  const width = 860;
  const rowHeight = 28;
  const shownClients = clients.slice(0, GRAPH_COLUMN_CAP);
  const targets = [...reaches.entries()].slice(0, GRAPH_COLUMN_CAP);
  const height = Math.max(2, targets.length, shownClients.length) * rowHeight + 20;
  const middle = height / 2;
  const column = (entries, x, edgeFrom, edgeTo) => entries.map(([target, n], i) => {
    const y = 10 + i * rowHeight;
    const missing = target.startsWith("unmatched");
    const [x1, y1, x2, y2] = edgeFrom === "node" ? [x + 200, y + 12, edgeTo, middle] : [edgeFrom, middle, x, y + 12];
    return [
      svg("line", { x1, y1, x2, y2, className: "edge" }),
      svg("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 3, className: "label" }, `${n}`),
      node(x, y, 200, target, missing ? null : repoHref(target), missing ? "missing" : ""),
    ];
  });
  const map = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "group", "aria-label": `Service map of ${name}`, className: "graph" },
    svg("title", {}, `${clients.length} ${clients.length === 1 ? "repository calls" : "repositories call"} ${name}, which serves ${services.route_total} routes and sends ${services.request_total} requests`),
    column(shownClients, 20, "node", 330),
    node(330, middle - 12, 200, `${name}: ${services.route_total} routes`, null, "focus"),
    column(targets, 640, 530),
  );
  const more = clients.length > shownClients.length
    ? h("p", {}, `and ${clients.length - shownClients.length} more repositories calling it`)
    : null;
  return section("Service map", map, more,
    table(`Routes it serves (${services.route_total})`, ["Route", "Handler", "Requests reaching it"],
      services.routes.map((r) => [h("code", {}, r.route.name), r.handler ? symbolLink(r.handler) : "— (from a document)", number(r.requests)])),
    table(`Requests it sends (${services.request_total})`, ["From", "Request", "Reaches"],
      services.requests.map((r) => [r.source ? symbolLink(r.source) : "—", h("code", {}, `${r.method} ${r.base}${r.path}`), r.route ? [link(repoHref(r.route.repo), r.route.repo), " ", h("code", {}, r.route.name), ` (${r.via})`] : "no indexed route"])));
}

// A label that fits `room` characters: a qualified name keeps its last parts.
function fit(text, room) {
  if (text.length <= room) return text;
  const parts = text.split(".");
  let kept = parts.pop();
  while (parts.length && kept.length + parts[parts.length - 1].length + 2 <= room) kept = `${parts.pop()}.${kept}`;
  return kept.length + 1 <= room ? `…${kept}` : `${kept.slice(0, room - 1)}…`;
}

function node(x, y, w, text, href, kind = "") {
  const box = svg("g", { className: `node ${kind}` },
    svg("rect", { x, y, width: w, height: 24, rx: 4 }),
    svg("text", { x: x + 8, y: y + 16 }, fit(text, Math.floor((w - 14) / 7))),
    svg("title", {}, text));
  return href ? svg("a", { href }, box) : box;
}

async function symbolPage(id) {
  const data = await gql(
    `query($n: String!) { explain(name: $n) ${selected("explain")} source(name: $n) ${selected("source")} }`,
    { n: id },
  );
  const { explain, source } = data;
  const ctx = explain.context;
  const s = ctx.symbol;
  const neighbours = (page, title) => h("div", { className: "column" },
    h("h2", {}, `${title} (${page.total})`),
    page.items.length
      ? h("ul", {}, page.items.map((n) => h("li", {}, symbolLink(n.symbol),
          h("span", { className: "meta" }, ` line ${n.lines.join(", ")} · ${n.through ? `through ${n.through}` : `via ${n.via}`}${n.crosses ? ` · in ${n.symbol.repo}` : ""}`))))
      : h("p", { className: "empty" }, "none"),
    page.next_offset !== null ? h("p", { className: "note" }, `${page.total - page.items.length} more: cartograph ${title.toLowerCase()} ${s.id}`) : null);
  const otherRepos = ctx.callers.items.filter((n) => n.crosses);
  return [
    h("h1", {}, s.qualname),
    h("p", { className: "summary" }, envelopeBadges(explain.envelope), " · ", h("code", {}, `${s.kind} in ${s.repo}:${s.path}:${s.start_line}`),
      " · ", link(repoHref(s.repo), `repository ${s.repo}`)),
    s.signature ? h("pre", { className: "signature" }, s.signature) : null,
    h("div", { className: "three" },
      neighbours(ctx.callers, "Callers"),
      h("div", { className: "column source" }, h("h2", {}, "Source"),
        h("pre", { tabindex: "0", "aria-label": `Source of ${s.qualname}` }, source.lines.map((line, i) => h("span", { className: "line" }, h("span", { className: "no", "aria-hidden": "true" }, String(source.start_line + i)), line, "\n"))),
        source.cut ? h("p", { className: "note" }, "Longer: open the file.") : null),
      neighbours(ctx.callees, "Callees")),
    later("Call graph", callGraph(s)),
    section("Callers in other repositories",
      otherRepos.length ? h("ul", {}, otherRepos.map((n) => h("li", {}, link(repoHref(n.symbol.repo), n.symbol.repo), " ", symbolLink(n.symbol)))) : h("p", { className: "empty" }, "none")),
    section("History", table("Latest commits", ["Commit", "When", "Who", "Message"],
      explain.history.map((t) => [h("code", {}, t.sha.slice(0, 10)), t.at.slice(0, 10), t.name || t.author, t.message.split("\n")[0]]), "no history mined")),
    section("Owners", table("Who knows it", ["Person", "Share", "Commits", "Last"],
      explain.owners.owners.map((o) => [o.name || o.email, `${Math.round(o.share * 100)} %`, number(o.commits), o.last.slice(0, 10)]), "unknown"),
      explain.owners.codeowners.length ? h("p", {}, `CODEOWNERS: ${explain.owners.codeowners.join(", ")}`) : null),
    section("Changes with it",
      table("Symbols", ["Symbol", "Commits together"], explain.partners.map((p) => [p.symbol ? symbolLink(p.symbol) : p.name, number(p.count)]), "none"),
      table("Files", ["File", "Commits together"], explain.file_partners.map((p) => [h("code", {}, p.name), number(p.count)]), "none")),
  ];
}

// N hops of callers (left) and callees (right) around the symbol, hop by hop, a capped number
// of nodes per hop with "show more"; a click on a node focuses the graph on it.
async function callGraph(symbol, depth = 2, cap = GRAPH_COLUMN_CAP) {
  const query = `query($n: String!, $d: Int!) {
    up: trace(name: $n, direction: IN, depth: $d, fanout: 20) { steps { depth parentId symbol { id qualname } } truncated }
    down: trace(name: $n, direction: OUT, depth: $d, fanout: 20) { steps { depth parentId symbol { id qualname } } truncated }
  }`;
  const data = await gql(query, { n: symbol.id, d: depth });
  const columns = [];
  const byHop = (steps) => {
    const hops = [];
    const seen = new Set([symbol.id]);
    for (const step of steps) {
      if (seen.has(step.symbol.id)) continue;
      seen.add(step.symbol.id);
      (hops[step.depth - 1] ||= []).push(step.symbol);
    }
    return hops;
  };
  const up = byHop(data.up.steps);
  const down = byHop(data.down.steps);
  for (let i = up.length - 1; i >= 0; i--) columns.push({ hop: -(i + 1), nodes: up[i] });
  columns.push({ hop: 0, nodes: [{ id: symbol.id, qualname: symbol.qualname }] });
  down.forEach((nodes, i) => columns.push({ hop: i + 1, nodes }));
  const columnWidth = 190;
  const rowHeight = 30;
  const shown = columns.map((c) => c.nodes.slice(0, cap));
  const rows = Math.max(1, ...shown.map((c) => c.length + (c.length < columns[shown.indexOf(c)].nodes.length ? 1 : 0)));
  const width = columns.length * columnWidth;
  const height = rows * rowHeight + 10;
  const position = new Map();
  const items = [];
  columns.forEach((column, ci) => {
    shown[ci].forEach((n, ri) => {
      position.set(n.id, [ci * columnWidth + 5, 5 + ri * rowHeight]);
      items.push(node(ci * columnWidth + 5, 5 + ri * rowHeight, columnWidth - 30, n.qualname, n.id === symbol.id ? null : symbolHref(n.id), n.id === symbol.id ? "focus" : ""));
    });
    const hidden = column.nodes.length - shown[ci].length;
    if (hidden > 0) {
      items.push(svg("text", { x: ci * columnWidth + 10, y: 5 + shown[ci].length * rowHeight + 16, className: "label" }, `+${hidden} more`));
    }
  });
  // an edge from each shown step to the step it was reached from (callers point right, toward
  // what they call; callees hang to the right of their caller)
  const edges = [];
  const right = columnWidth - 30;
  for (const [steps, inward] of [[data.up.steps, true], [data.down.steps, false]]) {
    for (const step of steps) {
      const from = position.get(step.symbol.id);
      const to = position.get(step.parentId);
      if (!from || !to || step.symbol.id === symbol.id) continue;
      const [x1, y1, x2, y2] = inward
        ? [from[0] + right, from[1] + 12, to[0], to[1] + 12]
        : [to[0] + right, to[1] + 12, from[0], from[1] + 12];
      edges.push(svg("line", { x1, y1, x2, y2, className: "edge", "marker-end": "url(#arrow)" }));
    }
  }
  const arrow = svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" }, svg("path", { d: "M 0 0 L 10 5 L 0 10 z", className: "arrow" })));
  const graph = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "group", "aria-label": `Call graph of ${symbol.qualname}, ${depth} hops each way`, className: "graph" },
    svg("title", {}, `Callers (left) and callees (right) of ${symbol.qualname}`), arrow, edges, items);
  const holder = section("Call graph", h("p", { className: "meta" }, `${depth} hops each way, at most ${cap} symbols per hop. Click a symbol to focus on it.`), h("div", { className: "scroll" }, graph));
  const truncated = columns.some((c, i) => c.nodes.length > shown[i].length) || data.up.truncated || data.down.truncated;
  if (truncated || depth < 4) {
    const more = h("button", { type: "button", onclick: async () => {
      holder.replaceWith(await callGraph(symbol, Math.min(depth + 1, 4), cap * 2));
    } }, "show more");
    holder.append(more);
  }
  return holder;
}

// Typed GraphQL answers spell fields in camelCase; a stored report is impact's JSON (snake_case).
const snake = (value) => Array.isArray(value) ? value.map(snake)
  : value && typeof value === "object" ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(v)]))
  : value;

// A pull request without a report: the error stored when its report could not be computed, and
// what brings a new one; or that it is being computed.
function unreported(repo, pull, found) {
  const title = h("h1", {}, `Pull request #${pull} of ${repo}`);
  if (!found.error) {
    return [title, h("p", { role: "status" }, "Its impact report is being computed: reload this page in a moment.")];
  }
  return [
    title,
    h("p", { role: "alert", className: "error" }, `Its impact report could not be computed: ${found.error}`),
    h("p", {}, "A new report is computed when the pull request's head changes (a push to its branch): fix what the error names, then push."),
  ];
}

async function changePage(repo, pull, params) {
  const fields = `repo base head verdict summary notes
    changed { id qualname kind path line change breaking why }
    willBreak { caller { id qualname path repo startLine } target why lines crosses }
    mayBeAffected { symbol { id qualname path repo startLine } depth via confidence crosses }
    affectedTotal tests { repo path qualname node runner confidence } testsTotal
    testCommands { repo runner command tests }
    owners { repo area why owners codeowners }
    missing { repo name level with_ count score }`;
  let report;
  if (pull) {
    const data = await gql("query($r: String!, $n: Int!) { pullRequestReport(repo: $r, number: $n) { number title verdict error report } }", { r: repo, n: Number(pull) });
    const found = data.pullRequestReport;
    if (!found.report) return unreported(repo, pull, found);
    report = found.report;
    report.title = found.title;
  } else if (params.get("patch")) {
    const patch = sessionStorage.getItem(PATCH_KEY);
    if (!patch) throw new GraphError("the pasted diff is kept only in the tab it was pasted in: paste it again on the repository's page", "not_found");
    const data = await gql(`query($r: String!, $p: String) { impact(repo: $r, patch: $p) { ${fields} } }`, { r: repo, p: patch });
    report = snake(data.impact);
  } else {
    const data = await gql(`query($r: String!, $b: String, $h: String) { impact(repo: $r, base: $b, head: $h) { ${fields} } }`,
      { r: repo, b: params.get("base"), h: params.get("head") });
    report = snake(data.impact);
  }
  const overview = gql(`query($r: String!) { overview(repo: $r, first: 15) ${selected("overview")} }`, { r: repo }).then((d) => d.overview);
  // what lights the treemap: the files the change touches, the files of what it reaches (a
  // caller it breaks is one hop away) and the files of the tests to run
  const reached = [...report.will_break.map((b) => [b.caller.path, 1]), ...report.may_be_affected.map((a) => [a.symbol.path, a.depth])];
  const lights = { changed: report.changed.map((c) => c.path), reached, tests: report.tests.filter((t) => t.repo === report.repo).map((t) => t.path) };
  const person = (x) => (Array.isArray(x) ? x[1] || x[0] : x);
  return [
    h("h1", {}, pull ? `Pull request #${pull} of ${repo}` : params.get("patch") ? `A pasted diff against ${repo}` : `Change ${params.get("base") || ""}…${params.get("head") || ""} of ${repo}`),
    report.title ? h("p", {}, report.title) : null,
    h("p", { className: "verdict" }, badge(report.verdict === "breaking" ? "error" : "fresh", report.verdict, ""), " ", report.summary.join(" · ")),
    later("Where it lands", overview.then((found) => section("Where it lands", treemap(found.packages, lights),
      h("p", { className: "legend" }, badge("changed", "changed", ""), " ", badge("reached", "reached", ""), " ", badge("tests", "tests to run", ""), " ", badge("local", "untouched", ""))))),
    section("Will break", table("Callers the change breaks", ["Caller", "Of", "Why", "Lines"],
      report.will_break.map((b) => [symbolLink(b.caller), h("code", {}, b.target), b.why, b.lines.join(", ")]), "nothing")),
    section("Changed", table("Symbols it changes", ["Symbol", "Change", "Why"],
      report.changed.map((c) => [c.id ? symbolLink({ ...c, start_line: c.line }) : h("code", {}, c.qualname), c.breaking ? h("strong", {}, c.change) : c.change, c.why]))),
    section("Tests to run", table(`${report.tests_total} tests`, ["Test", "Runner", "Confidence"],
      report.tests.map((t) => [h("code", {}, t.node || t.qualname), t.runner, `${Math.round(t.confidence * 100)} %`]), "none found"),
      report.test_commands.map((c) => h("pre", {}, c.command))),
    section("Owners to ask", table("Owners", ["Area", "Owners", "Why"],
      report.owners.map((o) => [h("code", {}, o.area), [...o.owners.map(person), ...o.codeowners].join(", "), o.why]), "unknown")),
    section("Usually changes with it, missing here", table("Missing co-changes", ["Name", "With", "Commits together"],
      report.missing.map((m) => [h("code", {}, m.name), h("code", {}, m.with_), number(m.count)]), "none")),
    section("May be affected", table(`${report.affected_total} symbols`, ["Symbol", "Hops", "Via"],
      report.may_be_affected.map((a) => [symbolLink(a.symbol), a.depth, a.via]))),
  ];
}

// The width a text takes in the page's font at `size` pixels (a canvas measures it without
// laying anything out).
const measureText = (() => {
  let context = null;
  return (text, size) => {
    context ||= document.createElement("canvas").getContext("2d");
    context.font = `${size}px ${getComputedStyle(document.documentElement).fontFamily}`;
    return context.measureText(text).width;
  };
})();

// A package's label within `room` pixels: the whole name, else its last parts (`…routing.map`),
// else the start of its last part (`excepti…`); never a name cut after its first dot. The
// cell's title and accessible name always hold the whole name.
function fitPackage(name, room, size) {
  if (measureText(name, size) <= room) return name;
  const parts = name.split(/(?<=[./])/);
  let kept = "";
  while (parts.length > 1 && measureText(`…${parts[parts.length - 1]}${kept}`, size) <= room) kept = parts.pop() + kept;
  if (kept) return `…${kept}`;
  const last = parts[parts.length - 1].replace(/^[./]+/, "");
  let n = last.length - 1;
  while (n > 1 && measureText(`${last.slice(0, n)}…`, size) > room) n--;
  return n > 1 ? `${last.slice(0, n)}…` : "";
}

// The repository as a treemap of its packages (area: files). A package is lit by what the change
// does to its files: "changed" (a file of it changes), "tests" (it holds tests to run),
// "reached" (the change reaches its symbols; the title says how near), else untouched. A file
// belongs to the shown package whose folder is the longest one holding it (`folder`, from the
// overview), so `src/werkzeug/utils.py` lights `werkzeug.utils`.
function treemap(packages, lights) {
  const width = 900;
  const height = 360;
  const fontSize = 12; // svg.treemap's, in the drawing's units
  const cells = packages.filter((p) => p.files > 0).sort((a, b) => b.files - a.files).slice(0, 120);
  const holder = (path) => {
    let best = null;
    for (const p of cells) {
      const folder = p.folder || p.name;
      if ((path === folder || path.startsWith(`${folder}/`)) && (!best || folder.length > (best.folder || best.name).length)) best = p;
    }
    return best?.name;
  };
  const state = new Map();
  const hops = new Map();
  const tally = (map, name) => map.set(name, (map.get(name) || 0) + 1);
  const changedFiles = new Set(lights.changed);
  const reachedCount = new Map();
  for (const [path, depth] of lights.reached) {
    const name = holder(path);
    if (name === undefined) continue;
    state.set(name, "reached");
    tally(reachedCount, name);
    hops.set(name, Math.min(hops.get(name) ?? depth, depth));
  }
  const testCount = new Map();
  for (const path of lights.tests) {
    const name = holder(path);
    if (name === undefined) continue;
    state.set(name, "tests");
    tally(testCount, name);
  }
  for (const path of changedFiles) {
    const name = holder(path);
    if (name !== undefined) state.set(name, "changed");
  }
  const describe = (pkg) => {
    const what = [pkg.files === 1 ? "1 file" : `${pkg.files} files`];
    const kind = state.get(pkg.name);
    if (kind === "changed") what.push("changed");
    const several = (n, one, many) => `${n} ${n === 1 ? one : many}`;
    if (testCount.has(pkg.name)) what.push(`${several(testCount.get(pkg.name), "test", "tests")} to run`);
    if (reachedCount.has(pkg.name)) what.push(`reached: ${several(reachedCount.get(pkg.name), "symbol", "symbols")}, ${several(hops.get(pkg.name), "hop", "hops")} away`);
    if (!kind) what.push("untouched");
    return `${pkg.name}: ${what.join(", ")}`;
  };
  const total = cells.reduce((a, p) => a + p.files, 0) || 1;
  const rects = [];
  // slice-and-dice in rows: simple, stable and readable at a glance
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  for (const pkg of cells) {
    const area = (pkg.files / total) * width * height;
    // at least as wide as the package's last two parts (`…routing.exceptions`; the last one of a
    // two-part name): every cell says what it is
    const parts = pkg.name.split(/(?<=[./])/);
    const tail = parts.length > 2 ? parts.slice(-2).join("") : parts[parts.length - 1];
    const readable = measureText(`…${tail}`, fontSize) + 14;
    const w = Math.min(width, Math.max(30, readable, Math.sqrt(area * 2)));
    const hgt = Math.max(18, area / w);
    if (x + w > width) {
      x = 0;
      y += rowHeight;
      rowHeight = 0;
    }
    const kind = state.get(pkg.name) || "";
    const label = hgt > 16 ? fitPackage(pkg.name, w - 12, fontSize) : "";
    const text = describe(pkg);
    // a cell of its own coordinates clips what it draws: no label runs under its neighbour
    rects.push(svg("svg", { x, y, width: w - 2, height: hgt - 2, className: `cell ${kind}`, role: "img", "aria-label": text, "data-package": pkg.name, "data-state": kind || "untouched" },
      svg("title", {}, text),
      svg("rect", { x: 0, y: 0, width: w - 2, height: hgt - 2 }),
      label ? svg("text", { x: 4, y: 13 }, label) : null));
    x += w;
    rowHeight = Math.max(rowHeight, hgt);
  }
  const used = Math.max(height, y + rowHeight);
  const count = (kind) => [...state.values()].filter((k) => k === kind).length;
  return svg("svg", { viewBox: `0 0 ${width} ${used}`, role: "group", "aria-label": `Packages: ${count("changed")} changed, ${count("reached")} reached, ${count("tests")} with tests to run, of ${cells.length} shown`, className: "treemap" }, rects);
}

async function teamPage() {
  const data = await gql(`{ team ${selected("team")} }`);
  const team = data.team;
  return [
    h("h1", {}, "Team"),
    h("p", { className: "summary" }, `${team.sessions.length} live sessions · ${team.claims} claimed files`),
    team.sessions.length
      ? team.sessions.map((w) => section(`Session ${w.session.id}: ${w.session.agent}`,
          h("p", {}, `Task: ${w.session.task} · started ${age(w.session.started_at)} · last seen ${age(w.session.last_seen)}`),
          table("Claims", ["File", "Intent", "Since", "Until"],
            w.claims.map((c) => [h("code", {}, `${c.repo}:${c.path}`), c.intent, age(c.since), c.expires_at]), "none"),
          table(`Latest reads and edits (${w.touched} in all)`, ["File", "Kind", "When"],
            w.recent.map((t) => [h("code", {}, `${t.repo}:${t.path}`), t.kind, age(t.at)]), "none")))
      : h("p", { className: "empty" }, "No agent session is at work."),
    section("Lessons", table("Newest lessons", ["When", "Agent", "About", "Lesson"],
      team.lessons.map((l) => [age(l.at), l.agent, l.about.join(", ") || "—", l.text]), "none yet")),
  ];
}

// ---------------------------------------------------------------- search

const searchBox = document.getElementById("search-box");
const results = document.getElementById("search-results");
let searchTimer = null;
let repositoryNames = null;

async function search(text) {
  if (!text.trim()) {
    results.hidden = true;
    return;
  }
  repositoryNames ||= (await gql("{ repositories { name } }")).repositories.map((r) => r.name);
  const data = await gql("query($q: String!) { search(query: $q, first: 12) { nodes { id qualname kind path repo } } }", { q: text });
  if (searchBox.value !== text) return; // typed on since
  const repos = repositoryNames.filter((n) => n.toLowerCase().includes(text.toLowerCase())).slice(0, 5);
  const options = [
    ...repos.map((n) => ({ href: repoHref(n), label: n, meta: "repository" })),
    ...data.search.nodes.map((s) => ({ href: symbolHref(s.id), label: s.kind === "module" ? s.path : s.qualname, meta: `${s.kind === "module" ? "file" : s.kind} in ${s.repo}` })),
  ];
  results.replaceChildren(...options.map((o, i) =>
    h("li", { role: "option", id: `result-${i}`, "aria-selected": i === 0 ? "true" : "false" },
      link(o.href, o.label, { tabindex: "-1" }), h("span", { className: "meta" }, ` ${o.meta}`))));
  if (!options.length) results.replaceChildren(h("li", { className: "empty" }, "nothing found"));
  results.hidden = false;
}

function moveSelection(step) {
  const options = [...results.querySelectorAll("[role=option]")];
  if (!options.length) return;
  const at = options.findIndex((o) => o.getAttribute("aria-selected") === "true");
  const next = (at + step + options.length) % options.length;
  options.forEach((o, i) => o.setAttribute("aria-selected", i === next ? "true" : "false"));
  searchBox.setAttribute("aria-activedescendant", options[next].id);
}

searchBox.addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => search(searchBox.value).catch(showError), 150);
});
searchBox.addEventListener("keydown", (event) => {
  if (event.key === "ArrowDown") { moveSelection(1); event.preventDefault(); }
  if (event.key === "ArrowUp") { moveSelection(-1); event.preventDefault(); }
  if (event.key === "Escape") { results.hidden = true; }
});
document.getElementById("search").addEventListener("submit", (event) => {
  event.preventDefault();
  const chosen = results.querySelector("[aria-selected=true] a");
  if (chosen) {
    location.hash = chosen.getAttribute("href");
    results.hidden = true;
    searchBox.blur();
  }
});
results.addEventListener("click", () => { results.hidden = true; });
document.addEventListener("keydown", (event) => {
  const typing = ["INPUT", "TEXTAREA"].includes(document.activeElement.tagName);
  if (event.key === "/" && !typing) {
    event.preventDefault();
    searchBox.focus();
  }
});

// ---------------------------------------------------------------- routing

const ROUTES = [
  [/^#\/repos$/, "repositories", () => repositoriesPage()],
  [/^#\/repo\/([^/?]+)$/, "repository", (m) => repositoryPage(decodeURIComponent(m[1]))],
  [/^#\/symbol\/(.+)$/, "symbol", (m) => symbolPage(decodeURIComponent(m[1]))],
  [/^#\/change\/([^/?]+)\/(\d+)$/, "change", (m) => changePage(decodeURIComponent(m[1]), m[2], new URLSearchParams())],
  [/^#\/change\/([^/?]+)\?(.*)$/, "change", (m) => changePage(decodeURIComponent(m[1]), null, new URLSearchParams(m[2]))],
  [/^#\/team$/, "team", () => teamPage()],
];

function showError(error) {
  view.replaceChildren(h("h1", {}, "Something went wrong"), h("p", { role: "alert", className: "error" }, error.message));
  document.body.dataset.state = "error";
}

let rendering = 0;

async function route() {
  const hash = location.hash || "#/repos";
  const found = ROUTES.map(([pattern, name, page]) => [hash.match(pattern), name, page]).find(([m]) => m);
  const turn = ++rendering;
  document.body.dataset.state = "loading";
  results.hidden = true;
  if (!found) {
    view.replaceChildren(h("h1", {}, "Not found"), h("p", {}, `No page at ${hash}. `, link("#/repos", "Repositories")));
    document.body.dataset.state = "ready";
    return;
  }
  const [match, name, page] = found;
  document.body.dataset.page = name;
  try {
    waiting = [];
    const content = await page(match);
    const drawing = waiting;
    if (turn !== rendering) return; // the reader went elsewhere meanwhile
    view.replaceChildren(...[content].flat(Infinity).filter(Boolean));
    document.title = `${view.querySelector("h1")?.textContent || name} · Cartograph`;
    document.querySelectorAll("nav a").forEach((a) => a.setAttribute("aria-current", hash.startsWith(a.getAttribute("href")) ? "page" : "false"));
    document.body.dataset.state = "drawing";
    performance.mark(`first render ${hash}`);
    await Promise.all(drawing);
    if (turn !== rendering) return;
    document.body.dataset.state = "ready";
    performance.mark(`rendered ${hash}`);
  } catch (error) {
    if (turn === rendering) showError(error);
  }
}

window.addEventListener("hashchange", () => {
  route();
  view.focus({ preventScroll: true });
});
route();
