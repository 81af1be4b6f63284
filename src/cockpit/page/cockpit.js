// The cockpit page: plain JavaScript, no build step. Every piece of data reaches the page
// through textContent, never parsed as markup, so a tool output holding <script> shows as text.
'use strict';

/** @type {string | undefined} the server's CSRF token, sent with every POST */
let csrf;
/**
 * @type {string | null} this page's key, sent as `Authorization: Bearer` with every API request.
 * Kept in sessionStorage (this origin alone, port and all), never in a cookie: a browser sends
 * a host's cookies to every port of it, a server a sandboxed command started among them.
 */
let key = sessionStorage.getItem('toolgate-cockpit-key');
/** Set once the server refused the key (it restarted, or the code was wrong): nothing more is asked. */
let signedOut = false;
/** Timeline rows by call (session + call id). */
const rows = new Map();
const ANSWER_LABELS = { allow_once: 'Allow once', allow_for_turn: 'Allow for this turn', always: 'Always', deny: 'Deny' };

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null) continue;
      if (key === 'text') node.textContent = String(value);
      else if (key === 'class') node.className = value;
      else if (key === 'on') for (const [event, fn] of Object.entries(value)) node.addEventListener(event, fn);
      else if (key.startsWith('data-') || key === 'type' || key === 'title' || key === 'value') node.setAttribute(key, String(value));
      else node[key] = value;
    }
  }
  for (const child of children) if (child !== undefined && child !== null) node.append(child);
  return node;
}

function time(ms) {
  return ms === undefined || ms === null ? '' : new Date(ms).toLocaleTimeString();
}

/** Stop asking the server: its answer said this page has no valid key. */
function signOut(message) {
  signedOut = true;
  key = null;
  sessionStorage.removeItem('toolgate-cockpit-key');
  const status = document.getElementById('status');
  status.textContent = 'signed out';
  status.className = 'status down';
  const note = document.getElementById('signed-out');
  note.textContent = message;
  note.hidden = false;
}

const RESTARTED = 'This page is not signed in to the cockpit: it was opened without a login code, its code was used already (each logs in once), or the cockpit restarted. Open the address toolgate printed (it ends in #code=...) if it has not been used; for another tab, use "Address for another tab" on a page that is signed in; or start the cockpit again.';

/**
 * Log in with the code of the address opened (`#code=`), then drop it from the address bar.
 * @returns whether the page has a key.
 */
async function logIn() {
  const code = new URLSearchParams(location.hash.slice(1)).get('code');
  if (code !== null) {
    history.replaceState(null, '', location.pathname);
    const res = await fetch('/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    if (res.ok) {
      key = (await res.json()).key;
      sessionStorage.setItem('toolgate-cockpit-key', key);
    }
  }
  if (key === null) signOut(RESTARTED);
  return key !== null;
}

async function getJson(path) {
  const res = await fetch(path, { headers: { accept: 'application/json', authorization: `Bearer ${key}` } });
  if (res.status === 401) signOut(RESTARTED);
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json();
}

async function loadCsrf() {
  csrf = (await getJson('/api/csrf')).token;
}

/** POST JSON with the CSRF token; a refused token (the server restarted) is fetched again once. */
async function post(path, body, retried) {
  if (csrf === undefined) await loadCsrf();
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const answer = await res.json().catch(() => ({}));
  if (res.status === 401) signOut(RESTARTED);
  if (res.status === 403 && answer.error === 'csrf' && !retried) {
    await loadCsrf();
    return post(path, body, true);
  }
  if (!res.ok) throw new Error(answer.message || `${res.status}`);
  return answer;
}

// ---- questions ----

