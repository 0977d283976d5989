// The Streamhouse console: every view is a call to the api's own endpoints with the signed-in token; the view
// list follows the token's roles (docs/security.md, "Who may call what"). Text from the api is only ever put into
// the page as text (el() and textContent), never as markup.

const TOKEN_KEY = 'streamhouse.console.token';

/** The views, the roles that may open each (the api checks again on every call), and their renderers. */
const VIEWS = [
  { path: 'live', title: 'Live', roles: ['reviewer', 'ops'], render: renderLive },
  { path: 'payments', title: 'Payments', roles: ['reviewer', 'payments'], render: renderPayment },
  { path: 'parcels', title: 'Parcels', roles: ['reviewer', 'ops'], render: (args, q) => renderEntity('parcel', args, q) },
  { path: 'vehicles', title: 'Vehicles', roles: ['reviewer', 'ops'], render: (args, q) => renderEntity('vehicle', args, q) },
  { path: 'rules', title: 'Rules', roles: ['reviewer', 'rules-admin'], render: renderRules },
  { path: 'sql', title: 'SQL', roles: ['analyst'], render: renderSql },
  { path: 'health', title: 'Health', roles: ['ops'], render: renderHealth },
  { path: 'runs', title: 'Replay & drills', roles: ['ops'], render: renderRuns },
  { path: 'lineage', title: 'Lineage', roles: ['ops'], render: renderLineage },
];

/** The hubs of the generated network (load-tests RoadNetwork), for the bundled map: no tiles, no request out. */
const HUBS = [
  ['hub-ams', 'Amsterdam', 52.3676, 4.9041], ['hub-rtm', 'Rotterdam', 51.9244, 4.4777],
  ['hub-utr', 'Utrecht', 52.0907, 5.1214], ['hub-ein', 'Eindhoven', 51.4416, 5.4697],
  ['hub-anr', 'Antwerpen', 51.2194, 4.4025], ['hub-bru', 'Bruxelles', 50.8503, 4.3517],
  ['hub-lgg', 'Liège', 50.6326, 5.5797], ['hub-cgn', 'Köln', 50.9375, 6.9603],
  ['hub-dus', 'Düsseldorf', 51.2277, 6.7735],
];

// ---------------------------------------------------------------------------------------------------------------
// DOM helpers: every string becomes a text node.

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children.flat()) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

const view = () => document.getElementById('view');

function show(...nodes) {
  const main = view();
  main.replaceChildren(...nodes);
}

function banner(text, kind = '') {
  const b = document.getElementById('banner');
  if (!text) { b.hidden = true; b.textContent = ''; return; }
  b.className = 'banner ' + kind;
  b.textContent = text;
  b.hidden = false;
}

function pill(value) {
  return el('span', { class: 'pill ' + String(value ?? '') }, value ?? '—');
}

function kv(obj, keys) {
  const dl = el('dl', { class: 'kv' });
  for (const k of keys ?? Object.keys(obj ?? {})) {
    const v = obj?.[k];
    if (v === undefined) continue;
    dl.append(el('dt', {}, k), el('dd', {}, v === null ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v)));
  }
  return dl;
}

// A table with a header row; body is its rows, or a tbody of the caller's (which it keeps filling).
function table(headers, body) {
  return el('div', { class: 'scroll' }, el('table', {},
    el('thead', {}, el('tr', {}, headers.map(h => el('th', { scope: 'col' }, h)))),
    body instanceof HTMLTableSectionElement ? body : el('tbody', {}, body)));
}

// ---------------------------------------------------------------------------------------------------------------
// The session: a bearer token kept for this tab only.

function decodeToken(token) {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error('not a JWT (three dot-separated parts)');
  const json = atob(parts[1].replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(parts[1].length / 4) * 4, '='));
  const claims = JSON.parse(decodeURIComponent(escape(json)));
  return { subject: claims.upn ?? claims.sub ?? '?', roles: Array.isArray(claims.groups) ? claims.groups : [],
           expiresAt: typeof claims.exp === 'number' ? new Date(claims.exp * 1000) : null };
}

function session() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) return null;
  try {
    const s = { token, ...decodeToken(token) };
    if (s.expiresAt && s.expiresAt.getTime() <= Date.now()) {
      signOut('Your token expired at ' + s.expiresAt.toISOString() + ': sign in again.');
      return null;
    }
    return s;
  } catch (e) {
    sessionStorage.removeItem(TOKEN_KEY);
    return null;
  }
}

let signInMessage = '';

function signOut(message = '') {
  sessionStorage.removeItem(TOKEN_KEY);
  signInMessage = message;
  stopLive();
  if (location.hash !== '#/signin') location.hash = '#/signin'; else route();
}

function allowedViews(s) {
  return VIEWS.filter(v => v.roles.some(r => s.roles.includes(r)));
}

// ---------------------------------------------------------------------------------------------------------------
// Calls to the api. A problem answer becomes a ProblemError with its title, detail and field errors; a 401 ends the
// session; no answer at all (the api down) shows a banner and is retried with backoff by retrying().

class ProblemError extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? problem?.title ?? ('HTTP ' + status));
    this.status = status;
    this.problem = problem ?? { title: 'HTTP ' + status };
  }
}

class ApiDown extends Error {}

async function api(path, options = {}) {
  const s = session();
  const headers = { Accept: 'application/json, application/problem+json', ...(options.headers ?? {}) };
  if (s) headers.Authorization = 'Bearer ' + s.token;
  let response;
  try {
    response = await fetch(path, { ...options, headers });
  } catch (e) {
    throw new ApiDown('the api did not answer (' + e.message + ')');
  }
  if (response.status === 401) {
    signOut('The api refused your token (expired, revoked or for another stack): sign in again.');
    throw new ProblemError(401, { title: 'Not signed in', detail: 'sign in again' });
  }
  const type = response.headers.get('Content-Type') ?? '';
  const body = type.includes('json') ? await response.text().then(parseJson).catch(() => null) : await response.text();
  if (!response.ok) {
    if (response.status >= 502 && response.status <= 504 && !type.includes('problem')) throw new ApiDown('HTTP ' + response.status);
    throw new ProblemError(response.status, typeof body === 'object' && body ? body : { title: 'HTTP ' + response.status, detail: String(body ?? '') });
  }
  return body;
}

/**
 * JSON.parse, except that an integer too long for a JavaScript number (an Iceberg snapshot id, a BIGINT in an SQL
 * row) becomes its digits as a string instead of a rounded number.
 */
function parseJson(text) {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') { out += text[++i] ?? ''; } else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j])) j++;
      const number = text.slice(i, j);
      out += /^-?\d{16,}$/.test(number) && !Number.isSafeInteger(Number(number)) ? '"' + number + '"' : number;
      i = j - 1;
    } else {
      out += c;
    }
  }
  return JSON.parse(out);
}