function questionCard(q) {
  const card = el('article', { class: 'question', 'data-testid': 'question', 'data-question-id': q.id, 'data-tool': q.tool });
  const status = el('p', { class: 'hint', 'data-testid': 'question-status' });
  if (q.kind === 'question') {
    card.append(el('h3', { text: 'The agent asks' }), el('p', { text: q.shown.question, 'data-testid': 'question-text' }));
    const label = (i) => q.shown.choices[i];
    const reply = (value) => answer(q, { reply: value }, card, status);
    const actions = el('div', { class: 'actions' });
    if (q.question.choices && !q.question.multi) {
      q.question.choices.forEach((choice, i) => actions.append(el('button', { type: 'button', text: label(i), on: { click: () => reply(choice) } })));
    } else if (q.question.choices) {
      const picked = new Set();
      q.question.choices.forEach((choice, i) => {
        const box = el('input', { type: 'checkbox', on: { change: () => (box.checked ? picked.add(choice) : picked.delete(choice)) } });
        actions.append(el('label', null, box, document.createTextNode(` ${label(i)}`)));
      });
      actions.append(el('button', { type: 'button', class: 'allow', text: 'Send', on: { click: () => reply([...picked]) } }));
    } else {
      const input = el('input', { type: 'text', 'data-testid': 'reply', placeholder: 'Your answer' });
      actions.append(input, el('button', { type: 'button', class: 'allow', text: 'Send', on: { click: () => reply(input.value) } }));
    }
    card.append(el('dl', null, el('dt', { text: 'Session' }), el('dd', { class: 'mono', text: q.shown.supervised })), actions, status);
    return card;
  }
  // Every text shown is the server's escaped one (q.shown): no control, bidi or zero-width
  // character, nor a long run of spaces, is rendered (the input is whole, in a box that scrolls).
  const lines = q.shown.arguments.split('\n').length;
  card.append(
    el('h3', null, el('span', { class: 'mono', text: `${q.tool}@${q.version}` }), document.createTextNode(` — question ${q.id}`)),
    el('p', { text: q.shown.description }),
    el('dl', null,
      el('dt', { text: 'Why' }), el('dd', { text: q.shown.why, 'data-testid': 'question-why' }),
      // every other question of the call, one a line: an answer answers them all
      ...(q.shown.also.length ? [el('dt', { text: 'Also asks' }), el('dd', { class: 'lines', text: q.shown.also.join('\n'), 'data-testid': 'question-also' })] : []),
      el('dt', { text: 'Workspace' }), el('dd', { class: 'mono', text: q.shown.workspace }),
      el('dt', { text: 'Session' }), el('dd', { class: 'mono', text: q.shown.supervised }),
      el('dt', { text: 'Call' }), el('dd', { class: 'mono', text: q.shown.callId }),
      el('dt', { text: 'Paths' }), el('dd', { class: 'mono', text: q.shown.paths.length ? q.shown.paths.join('\n') : '(none)' }),
      el('dt', { text: 'Asked' }), el('dd', { text: `${time(q.askedAt)}${q.askerAlive ? '' : ' (the asking process is gone: an allow runs the call here)'}` }),
    ),
    el('div', { class: 'hint', 'data-testid': 'question-input-hint', text: lines > 20 ? `Input, whole (${lines} lines: scroll the box to read all of it before you answer)` : 'Input, whole' }),
    el('pre', { class: 'mono', 'data-testid': 'question-input', text: q.shown.arguments }),
  );
  const actions = el('div', { class: 'actions' });
  const offers = q.offers.length ? q.offers : ['allow_once', 'deny'];
  for (const offer of ['allow_once', 'allow_for_turn', 'always', 'deny']) {
    if (!offers.includes(offer)) continue;
    actions.append(el('button', {
      type: 'button', class: offer === 'deny' ? 'deny' : 'allow', text: ANSWER_LABELS[offer], 'data-answer': offer,
      on: { click: () => answer(q, { answer: offer }, card, status) },
    }));
  }
  card.append(actions, status);
  return card;
}

async function answer(q, body, card, status) {
  for (const button of card.querySelectorAll('button')) button.disabled = true;
  try {
    const outcome = await post(`/api/questions/${q.id}`, body);
    status.textContent = outcome.first ? `Answered: ${outcome.counted}` : `Already answered elsewhere: ${outcome.counted} counts`;
    setTimeout(refreshQuestions, 300);
  } catch (error) {
    status.className = 'error';
    status.textContent = `Not answered: ${error.message}`;
    for (const button of card.querySelectorAll('button')) button.disabled = false;
  }
}

let refreshing = Promise.resolve();
function refreshQuestions() {
  refreshing = refreshing.then(async () => {
    const questions = await getJson('/api/questions');
    const box = document.getElementById('questions');
    box.replaceChildren(...questions.map(questionCard));
    document.getElementById('no-questions').hidden = questions.length !== 0;
    document.getElementById('question-count').textContent = questions.length ? `(${questions.length})` : '';
  }).catch(() => undefined);
  return refreshing;
}

// ---- sessions ----

async function refreshSessions() {
  const { sessions, modes, older } = await getJson('/api/sessions');
  const body = document.querySelector('#sessions tbody');
  const rows = sessions.map((s) => {
    const select = el('select', { 'data-testid': 'session-mode', 'data-session': s.session });
    // Not set: the mode of * applies; not set for * either: each program's own (its --approve, the tools' own asks).
    select.append(el('option', { value: '', text: s.session === '*' ? 'not set: each program decides' : 'not set: as for *' }));
    for (const mode of modes) select.append(el('option', { value: mode, text: mode }));
    select.value = s.mode ?? '';
    select.addEventListener('change', async () => {
      select.disabled = true;
      try {
        await post('/api/sessions/mode', { session: s.session, mode: select.value === '' ? null : select.value });
      } catch (error) {
        alert(`The mode was not changed: ${error.message}`);
      }
      select.disabled = false;
      refreshSessions().catch(() => undefined);
    });
    return el('tr', { 'data-session': s.session }, el('td', { class: 'mono', text: s.session }), el('td', { text: String(s.calls) }), el('td', null, select));
  });
  if (older) rows.push(el('tr', { 'data-testid': 'older-sessions' }, el('td', { class: 'hint', colSpan: 3, text: `and ${older} earlier session${older === 1 ? '' : 's'} (ended, no mode set)` })));
  body.replaceChildren(...rows);
}

// ---- timeline ----

function timelineRow(call) {
  const key = `${call.session}\u0000${call.callId}`;
  chartCall(key, call);
  let row = rows.get(key);
  if (row === undefined) {
    row = el('tr', { 'data-testid': 'call', 'data-call-id': call.callId });
    rows.set(key, row);
    document.querySelector('#timeline tbody').prepend(row);
  }
  const open = call.resultSize !== undefined && call.resultSize !== null
    ? el('button', { type: 'button', text: 'Open full output', 'data-testid': 'open-output', on: { click: () => openOutput(call.callId, call.session) } })
    : '';
  row.dataset.state = call.state;
  row.replaceChildren(
    el('td', { text: time(call.createdAt) }),
    el('td', { class: 'mono', text: `${call.tool}@${call.version}` }),
    el('td', { class: 'mono', text: call.callId }),
    el('td', { class: 'mono', text: call.supervised }),
    el('td', { class: `state-${call.state}`, 'data-testid': 'call-state' },
      document.createTextNode(call.errorCode ? `${call.state} (${call.errorCode})` : call.state),
      // A running call's latest progress (what `toolgate call` records; text only).
      call.progress ? el('div', { class: 'hint progress', 'data-testid': 'call-progress', text: call.progress }) : undefined),
    el('td', {
      'data-testid': 'call-duration',
      // A running call's time so far, counted on by the clock below.
      'data-running-since': call.state === 'running' && call.startedAt ? call.startedAt : undefined,
      text: call.durationMs === undefined || call.durationMs === null ? (call.state === 'running' && call.startedAt ? runningFor(call.startedAt) : '') : `${call.durationMs} ms`,
    }),
    el('td', { class: 'mono', 'data-testid': 'call-decisions', text: call.decisions.length ? call.decisions.join(' → ') : call.state === 'pending' ? '(being decided)' : 'no rule or setting applied' }),
    el('td', null, open),
  );
}

/** A running call's time so far, as the timeline shows it. */
function runningFor(since) {
  return `running ${Math.max(0, Math.round((Date.now() - since) / 1000))} s`;
}

/** Counts on the time of every running call shown (once a second). */
function tickRunning() {
  for (const cell of document.querySelectorAll('[data-running-since]')) cell.textContent = runningFor(Number(cell.dataset.runningSince));
}

// ---- chart: the calls over time ----

/** The calls the chart draws (the newest {@link CHART_CALLS}), by session + call id. */
const charted = new Map();
const CHART_CALLS = 300;
const CHART_LANES = 12;
const SVG_NS = 'http://www.w3.org/2000/svg';

function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function chartCall(key, call) {
  charted.delete(key);
  charted.set(key, call);
  if (charted.size > CHART_CALLS) charted.delete(charted.keys().next().value);
  chartDirty = true;
}

let chartDirty = false;
/**
 * Each call a bar from when it was recorded to when it ended (a running one to now), in
 * lanes so that calls at the same time do not overlap, coloured by state; the bar's title
 * says which call it is. Drawn again once a second while anything changed or runs.
 */