/** Runs call() until the api answers, with a banner and a growing wait (1 s to 30 s) while it does not. */
async function retrying(call, isCurrent = () => true) {
  for (let wait = 1000; ; wait = Math.min(wait * 2, 30000)) {
    try {
      const result = await call();
      banner('');
      return result;
    } catch (e) {
      if (!(e instanceof ApiDown) || !isCurrent()) throw e;
      banner('The api is not answering (' + e.message + '); trying again in ' + Math.round(wait / 1000) + ' s …', 'error');
      await new Promise(r => setTimeout(r, wait));
    }
  }
}

function problemBox(e) {
  if (e instanceof ProblemError) {
    const p = e.problem;
    const errors = Array.isArray(p.errors) ? p.errors : [];
    return el('div', { class: 'problem', role: 'alert' },
      el('strong', {}, (p.title ?? 'Problem') + ' (' + e.status + ')'),
      p.detail ? el('span', {}, p.detail) : null,
      errors.length ? el('ul', {}, errors.map(f => el('li', {}, (f.field ?? f.name ?? '?') + ': ' + (f.message ?? f.reason ?? '')))) : null);
  }
  return el('div', { class: 'problem', role: 'alert' }, el('strong', {}, 'Error'), String(e.message ?? e));
}

// ---------------------------------------------------------------------------------------------------------------
// Routing: #/view/arg?query. Every view has a URL; reloading it shows the same thing.

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [pathPart, queryPart = ''] = raw.split('?');
  const segments = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  return { name: segments[0] ?? '', args: segments.slice(1), query: new URLSearchParams(queryPart) };
}

function link(name, args = [], query) {
  const q = query && [...query].length ? '?' + new URLSearchParams(query).toString() : '';
  return '#/' + [name, ...args.map(encodeURIComponent)].join('/') + q;
}

function renderNav(s) {
  const nav = document.getElementById('nav');
  const who = document.getElementById('who');
  const current = parseHash().name;
  nav.replaceChildren(...(s ? allowedViews(s) : []).map(v =>
    el('a', { href: link(v.path), 'aria-current': v.path === current ? 'page' : null }, v.title)));
  who.replaceChildren(...(s ? [
    el('span', {}, s.subject + ' (' + s.roles.join(', ') + ')'),
    el('button', { type: 'button', onclick: () => signOut('Signed out.') }, 'Sign out'),
  ] : []));
}

async function route() {
  // A sign-in link (./streamhouse console) carries the token in the fragment, which no server sees.
  const m = location.hash.match(/^#token=([A-Za-z0-9._-]+)$/);
  if (m) {
    sessionStorage.setItem(TOKEN_KEY, m[1]);
    history.replaceState(null, '', location.pathname + '#/');
  }
  const s = session();
  const { name, args, query } = parseHash();
  if (name !== 'live') stopLive();
  if (name !== 'health') stopHealth();
  renderNav(s);
  if (!s || name === 'signin') {
    if (s && name === 'signin') { location.hash = '#/'; return; }
    renderSignIn();
    return;
  }
  const views = allowedViews(s);
  if (!name) {
    if (views.length) { location.replace(link(views[0].path)); return; }
    show(el('h1', {}, 'Nothing to show'), el('p', {}, 'The role(s) ' + s.roles.join(', ')
      + ' may call no view of this console (ingest\'s callers, such as payments gateways and devices, use the API).'));
    return;
  }
  const v = VIEWS.find(x => x.path === name);
  if (!v) { show(el('h1', {}, 'No such view'), el('p', {}, 'There is no view "' + name + '".')); return; }
  if (!views.includes(v)) {
    show(el('h1', {}, v.title), el('div', { class: 'problem', role: 'alert' }, el('strong', {}, 'Not for this role'),
      'The view ' + v.title + ' needs one of the roles ' + v.roles.join(', ') + '; this token has ' + s.roles.join(', ') + '.'));
    return;
  }
  try {
    await v.render(args, query);
  } catch (e) {
    if (!(e instanceof ProblemError && e.status === 401)) show(el('h1', {}, v.title), problemBox(e));
  }
  view().focus({ preventScroll: true });
}

// ---------------------------------------------------------------------------------------------------------------
// Sign-in

function renderSignIn() {
  const input = el('textarea', { id: 'token', name: 'token', 'aria-label': 'Bearer token', placeholder: 'eyJhbGciOi…', required: true });
  const error = el('div');
  const form = el('form', {
    onsubmit: (ev) => {
      ev.preventDefault();
      const token = input.value.trim();
      try {
        const claims = decodeToken(token);
        if (claims.expiresAt && claims.expiresAt.getTime() <= Date.now()) throw new Error('this token expired at ' + claims.expiresAt.toISOString());
        sessionStorage.setItem(TOKEN_KEY, token);
        signInMessage = '';
        location.hash = '#/';
      } catch (e) {
        error.replaceChildren(el('div', { class: 'problem', role: 'alert' }, el('strong', {}, 'Not a usable token'), e.message));
      }
    },
  }, el('label', { for: 'token' }, 'Paste a token'), input, el('p', {}, el('button', { type: 'submit' }, 'Sign in')), error);
  show(
    el('h1', {}, 'Sign in'),
    signInMessage ? el('div', { class: 'problem', role: 'alert' }, signInMessage) : null,
    el('div', { class: 'card' },
      el('h2', {}, 'With a role of the running stack'),
      el('p', {}, 'Run ', el('code', {}, './streamhouse console --role reviewer'),
        ' (or ops, rules-admin, analyst, payments): it prints a link that signs this browser in with that role\'s development token. ',
        'The token travels in the link\'s fragment, which is never sent to a server, and is kept for this tab only.')),
    el('div', { class: 'card' }, el('h2', {}, 'With a token of your own'), form));
}

// ---------------------------------------------------------------------------------------------------------------
// Live: alerts as they arrive (server-sent events read through fetch, which can send the token), revisions and
// withdrawals shown as such. An overflow event or a dropped stream re-reads /v1/alerts and subscribes again.

let live = null;

function stopLive() {
  if (live) { live.stopped = true; live.abort.abort(); live = null; banner(''); }
}

async function renderLive(args, query) {
  stopLive();
  const state = { stopped: false, abort: new AbortController(), rows: new Map(), decisions: new Map() };
  live = state;
  const typeFilter = el('input', { id: 'f-type', name: 'type', value: query.get('type') ?? '', placeholder: 'e.g. CARD_TESTING or BLOCK' });
  const subjectFilter = el('input', { id: 'f-subject', name: 'subject', value: query.get('subject') ?? '', placeholder: 'card, parcel, vehicle or transaction id' });
  const status = el('span', { class: 'muted', id: 'live-status' }, 'connecting …');
  const decisionStatus = el('span', { class: 'muted', id: 'decision-status' }, 'connecting …');
  const tbody = el('tbody', { id: 'alerts' });
  const decisionRows = el('tbody', { id: 'decisions' });
  const decisionsPartial = el('p', { class: 'problem', id: 'decisions-partial', hidden: true });
  const has = (value, filter) => !filter || String(value ?? '').includes(filter);
  const matches = (a) => has(a.type, typeFilter.value.trim().toUpperCase()) && has(a.subjectId, subjectFilter.value.trim());
  const decisionMatches = (d) => has(d.outcome, typeFilter.value.trim().toUpperCase())
    && (has(d.cardToken, subjectFilter.value.trim()) || has(d.transactionId, subjectFilter.value.trim()));
  const filterForm = el('form', { class: 'inline', onsubmit: (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams();
    if (typeFilter.value) q.set('type', typeFilter.value.trim());
    if (subjectFilter.value) q.set('subject', subjectFilter.value.trim());
    history.replaceState(null, '', link('live', [], q));
    for (const row of tbody.children) row.hidden = !matches(row.alert);
    for (const row of decisionRows.children) row.hidden = !decisionMatches(row.decision);
  } }, el('label', {}, 'Type or outcome', typeFilter), el('label', {}, 'Subject', subjectFilter), el('button', { type: 'submit' }, 'Filter'));

  show(el('h1', {}, 'Live'), filterForm,
    el('div', { class: 'card' }, el('h2', {}, 'Alerts'), el('p', {}, status),
      el('div', { class: 'feed', tabindex: 0, 'aria-label': 'Alerts, newest first' }, table(['time', 'type', 'severity', 'subject', 'pattern', 'summary', 'status'], tbody))),
    el('div', { class: 'card' }, el('h2', {}, 'Payment decisions'), el('p', {}, decisionStatus), decisionsPartial,
      el('div', { class: 'feed', tabindex: 0, 'aria-label': 'Payment decisions, newest first' }, table(['decided', 'transaction', 'card', 'outcome', 'rules (version)', 'rule set', 'latency'], decisionRows))));

  function rowFor(a, fresh) {
    const tr = el('tr', { class: (a.status === 'WITHDRAWN' ? 'withdrawn-note' : '') + (fresh ? ' fresh' : ''), 'data-alert': a.alertId },
      el('td', {}, a.occurredAt ?? ''), el('td', {}, a.type), el('td', {}, pill(a.severity)),
      el('td', {}, (a.subjectKind ?? '') + ' ' + (a.subjectId ?? '')), el('td', {}, (a.patternId ?? '') + ' v' + (a.patternVersion ?? '?')),
      el('td', {}, a.summary ?? ''), el('td', { class: 'alert-status' }, a.status ?? 'ACTIVE'));
    tr.alert = a;
    tr.hidden = !matches(a);
    return tr;
  }

  // A revision or withdrawal can be read before the alert it replaces (another partition, or a page's order): the
  // replaced one is marked whichever of the two comes second.
  const replacedBy = new Map();
  function mark(row, by) {
    row.classList.add('withdrawn');
    row.querySelector('.alert-status').textContent = (by.status === 'WITHDRAWN' ? 'WITHDRAWN by ' : 'REVISED by ') + by.alertId;
  }

  function place(a, fresh) {
    if (state.rows.has(a.alertId)) return;
    const tr = rowFor(a, fresh);
    state.rows.set(a.alertId, tr);
    const supersedes = a.attributes?.supersedes;
    if (supersedes) {
      replacedBy.set(supersedes, a);
      const old = state.rows.get(supersedes);
      if (old) mark(old, a);
    }
    if (replacedBy.has(a.alertId)) mark(tr, replacedBy.get(a.alertId));
    if (fresh) tbody.prepend(tr); else tbody.append(tr);
  }

  // Newest first by when decided. A decision is listed once: one re-read after an overflow or a reconnect that the
  // stream had already brought is skipped, and one it had not is put where its time places it.
  function placeDecision(d, fresh) {
    if (state.decisions.has(d.transactionId)) return;
    const rules = (d.reasons ?? []).map(r => r.ruleId + ' v' + r.ruleVersion).join(', ');
    const tr = el('tr', { class: fresh ? 'fresh' : '', 'data-transaction': d.transactionId },
      el('td', {}, d.decidedAt ?? d.requestedAt ?? ''),
      el('td', {}, el('a', { href: link('payments', [d.transactionId]) }, d.transactionId)),
      el('td', {}, d.cardToken ?? ''), el('td', {}, pill(d.outcome)),
      el('td', { title: (d.reasons ?? []).map(r => r.message).join('\n') }, rules || 'none (allowed by default)'),
      el('td', {}, d.ruleSetVersion ?? ''), el('td', {}, d.decisionLatencyMillis != null ? d.decisionLatencyMillis + ' ms' : ''));
    tr.decision = d;
    tr.decidedAt = Date.parse(d.decidedAt ?? d.requestedAt ?? '') || 0;
    tr.hidden = !decisionMatches(d);
    state.decisions.set(d.transactionId, tr);
    let next = decisionRows.firstElementChild;
    while (next && next.decidedAt > tr.decidedAt) next = next.nextElementSibling;
    decisionRows.insertBefore(tr, next);
    while (decisionRows.children.length > 200) {
      const oldest = decisionRows.lastChild;
      state.decisions.delete(oldest.decision.transactionId);
      oldest.remove();
    }
  }

  async function reread() {
    const page = await retrying(() => api('/v1/alerts?limit=100'), () => !state.stopped);
    // Oldest first so that a withdrawal finds the row it withdraws.
    const alerts = [...(page.alerts ?? [])].reverse();
    tbody.replaceChildren();
    state.rows.clear();
    replacedBy.clear();
    for (const a of alerts) place(a, false);
    [...tbody.children].reverse().forEach(r => tbody.append(r));
    if (page.partial) banner('Some alert partitions could not be read (' + (page.missingPartitions ?? []).join(', ') + '): the list is partial.');
  }

  async function rereadDecisions() {
    const page = await retrying(() => api('/v1/decisions?limit=100'), () => !state.stopped);
    for (const d of page.decisions ?? []) placeDecision(d, false);
    // Kept beside the list until the next re-read (the banner is cleared once the stream is back).
    decisionsPartial.textContent = page.partial ? 'Some decision partitions could not be read ('
      + (page.missingPartitions ?? []).join(', ') + '): decisions made before the stream (re)connected may be missing.' : '';
    decisionsPartial.hidden = !page.partial;
  }

  follow(state, { path: '/v1/alerts/stream', what: 'alert', label: status, before: reread,
    onItem: (data) => place(JSON.parse(data), true), live: 'live: new alerts appear at the top',
    behind: 'Catching up: this console fell behind the alert stream; re-reading /v1/alerts …' });
  follow(state, { path: '/v1/decisions/stream', what: 'decision', label: decisionStatus, before: rereadDecisions,
    onItem: (data) => placeDecision(JSON.parse(data), true), live: 'live: decisions appear at the top as they are made',
    behind: 'Catching up: this console fell behind the decision stream; re-reading /v1/decisions …' });
}

/**
 * Follows one server-sent event stream for the live view until it is left: before() (re-reading what the stream
 * cannot replay), then the stream; an overflow event or a dropped stream shows a catching-up banner and starts over,
 * waiting 1 s, 2 s, … up to 30 s while it fails.
 */
async function follow(state, { path, what, label, before, onItem, live: liveText, behind }) {
  for (let wait = 1000; !state.stopped; wait = Math.min(wait * 2, 30000)) {
    try {
      await before();
      const s = session();
      if (!s) return;
      const response = await fetch(path, { headers: { Authorization: 'Bearer ' + s.token, Accept: 'text/event-stream' }, signal: state.abort.signal });
      if (response.status === 401) { signOut('The api refused your token: sign in again.'); return; }
      if (!response.ok) throw new ProblemError(response.status, await response.json().catch(() => null));
      label.textContent = liveText;
      banner('');
      wait = 1000;
      const overflow = await readEvents(response.body, (name, data) => {
        if (name === 'overflow') return true;
        onItem(data);
        return false;
      });
      if (state.stopped) return;
      banner(overflow ? behind : 'The ' + what + ' stream ended; catching up …');
    } catch (e) {
      if (state.stopped) return;
      if (e instanceof ProblemError && e.status !== 503) { label.replaceChildren(problemBox(e)); return; }
      banner('Catching up: the ' + what + ' stream dropped (' + (e.message ?? e) + '); trying again in ' + Math.round(wait / 1000) + ' s …', 'error');
      label.textContent = 'reconnecting …';
      await new Promise(r => setTimeout(r, wait));
    }
  }
}

/** Reads a text/event-stream body, calling onEvent(name, data) per event; true if onEvent asked to stop (overflow). */
async function readEvents(body, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let name = 'message';
  let data = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return false;
    buffer += value;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (line === '') {
        if (data.length && onEvent(name, data.join('\n'))) { reader.cancel(); return true; }
        name = 'message';
        data = [];
      } else if (line.startsWith('event:')) {
        name = line.slice(6).trim();
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// A payment: why it was allowed, reviewed or blocked.

async function renderPayment(args) {
  const id = args[0] ?? '';
  const input = el('input', { id: 'tx', name: 'tx', value: id, placeholder: 'transaction id', required: true });
  const form = el('form', { class: 'inline', onsubmit: (ev) => { ev.preventDefault(); location.hash = link('payments', [input.value.trim()]); } },
    el('label', {}, 'Transaction', input), el('button', { type: 'submit' }, 'Look up'));
  if (!id) { show(el('h1', {}, 'A payment'), form); return; }
  show(el('h1', {}, 'A payment'), form, el('p', { class: 'muted' }, 'Loading …'));
  const [decision, explanation] = await Promise.all([
    retrying(() => api('/v1/transactions/' + encodeURIComponent(id) + '/decision')),
    retrying(() => api('/v1/transactions/' + encodeURIComponent(id) + '/explanation')).catch(e => e),
  ]);
  const reasons = (decision.reasons ?? []).map(r => el('tr', {},
    el('td', {}, r.ruleId), el('td', {}, 'v' + r.ruleVersion), el('td', {}, pill(r.outcome)), el('td', {}, r.message ?? ''),
    el('td', {}, kv(r.facts ?? {}))));
  const s = session();
  const reviewer = s.roles.includes('reviewer');
  // The card's recent requests: a reviewer's view (the payments role reads its own transactions only).
  const activity = reviewer && decision.cardToken
    ? await retrying(() => api('/v1/cards/' + encodeURIComponent(decision.cardToken) + '/activity')).catch(e => e) : null;
  show(el('h1', {}, 'A payment'), form,
    el('div', { class: 'card' }, el('h2', {}, 'Decision ', pill(decision.outcome)),
      kv(decision, Object.keys(decision).filter(k => k !== 'reasons' && k !== 'outcome'))),
    el('div', { class: 'card' }, el('h2', {}, 'Rules that fired'),
      reasons.length ? table(['rule', 'version', 'outcome', 'message', 'facts'], reasons) : el('p', { class: 'muted' }, 'No rule fired: allowed by default.')),
    reviewer && decision.outcome === 'REVIEW' ? reviewForm(id) : null,
    activity ? el('div', { class: 'card', id: 'card-activity' }, el('h2', {}, 'The card\'s recent activity'), cardActivity(activity, id)) : null,
    el('div', { class: 'card' }, el('h2', {}, 'Explanation'),
      explanation instanceof Error ? problemBox(explanation) : el('div', {}, el('p', { id: 'explanation-summary' }, explanation.summary ?? ''),
        el('details', {}, el('summary', {}, 'The whole explanation (each rule as it is now, the transactions that counted, the alerts read)'),
          el('pre', {}, JSON.stringify(explanation, null, 2))))));
}

function cardActivity(activity, current) {
  if (activity instanceof Error) {
    return activity instanceof ProblemError && activity.status === 404 ? el('p', { class: 'muted' }, 'No recent activity is kept for this card.') : problemBox(activity);
  }
  const entries = activity.entries ?? activity.activity ?? [];
  const rows = entries.map(e => el('tr', { class: e.transactionId === current ? 'current' : '' },
    el('td', {}, e.occurredAt ?? ''), el('td', {}, el('a', { href: link('payments', [e.transactionId]) }, e.transactionId)),
    el('td', {}, e.amount != null ? e.amount + ' ' + (e.currency ?? '') : ''), el('td', {}, e.merchantId ?? ''),
    el('td', {}, e.merchantCountry ?? ''), el('td', {}, e.channel ?? ''), el('td', {}, outcomeOf(e))));
  return el('div', {}, el('p', { class: 'muted' }, 'Card ' + (activity.cardToken ?? '') + ': ' + entries.length + ' request(s) in the decision topology\'s window, newest first.'),
    table(['time', 'transaction', 'amount', 'merchant', 'country', 'channel', 'decision'], rows));
}

/** A card activity entry's decision: the outcome (a standby's marked stale), not decided yet, or unknown for now. */
function outcomeOf(e) {
  if (e.outcomeUnavailable) return el('span', { class: 'badge stale', title: 'No api instance holding this decision answered: whether it was decided is unknown.' }, 'unavailable');
  if (!e.outcome) return el('span', { class: 'muted', title: 'Not decided yet.' }, '—');
  return e.outcomeStale ? el('span', {}, pill(e.outcome), ' ', el('span', { class: 'badge stale', title: 'From a standby replica: the instance holding it did not answer.' }, 'stale')) : pill(e.outcome);
}

/** A reviewer's verdict on a payment held for REVIEW: recorded under the token's subject (the api takes it from the token). */
function reviewForm(transactionId) {
  const outcome = el('select', { id: 'review-outcome', name: 'outcome', required: true },
    el('option', { value: '' }, 'choose …'), el('option', { value: 'CONFIRMED_FRAUD' }, 'Confirmed fraud (blocks the card\'s next payments)'),
    el('option', { value: 'LEGITIMATE' }, 'Legitimate'));
  const note = el('textarea', { id: 'review-note', name: 'note', rows: 3, maxlength: 1000, 'aria-label': 'Note' });
  const out = el('div', { id: 'review-result', 'aria-live': 'polite' });
  const form = el('form', { onsubmit: async (ev) => {
    ev.preventDefault();
    if (!confirm('Record "' + outcome.value + '" for ' + transactionId + '?')) return;
    try {
      const recorded = await api('/v1/transactions/' + encodeURIComponent(transactionId) + '/review', {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ outcome: outcome.value || null, note: note.value || null }) });
      out.replaceChildren(el('p', {}, 'Recorded ' + recorded.outcome + ' by ' + recorded.reviewer + ' (' + recorded.topic + ' partition '
        + recorded.partition + ' offset ' + recorded.offset + ')' + (recorded.effect ? ': ' + recorded.effect : '') + '.'));
    } catch (e) {
      out.replaceChildren(problemBox(e));
    }
  } }, el('label', {}, 'Verdict', outcome), el('label', {}, 'Note (optional)', note), el('p', {}, el('button', { type: 'submit', id: 'review-save' }, 'Record the review outcome')), out);
  return el('div', { class: 'card' }, el('h2', {}, 'Review'), form);
}

// ---------------------------------------------------------------------------------------------------------------
// Parcels and vehicles: a key's state, its freshness, and the state as of an instant.

async function renderEntity(kind, args, query) {
  const plural = kind + 's';
  const id = args[0] ?? '';
  const asOf = query.get('asOf') ?? '';
  const idInput = el('input', { id: kind + '-id', name: 'id', value: id, placeholder: kind === 'parcel' ? 'P-1042' : 'V-…', required: true });
  const asOfInput = el('input', { id: 'as-of', name: 'asOf', type: 'datetime-local', step: 1, value: asOf ? asOf.replace(/Z$/, '').slice(0, 19) : '' });
  const go = (when) => {
    const q = new URLSearchParams();
    if (when) q.set('asOf', when);
    location.hash = link(plural, [idInput.value.trim()], q);
  };
  const form = el('form', { class: 'inline', onsubmit: (ev) => {
    ev.preventDefault();
    go(asOfInput.value ? new Date(asOfInput.value + 'Z').toISOString().replace('.000Z', 'Z') : '');
  } }, el('label', {}, kind === 'parcel' ? 'Parcel' : 'Vehicle', idInput),
    el('label', {}, 'As of (UTC; empty: now)', asOfInput),
    el('button', { type: 'submit' }, 'Look up'),
    el('button', { type: 'button', class: 'secondary', onclick: () => { asOfInput.value = ''; go(''); } }, 'Now'));
  const title = kind === 'parcel' ? 'Parcels' : 'Vehicles';
  if (!id) { show(el('h1', {}, title), form); return; }
  const path = '/v1/' + plural + '/' + encodeURIComponent(id) + (asOf ? '?asOf=' + encodeURIComponent(asOf) : '');
  const item = await retrying(() => api(path));
  const fresh = item.meta?.freshness;
  const badge = fresh ? el('span', { class: 'badge' + (fresh.stale ? ' stale' : ''), id: 'freshness' },
    fresh.stale ? 'stale' : 'fresh', fresh.lagRecords != null ? ' · ' + fresh.lagRecords + ' records behind' : '',
    fresh.lastEventAt ? ' · last event ' + fresh.lastEventAt : '') : null;
  const position = item.location ?? item.position;
  const summary = kind === 'parcel'
    ? kv(item, ['parcelId', 'status', 'hubId', 'slaRisk', 'promisedBy', 'eta', 'deliveredAt', 'lastScanAt', 'scans'])
    : kv(item, ['vehicleId', 'speedKmh', 'coolantTempC', 'maxCoolantTempC', 'odometerKm', 'faultCodes', 'lastReadingAt', 'maintenanceDue', 'overheating']);
  const history = (item.history ?? []).map(h => el('tr', {}, el('td', {}, h.occurredAt), el('td', {}, h.status), el('td', {}, h.hubId ?? ''), el('td', {}, h.vehicleId ?? '')));
  const alerts = (item.alerts ?? []).map(a => el('tr', {}, el('td', {}, a.occurredAt), el('td', {}, a.type), el('td', {}, pill(a.severity)), el('td', {}, a.summary ?? '')));
  show(el('h1', {}, title), form,
    el('p', {}, asOf ? 'As of ' + asOf + ' ' : 'Now ', badge),
    el('div', { class: 'grid2' },
      el('div', { class: 'card' }, el('h2', {}, item.parcelId ?? item.vehicleId), summary),
      el('div', { class: 'card' }, el('h2', {}, 'Position'), hubMap(position, item.hubId))),
    kind === 'parcel' ? el('div', { class: 'card' }, el('h2', {}, 'History'), history.length ? table(['time', 'status', 'hub', 'vehicle'], history) : el('p', { class: 'muted' }, 'No scans.')) : null,
    el('div', { class: 'card' }, el('h2', {}, 'Alerts'), alerts.length ? table(['time', 'type', 'severity', 'summary'], alerts) : el('p', { class: 'muted' }, 'None.')));
}

/** The hubs as dots on a plain projection of their box, and the key's position in red. */
function hubMap(position, hubId) {
  const W = 520, H = 360, pad = 30;
  const lats = HUBS.map(h => h[2]), lons = HUBS.map(h => h[3]);
  if (position) { lats.push(position.lat); lons.push(position.lon); }
  const [minLat, maxLat, minLon, maxLon] = [Math.min(...lats), Math.max(...lats), Math.min(...lons), Math.max(...lons)];
  const x = lon => pad + (lon - minLon) / Math.max(maxLon - minLon, 1e-6) * (W - 2 * pad);
  const y = lat => H - pad - (lat - minLat) / Math.max(maxLat - minLat, 1e-6) * (H - 2 * pad);
  const map = svg('svg', { class: 'map', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': position ? `position ${position.lat}, ${position.lon}` : 'no position' });
  for (const [id, name, lat, lon] of HUBS) {
    map.append(svg('circle', { class: 'hub', cx: x(lon), cy: y(lat), r: id === hubId ? 6 : 4 }),
      svg('text', { x: x(lon) + 7, y: y(lat) + 3 }, name));
  }
  if (position) map.append(svg('circle', { class: 'here', cx: x(position.lon), cy: y(position.lat), r: 7 }, svg('title', {}, 'here')));
  return map;
}

// ---------------------------------------------------------------------------------------------------------------
// Rules: the current set; rules-admin changes one behind a confirmation.

async function renderRules(args, query) {
  const s = session();
  const body = await retrying(() => api('/v1/rules'));
  const rows = (body.rules ?? []).map(r => el('tr', {},
    el('td', {}, el('a', { href: link('rules', [r.ruleId]) }, r.ruleId)), el('td', {}, 'v' + r.version), el('td', {}, r.kind),
    el('td', {}, r.enabled ? 'on' : 'off'), el('td', {}, pill(r.outcome)), el('td', {}, r.description ?? '')));
  const nodes = [el('h1', {}, 'Rules'), el('p', {}, 'Rule set version ' + body.ruleSetVersion),
    el('div', { class: 'card' }, table(['rule', 'version', 'kind', 'enabled', 'outcome', 'description'], rows))];
  const id = args[0];
  if (id) {
    const rule = (body.rules ?? []).find(r => r.ruleId === id);
    if (!rule) nodes.push(el('div', { class: 'problem', role: 'alert' }, el('strong', {}, 'No such rule'), 'no rule "' + id + '" is defined'));
    else {
      nodes.push(ruleEditor(rule, s.roles.includes('rules-admin')));
      const history = await retrying(() => api('/v1/rules/' + encodeURIComponent(id) + '/versions')).catch(e => e);
      nodes.push(history instanceof Error ? el('div', { class: 'card' }, el('h2', {}, 'Versions'), problemBox(history)) : ruleHistory(history, query));
    }
  }
  show(...nodes);
}

/** The fields of a rule version that a diff compares, parameters one by one. */
function ruleFields(v) {
  const fields = { kind: v.kind, enabled: v.enabled, outcome: v.outcome, weight: v.weight, description: v.description };
  for (const [k, value] of Object.entries(v.parameters ?? {})) fields['parameters.' + k] = value;
  return fields;
}

/** Every version of a rule, newest first, with who changed it (from audit.events), and a diff between two of them. */
function ruleHistory(history, query) {
  const versions = [...(history.versions ?? [])].sort((a, b) => b.version - a.version);
  const byVersion = new Map(versions.map(v => [v.version, v]));
  const rows = versions.map(v => el('tr', { 'data-version': v.version },
    el('td', {}, 'v' + v.version + (v.version === history.inForce ? ' (in force)' : '')),
    el('td', {}, v.changedAt ?? '—'),
    el('td', {}, v.changedBy ?? (v.inAuditTrail === false ? 'not in the audit trail' : '—')),
    el('td', {}, (v.changedByRoles ?? []).join(', ')), el('td', {}, v.channel ?? ''),
    el('td', {}, v.description ?? '')));
  const pick = (id, chosen) => el('select', { id, name: id }, versions.map(v => el('option', { value: v.version, selected: v.version === chosen }, 'v' + v.version)));
  const newest = versions[0]?.version;
  const to = pick('diff-to', Number(query.get('to') ?? newest));
  const from = pick('diff-from', Number(query.get('from') ?? versions[1]?.version ?? newest));
  const diff = el('div', { id: 'rule-diff' });
  const draw = () => {
    const a = byVersion.get(Number(from.value)), b = byVersion.get(Number(to.value));
    if (!a || !b) { diff.replaceChildren(el('p', { class: 'muted' }, 'Only one version is known.')); return; }
    const fa = ruleFields(a), fb = ruleFields(b);
    const names = [...new Set([...Object.keys(fa), ...Object.keys(fb)])];
    const shown = (x) => x === undefined ? '(absent)' : x === null ? '—' : String(x);
    const changed = names.filter(n => shown(fa[n]) !== shown(fb[n]));
    diff.replaceChildren(
      el('p', {}, changed.length ? changed.length + ' field(s) differ between v' + a.version + ' and v' + b.version + '.' : 'v' + a.version + ' and v' + b.version + ' are the same.'),
      table(['field', 'v' + a.version, 'v' + b.version], names.map(n => el('tr', { class: changed.includes(n) ? 'changed' : '' },
        el('td', {}, n), el('td', {}, shown(fa[n])), el('td', {}, shown(fb[n]))))));
  };
  const form = el('form', { class: 'inline', onsubmit: (ev) => {
    ev.preventDefault();
    linkComparison(from.value, to.value);
    draw();
  } }, el('label', {}, 'From', from), el('label', {}, 'To', to), el('button', { type: 'submit' }, 'Compare'));
  draw();
  return el('div', { class: 'card', id: 'rule-versions' }, el('h2', {}, 'Versions'),
    table(['version', 'changed at', 'by', 'roles', 'channel', 'description'], rows), el('h2', {}, 'Compare two versions'), form, diff);
}

/** Keeps the compared versions in the address, so the diff can be linked to. */
function linkComparison(from, to) {
  const { name, args } = parseHash();
  history.replaceState(null, '', link(name, args, new URLSearchParams({ from, to })));
}

function ruleEditor(rule, mayEdit) {
  const { ruleId, version, ...editable } = rule;
  const text = el('textarea', { id: 'rule-json', name: 'rule', 'aria-label': 'Rule ' + ruleId + ' as JSON', readonly: !mayEdit, rows: 12 },
    JSON.stringify(editable, null, 2));
  const out = el('div', { id: 'rule-result' });
  const card = el('div', { class: 'card' }, el('h2', {}, ruleId + ' v' + version), text, out);
  if (mayEdit) {
    card.append(el('p', {}, el('button', { type: 'button', id: 'rule-save', onclick: async () => {
      if (!confirm('Publish a new version of ' + ruleId + '? Every decision from then on uses it.')) return;
      try {
        let parsed;
        try { parsed = JSON.parse(text.value); } catch (e) { throw new ProblemError(400, { title: 'Malformed JSON', detail: e.message }); }
        // The version this editor was opened on: if someone published another meanwhile, the api refuses (409)
        // rather than overwrite it unseen.
        const body = { ...parsed, expectedVersion: version };
        const saved = await api('/v1/rules/' + encodeURIComponent(ruleId), { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        out.replaceChildren(el('p', {}, 'Published ' + ruleId + ' v' + (saved?.version ?? '?') + '.'));
      } catch (e) {
        out.replaceChildren(problemBox(e));
      }
    } }, 'Publish a new version')));
  }
  return card;
}

// ---------------------------------------------------------------------------------------------------------------
// SQL (analyst): a snapshot query over the lake and the log, with what it was read at.

async function renderSql(args, query) {
  const text = el('textarea', { id: 'sql', name: 'sql', 'aria-label': 'SQL', rows: 6 }, query.get('q') ?? 'SELECT * FROM lake.streamhouse.logistics_parcels_scanned LIMIT 10');
  const out = el('div', { id: 'sql-result' });
  const form = el('form', { onsubmit: async (ev) => {
    ev.preventDefault();
    history.replaceState(null, '', link('sql', [], new URLSearchParams({ q: text.value })));
    out.replaceChildren(el('p', { class: 'muted' }, 'Running …'));
    try {
      const answer = await api('/v1/sql', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ sql: text.value }) });
      const columns = answer.columns ?? Object.keys(answer.rows?.[0] ?? {});
      const rows = (answer.rows ?? []).map(r => el('tr', {}, (Array.isArray(r) ? r : columns.map(c => r[c])).map(v => el('td', {}, v === null ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v)))));
      const { rows: _r, columns: _c, readAt, ...about } = answer;
      const iceberg = (readAt?.iceberg ?? []).map(r => el('tr', {}, el('td', {}, r.table), el('td', {}, r.snapshotId ?? '—'), el('td', {}, r.pinnedBy ?? 'current')));
      const kafka = (readAt?.kafka ?? []).map(r => el('tr', {}, el('td', {}, r.table), el('td', {}, r.topic), el('td', {}, r.partition), el('td', {}, r.endOffset)));
      out.replaceChildren(
        el('div', { class: 'card', id: 'sql-read-at' }, el('h2', {}, 'Read at'), kv(about),
          iceberg.length ? table(['Iceberg table', 'snapshot id', 'pinned by'], iceberg) : null,
          kafka.length ? table(['Kafka table', 'topic', 'partition', 'end offset'], kafka) : null),
        el('div', { class: 'card' }, table(columns.map(c => typeof c === 'object' ? c.name : c), rows)));
    } catch (e) {
      out.replaceChildren(problemBox(e));
    }
  } }, text, el('p', {}, el('button', { type: 'submit' }, 'Run')));
  show(el('h1', {}, 'Snapshot SQL'), form, out);
}

// ---------------------------------------------------------------------------------------------------------------
// Health (ops): each component's state and what the launcher's looks inside found, read again every 5 s, with the
// CEP job's lag over the last minutes.

let healthTimer = null;

function stopHealth() {
  if (healthTimer) { clearTimeout(healthTimer); healthTimer = null; }
}

async function renderHealth() {
  stopHealth();
  const trends = new Map();
  const header = el('p', { id: 'health-summary' });
  const components = el('tbody', { id: 'components' });
  const checks = el('tbody', { id: 'checks' });
  const lagRows = el('tbody', { id: 'lag' });
  const trend = el('div', { id: 'lag-trend' });
  const freshness = el('div', { id: 'freshness-detail' });
  const lake = el('tbody', { id: 'lake' });
  const maintenance = el('div', { id: 'maintenance' });
  show(el('h1', {}, 'Health'), header,
    el('div', { class: 'card' }, el('h2', {}, 'Components'), table(['component', 'state', 'pid', 'restarts', 'last exit', 'since', 'endpoint'], components)),
    el('div', { class: 'card' }, el('h2', {}, 'Inside the components'), table(['check', 'component', 'verdict', 'what it found'], checks)),
    el('div', { class: 'card' }, el('h2', {}, 'Consumer lag per processor'),
      table(['processor', 'group', 'records behind', 'oldest unread', 'trend', 'per topic'], lagRows), trend),
    el('div', { class: 'grid2' },
      el('div', { class: 'card' }, el('h2', {}, 'Serving freshness'), freshness),
      el('div', { class: 'card' }, el('h2', {}, 'Lake maintenance'), maintenance)),
    el('div', { class: 'card' }, el('h2', {}, 'The lake against the log'),
      table(['table', 'topic', 'newest snapshot', 'newest record', 'behind'], lake)));
  const seconds = (v) => v == null ? 'unknown' : v < 120 ? v.toFixed(1) + ' s' : Math.round(v / 60) + ' min';
  const refresh = async () => {
    if (parseHash().name !== 'health') return;
    try {
      const status = await retrying(() => api('/v1/status'), () => parseHash().name === 'health');
      const changed = status.ageMillis == null ? '' : ' · last change ' + Math.round(status.ageMillis / 1000) + ' s ago';
      header.replaceChildren('Launcher pid ' + status.launcherPid + (status.launcherAlive ? ' running' : ' NOT running') + changed
        + ' · read ' + new Date().toISOString().slice(11, 19) + ' UTC');
      if (!status.launcherAlive) banner('The launcher that wrote this status is not running: this is how the stack was when it stopped.', 'error');
      components.replaceChildren(...(status.components ?? []).map(c => el('tr', { 'data-component': c.name },
        el('td', {}, c.name), el('td', {}, pill(String(c.state).toUpperCase())), el('td', {}, c.pid), el('td', {}, c.restarts),
        el('td', {}, c.lastExit ? 'exit ' + c.lastExit.code + ' at ' + c.lastExit.at : '—'),
        el('td', {}, c.since ?? ''), el('td', {}, c.endpoint ?? ''))));
      checks.replaceChildren(...(status.checks ?? []).map(h => el('tr', {},
        el('td', {}, h.check), el('td', {}, h.component), el('td', {}, pill(String(h.verdict).toUpperCase())), el('td', {}, h.line))));
      const now = Date.now();
      lagRows.replaceChildren(...(status.lag ?? []).map(l => {
        if (l.records != null) {
          const points = trends.get(l.processor) ?? [];
          points.push([now, l.records]);
          while (points.length > 120) points.shift();
          trends.set(l.processor, points);
        }
        const perTopic = Object.entries(l.perTopic ?? {}).filter(([, n]) => n > 0).map(([t, n]) => t + ' ' + n).join(', ');
        return el('tr', { 'data-processor': l.processor },
          el('td', {}, l.processor), el('td', {}, l.group ?? ''), el('td', {}, l.records ?? 'unknown'),
          el('td', {}, l.unknown && l.seconds == null ? 'unknown (' + l.unknown + ')' : seconds(l.seconds)),
          el('td', {}, trends.has(l.processor) ? sparkline(trends.get(l.processor), 'records') : '—'), el('td', {}, perTopic || '—'));
      }));
      trend.replaceChildren(el('p', { class: 'muted' }, 'Trend: records behind, read every 5 s while this view is open.'));
      const f = status.freshness;
      freshness.replaceChildren(f ? el('div', {},
        el('p', {}, f.ready == null ? 'Readiness unknown' : f.ready ? 'Every api instance ready' : 'An api instance is NOT ready',
          f.records != null ? ' · serving ' + f.records + ' records behind, oldest unread ' + seconds(f.seconds) : '',
          f.unknown ? ' · ' + f.unknown : ''),
        table(['instance', 'ready', 'projections', 'decisions', 'rules'], (f.instances ?? []).map(i => el('tr', {},
          el('td', {}, i.url), el('td', {}, i.ready == null ? 'unknown' : i.ready ? 'yes' : 'NO'), el('td', {}, i.projections ?? '—'),
          el('td', {}, i.decisions ?? '—'), el('td', {}, i.rules ?? (i.unknown ?? '—')))))) : el('p', { class: 'muted' }, 'Not reported by this launcher.'));
      lake.replaceChildren(...(status.lake ?? []).map(t => el('tr', { 'data-table': t.table },
        el('td', {}, t.table), el('td', {}, t.topic), el('td', {}, t.snapshotAt ?? '—'), el('td', {}, t.logEndAt ?? '—'),
        el('td', {}, t.unknown && t.behindSeconds == null ? 'unknown (' + t.unknown + ')' : seconds(t.behindSeconds)))));
      const m = status.maintenance;
      maintenance.replaceChildren(!m ? el('p', { class: 'muted' }, 'No lake in this stack.')
        : m.off ? el('p', {}, 'Maintenance is off.')
        : el('div', {}, el('p', {}, m.lastPassAt ? 'Last pass ' + m.lastPassAt + ' ' : 'No pass yet ', m.ok == null ? '' : pill(m.ok ? 'OK' : 'FAILED')),
          kv(m, ['summary', 'failedTables', 'millis', 'nextPassAt', 'unknown'])));
    } catch (e) {
      if (!(e instanceof ProblemError && e.status === 401)) show(el('h1', {}, 'Health'), problemBox(e));
      return;
    }
    healthTimer = setTimeout(refresh, 5000);
  };
  await refresh();
}

/** Points [time, value] as a small line over time, with the newest and highest values beside it. */
function sparkline(points, unit) {
  const W = 120, H = 24, pad = 2;
  const t0 = points[0][0], t1 = Math.max(points[points.length - 1][0], t0 + 1);
  const max = Math.max(1, ...points.map(p => p[1]));
  const at = ([t, v]) => (pad + (t - t0) / (t1 - t0) * (W - 2 * pad)).toFixed(1) + ',' + (H - pad - v / max * (H - 2 * pad)).toFixed(1);
  const path = points.length > 1 ? points.map((p, i) => (i ? 'L' : 'M') + at(p)).join(' ') : 'M' + at([t0, points[0][1]]) + ' h' + (W - 2 * pad);
  const last = points[points.length - 1][1];
  return el('span', { class: 'trend' }, svg('svg', { class: 'spark', viewBox: `0 0 ${W} ${H}`, role: 'img',
      'aria-label': `${last} ${unit} now, highest ${max} over ${points.length} readings` },
    svg('path', { d: path, fill: 'none', stroke: '#1f5fbf', 'stroke-width': 1.5 })),
    el('span', { class: 'muted' }, ' max ' + max));
}

// ---------------------------------------------------------------------------------------------------------------
// Replay and drills (ops): the last rebuilds, backfills, promotions and drills as each run recorded itself.

async function renderRuns(args, query) {
  const limit = query.get('limit') ?? '20';
  const body = await retrying(() => api('/v1/replay/runs?limit=' + encodeURIComponent(limit)));
  const ms = (v) => v == null ? 'not within the timeout' : v < 10000 ? v + ' ms' : (v / 1000).toFixed(1) + ' s';
  const rows = (body.runs ?? []).map(r => {
    if (r.error && !r.kind) return el('tr', { 'data-run': r.file }, el('td', {}, r.file), el('td', { colspan: 5 }, problemBox(new Error(r.error))));
    const sum = r.summary ?? {};
    const details = [];
    if (sum.divergences != null) details.push(sum.divergences + ' divergent');
    if (sum.decisions) details.push('decisions lost ' + (sum.decisions.lost ?? 0) + ', conflicting ' + (sum.decisions.conflicting ?? 0)
      + ', duplicates ' + (sum.decisions.identicalDuplicates ?? 0));
    if (sum.async) details.push('async lost ' + (sum.async.lost ?? 0) + ', duplicated ' + (sum.async.duplicated ?? 0));
    if (sum.rebuild) details.push('rebuild ' + (sum.rebuild.result ?? '?') + (sum.rebuild.divergences ? ' (' + sum.rebuild.divergences + ')' : ''));
    if (sum.lake) details.push('lake ' + (sum.lake.equal === true ? 'equal' : sum.lake.equal === false
      ? 'missing ' + (sum.lake.missing ?? 0) + ', extra ' + (sum.lake.extra ?? 0) + ', duplicate rows ' + (sum.lake.duplicateRows ?? 0) : '?'));
    if (sum.detection) details.push('detection ' + Object.entries(sum.detection).map(([p, d]) => p + ' recall ' + d?.recall + ' precision ' + d?.precision).join('; '));
    if (sum.recovery) details.push('recovery: ' + Object.entries(sum.recovery).map(([k, v]) => k.replace(/AfterMs$/, '') + ' ' + ms(v)).join(', '));
    if (Array.isArray(sum.failures) && sum.failures.length) details.push('failures: ' + sum.failures.join('; '));
    if (r.error) details.push(r.error);
    return el('tr', { 'data-run': r.file },
      el('td', {}, r.startedAt ?? ''), el('td', {}, r.command ?? r.kind), el('td', {}, pill(r.verdict)),
      el('td', {}, r.durationMs != null ? ms(r.durationMs) : ''), el('td', {}, r.exitCode ?? ''),
      el('td', {}, details.length ? el('ul', { class: 'plain' }, details.map(d => el('li', {}, d))) : '—'));
  });
  show(el('h1', {}, 'Replay and drills'),
    el('p', {}, (body.runs ?? []).length + ' of ' + (body.available ?? '?') + ' recorded runs, newest first. ',
      'Each ', el('code', {}, './streamhouse replay …'), ' and ', el('code', {}, './streamhouse drill …'), ' run leaves its record.'),
    el('div', { class: 'card' }, rows.length ? table(['started', 'command', 'verdict', 'took', 'exit', 'what it found'], rows)
      : el('p', { class: 'muted' }, 'No run recorded yet: try ./streamhouse replay rebuild serving --id s1, or ./streamhouse drill kill-api.')));
}

// ---------------------------------------------------------------------------------------------------------------
// Lineage (ops): the graph from GET /v1/lineage, as jobs with their inputs and outputs.

async function renderLineage() {
  const graph = await retrying(() => api('/v1/lineage'));
  const jobs = graph.jobs ?? graph.processors ?? [];
  const rows = (Array.isArray(jobs) ? jobs : []).map(j => el('tr', {},
    el('td', {}, j.name ?? j.job ?? ''), el('td', {}, j.state ?? j.status ?? ''),
    el('td', {}, (j.inputs ?? []).map(d => typeof d === 'string' ? d : d.name).join(', ')),
    el('td', {}, (j.outputs ?? []).map(d => typeof d === 'string' ? d : d.name).join(', '))));
  show(el('h1', {}, 'Lineage'),
    rows.length ? el('div', { class: 'card' }, table(['job', 'state', 'reads', 'writes'], rows)) : null,
    el('div', { class: 'card' }, el('h2', {}, 'As the api answers it'), el('pre', {}, JSON.stringify(graph, null, 2))));
}

// The skip link moves focus to the view without touching the address (the hash is the view's route).
document.getElementById('skip').addEventListener('click', (ev) => { ev.preventDefault(); view().focus(); });
window.addEventListener('hashchange', route);
route();