function drawChart() {
  const calls = [...charted.values()].sort((a, b) => a.createdAt - b.createdAt);
  const running = calls.some((c) => c.endedAt === undefined || c.endedAt === null);
  if (!chartDirty && !running) return;
  chartDirty = false;
  const box = document.getElementById('chart');
  document.getElementById('no-chart').hidden = calls.length !== 0;
  if (calls.length === 0) return box.replaceChildren();
  const now = Date.now();
  const endOf = (c) => (c.endedAt === undefined || c.endedAt === null ? now : c.endedAt);
  const start = calls[0].createdAt;
  const end = Math.max(now, ...calls.map(endOf));
  const span = Math.max(end - start, 10_000);
  const width = Math.max(300, (box.clientWidth || 800) - 2); // (its border: 2 px)
  const laneHeight = 14;
  const lanes = [];
  const bars = calls.map((c) => {
    let lane = lanes.findIndex((busyUntil) => busyUntil <= c.createdAt);
    if (lane === -1) lane = lanes.length < CHART_LANES ? lanes.length : lanes.indexOf(Math.min(...lanes));
    lanes[lane] = endOf(c);
    return { c, lane };
  });
  const height = lanes.length * laneHeight + 22;
  const x = (t) => ((t - start) / span) * (width - 2) + 1;
  const picture = svgEl('svg', { width, height, viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: 'xMinYMin meet', role: 'img', 'aria-label': `${calls.length} calls over time`, 'data-testid': 'chart-svg' });
  for (const { c, lane } of bars) {
    const duration = c.durationMs === undefined || c.durationMs === null ? `${c.state} for ${Math.round((endOf(c) - c.createdAt) / 1000)} s` : `${c.state}, ${c.durationMs} ms`;
    const bar = svgEl('rect', {
      x: x(c.createdAt), y: lane * laneHeight + 2, width: Math.max(2, x(endOf(c)) - x(c.createdAt)), height: laneHeight - 4, rx: 2,
      class: `bar state-${c.state}`, 'data-testid': 'chart-bar', 'data-call-id': c.callId, 'data-state': c.state,
    });
    bar.append(svgEl('title', {}, `${c.tool}@${c.version} ${c.callId} (${c.supervised}): ${duration}${c.progress ? ` — ${c.progress}` : ''}`));
    picture.append(bar);
  }
  const axis = lanes.length * laneHeight + 16;
  picture.append(svgEl('text', { x: 1, y: axis, class: 'axis' }, time(start)), svgEl('text', { x: width - 1, y: axis, class: 'axis', 'text-anchor': 'end' }, time(end)));
  box.replaceChildren(picture);
}

// ---- output viewer ----

let viewing;
async function openOutput(callId, session, offset = 0) {
  const params = new URLSearchParams({ call: callId, session, offset: String(offset) });
  const part = await getJson(`/api/output?${params}`);
  const pre = document.getElementById('output');
  if (offset === 0) pre.textContent = '';
  pre.append(document.createTextNode(part.text));
  viewing = { callId, session, next: part.next };
  document.getElementById('output-section').hidden = false;
  document.getElementById('output-title').textContent = `${callId} (${session})`;
  document.getElementById('output-meta').textContent = `${part.size} bytes, ${part.state}; showing up to byte ${part.next ?? part.size}`;
  document.getElementById('output-more').hidden = part.next === undefined || part.next === null;
  if (offset === 0) document.getElementById('output-section').scrollIntoView();
}

// The address opened again in this tab with a new code (the cockpit restarted): only the
// fragment changed, so the browser did not load the page; load it, to log in with the code.
window.addEventListener('hashchange', () => {
  if (new URLSearchParams(location.hash.slice(1)).has('code')) location.reload();
});

document.addEventListener('DOMContentLoaded', async () => {
  document.getElementById('output-more').addEventListener('click', () => {
    if (viewing && viewing.next !== undefined && viewing.next !== null) openOutput(viewing.callId, viewing.session, viewing.next).catch(() => undefined);
  });
  if (!(await logIn().catch(() => false))) return;
  document.getElementById('another-tab').addEventListener('click', async () => {
    const shown = document.getElementById('another-tab-url');
    try {
      const { url } = await post('/api/login-code', {});
      shown.replaceChildren(el('a', { href: url, target: '_blank', rel: 'noopener', text: new URL(url, location.href).href }), ' (logs in once)');
    } catch (error) {
      shown.textContent = `No address: ${error.message}`;
    }
  });
  loadCsrf().catch(() => undefined);
  setInterval(() => {
    tickRunning();
    drawChart();
  }, 1000);
  refreshQuestions();
  refreshSessions().catch(() => undefined);
  const status = document.getElementById('status');
  // An EventSource sends no header: the key goes in the query (this origin only; no Referer).
  const feed = new EventSource(`/api/events?key=${encodeURIComponent(key)}`);
  feed.addEventListener('open', () => {
    status.textContent = 'live';
    status.className = 'status live';
    // After a reconnect (the server restarted), everything is read again.
    refreshQuestions();
    refreshSessions().catch(() => undefined);
  });
  feed.addEventListener('error', () => {
    if (signedOut) return;
    status.textContent = 'reconnecting…';
    status.className = 'status down';
    // A server that restarted knows no key of this page: ask once, and stop if it says so.
    fetch('/api/csrf', { headers: { authorization: `Bearer ${key}` } }).then((res) => {
      if (res.status !== 401) return;
      feed.close();
      signOut(RESTARTED);
    }, () => undefined);
  });
  // The sessions' call counts follow the timeline, read again at most once a second.
  let sessionsDue;
  feed.addEventListener('call', (message) => {
    const { call } = JSON.parse(message.data);
    timelineRow(call);
    sessionsDue ??= setTimeout(() => {
      sessionsDue = undefined;
      refreshSessions().catch(() => undefined);
    }, 1000);
  });
  feed.addEventListener('questions', () => {
    refreshQuestions();
    refreshSessions().catch(() => undefined);
  });
});
