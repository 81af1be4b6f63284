/**
 * The cockpit: a small web server (`node:http`) for a person supervising tool calls. It reads
 * and writes the workspace's ledger, so every toolgate process of the workspace (an agent, an
 * MCP server, `toolgate call`) appears in it: the questions waiting for a person (answered
 * here through the same path as `toolgate approvals allow|deny`, the first answer counting),
 * the approval mode of each session, a live timeline of calls over server-sent events (with
 * `Last-Event-ID` replay), and the whole output of a call by id, in parts.
 *
 * Security:
 * - loopback (`127.0.0.1`) by default, and every `/api/` request must carry a key
 *   (`Authorization: Bearer <key>`): the token (the caller's, or one made at each start), or
 *   a key the page got from `POST /api/login` for a login code. The address a person opens
 *   carries a code in its fragment (`/#code=...`), never sent in a request line or a Referer,
 *   made at start and good once (browser history then holds a spent code; a signed-in page
 *   can ask for another, for another tab). The token is never a login code. The page keeps its key in `sessionStorage` (its own origin: port and all)
 *   and sends it as a header; no cookie, since a browser sends a host's cookies to every port
 *   of it, to a server a sandboxed command started among them. Loopback alone is not enough:
 *   a command in a sandbox allowed the network shares the host's loopback, and must not
 *   answer its own call's question. The page's own files hold no data and need no key. Any
 *   bind other than loopback needs the caller's token;
 * - the `Host` header must name this server (DNS-rebinding protection);
 * - every state-changing request (POST) must come from the page's own origin (`Origin`
 *   header), as JSON, with the server's CSRF token (`X-CSRF-Token`, from `GET /api/csrf`);
 * - the output viewer takes a call id and session, never a path;
 * - the page builds its DOM with `textContent` only, under a strict Content-Security-Policy
 *   (`default-src 'none'`; scripts, styles and connections to this origin only).
 *
 * No framework: the routes are a dozen, the server-sent events are a few lines, and every
 * header that matters (CSP, cookies, origin checks) is easier to audit written out.
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolgateOptionError } from '../errors/errors.js';
import { APPROVAL_MODES, type ApprovalMode } from '../decisions/decision.js';
import { setSessionApprovalMode } from '../ledger/session-approval-modes.js';
import type { CallStore } from '../ledger/call-store.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { checkLocalBind, hostHeadersFor } from '../util/loopback.js';
import { listArtifacts, readArtifact } from '../workspace/artifact-store.js';
import { callView, questionsOf, recentSessions, sessionsOf, type CallView } from './views.js';

/** What answering a question did (the shape of the ledger's `SettleOutcome`, without the run). */
interface CockpitAnswer {
  /** Whether the question exists. */
  found: boolean;
  /** Whether this answer was the first (and counts). */
  first: boolean;
  /** The answer that counts. */
  counted: string | undefined;
  /** What happens next: the asker resumes, the call ran or ended here, or nothing waits. */
  next: string;
}

/**
 * Answers a question about a call: `answer` is `allow_once`, `allow_for_turn`, `always` or
 * `deny`; `by` is `cockpit:<pid>`. The CLI passes the ledger's workflow (`settleQuestion` in
 * `src/ledger/resume.ts`, as `toolgate approvals` does), which also runs a call whose asker is gone.
 */
export type CockpitAnswerer = (questionId: number, answer: string, by: string) => Promise<CockpitAnswer>;

/** Options of {@link startCockpit}; every option documents its default. */
export interface CockpitOptions {
  /** The workspace's ledger (the cockpit does not close it). */
  ledger: CallStore;
  /** Address to bind. Default `127.0.0.1`. Any non-loopback address needs `token`. */
  host?: string;
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /**
   * Secret every request must carry (16+ characters, no spaces). Default: a random one made at
   * each start ({@link CockpitHandle.token}); a non-loopback `host` needs one given here.
   */
  token?: string;
  /** How approvals are answered. Default: recorded in the ledger only (the asking process resumes; a call whose asker is gone stays as it is). */
  answer?: CockpitAnswerer;
  /** How often the live timeline looks for new events in the ledger, in milliseconds. Default 250. */
  pollMs?: number;
  /** Logger. Default: silent. */
  logger?: Logger;
  /**
   * The workspace root whose artifact store `/api/artifacts` lists and `/api/artifacts/<id>`
   * serves (as a download). Default: none (those routes answer 404).
   */
  workspace?: string;
}

/** A running cockpit. */
export interface CockpitHandle {
  /** The server's address (`http://127.0.0.1:PORT/`); its `/api/` requests need a key ({@link token}, or a page's). */
  readonly url: string;
  /**
   * The address a person opens: {@link url} with a login code in its fragment (`#code=`),
   * made at start and good for one login, which the page exchanges for its key.
   */
  readonly openUrl: string;
  /** The token `/api/` requests may carry (`Authorization: Bearer <token>`): the caller's, or one made at start. */
  readonly token: string;
  readonly port: number;
  /** Stop serving: ends the event streams and closes the server (idempotent). */
  close(): Promise<void>;
}

/** The page's files, by request path: a fixed list, never a path from a request. */
const PAGE_FILES: Readonly<Record<string, { file: string; type: string }>> = Object.freeze({
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/cockpit.js': { file: 'cockpit.js', type: 'text/javascript; charset=utf-8' },
  '/cockpit.css': { file: 'cockpit.css', type: 'text/css; charset=utf-8' },
});

/** Where the page's files are: `src/cockpit/page/` of the package (shipped as they are, no build step). */
const PAGE_DIR = new URL('../../../src/cockpit/page/', import.meta.url);

/** The Content-Security-Policy of every response. */
export const COCKPIT_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': COCKPIT_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
});

/** Largest request body, in bytes. */
const MAX_BODY_BYTES = 64 * 1024;
/** Bytes of output per page of the output viewer. */
const OUTPUT_PAGE_BYTES = 64 * 1024;
/** Events a fresh timeline (no `Last-Event-ID`) starts with at most. */
const FRESH_REPLAY_EVENTS = 2000;
/** Page keys kept at once (one per page that logged in); the oldest goes first. */
const MAX_PAGE_KEYS = 64;
/** Unused login codes kept at once; the oldest goes first. */
const MAX_LOGIN_CODES = 8;

/**
 * Start the cockpit.
 * @returns the address (`openUrl` for a person: it carries the token), the token, and a handle to stop it.
 * @throws ToolgateOptionError for a non-loopback `host` without `token`, a bad token or port;
 *   the server's error when the port cannot be bound.
 */
export async function startCockpit(options: CockpitOptions): Promise<CockpitHandle> {
  const { ledger } = options;
  const logger = options.logger ?? createLogger('silent');
  const host = options.host ?? '127.0.0.1';
  checkLocalBind(host, options.token, 'the cockpit answers approvals, so serving it to the network needs a token (TOOLGATE_COCKPIT_TOKEN) that every request must carry');
  const token = options.token ?? crypto.randomBytes(24).toString('base64url');
  /**
   * Login codes not used yet, each good for one login: the one of the address shown, and those
   * a signed-in page asked for (an address for another tab). Never the token: an address
   * opened in a browser stays in its history.
   */
  const loginCodes = new Set<string>();
  const newCode = () => {
    const code = crypto.randomBytes(24).toString('base64url');
    if (loginCodes.size >= MAX_LOGIN_CODES) loginCodes.delete(loginCodes.values().next().value!);
    loginCodes.add(code);
    return code;
  };
  const firstCode = newCode();
  /** Keys given to pages that logged in, oldest first. */
  const pageKeys = new Set<string>();
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw ToolgateOptionError.fromBadOption('port', `must be a TCP port number (0 picks a free one); got ${String(port)}`);
  const pollMs = options.pollMs ?? 250;
  const answer = options.answer ?? recordOnly(ledger);
  const csrf = crypto.randomBytes(32).toString('hex');
  const by = `cockpit:${process.pid}`;
  const streams = new Set<http.ServerResponse>();
  let allowedHosts = new Set<string>();

  const server = http.createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      logger.error({ event: 'cockpit_error', err: (error as Error)?.stack ?? String(error) }, 'cockpit request failed');
      if (!res.headersSent) json(res, 500, { error: 'internal', message: 'internal error' });
      else res.end();
    });
  });

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!allowedHosts.has((req.headers.host ?? '').toLowerCase())) return json(res, 421, { error: 'host', message: 'this Host is not the cockpit\'s address' });
    const url = new URL(req.url ?? '/', 'http://cockpit.invalid');
    if (url.pathname === '/api/login' && req.method === 'POST') return login(req, res);
    if (url.pathname.startsWith('/api/') && !authorized(req, url)) {
      res.writeHead(401, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'www-authenticate': 'Bearer' })
        .end(JSON.stringify({ error: 'unauthorized', message: 'send Authorization: Bearer <key>: open the address toolgate printed (its #code= logs the page in), or use the token' }));
      return;
    }
    if (req.method === 'POST') {
      const refused = crossSite(req);
      if (refused !== undefined) logger.warn({ event: 'cockpit_refused', reason: refused, origin: req.headers.origin, path: url.pathname }, 'state-changing request refused');
      if (refused !== undefined) return json(res, 403, { error: refused, message: `refused: ${refused === 'csrf' ? 'the CSRF token is missing or wrong (reload the page)' : 'the request does not come from the cockpit page (Origin)'}` });
      const body = await readJson(req);
      if (body === undefined) return json(res, 400, { error: 'body', message: 'send a JSON object of at most 64 KiB (content-type: application/json)' });
      const question = /^\/api\/questions\/(\d{1,15})$/.exec(url.pathname);
      if (question !== null) return answerQuestion(res, Number(question[1]), body);
      if (url.pathname === '/api/sessions/mode') return setMode(res, body);
      // A signed-in page asks for an address for another tab: a new code, good once.
      if (url.pathname === '/api/login-code') return json(res, 200, { url: `/#code=${newCode()}` });
      return json(res, 404, { error: 'not_found', message: 'no such action' });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...SECURITY_HEADERS, allow: 'GET, HEAD, POST' }).end();
      return;
    }
    const page = Object.hasOwn(PAGE_FILES, url.pathname) ? PAGE_FILES[url.pathname] : undefined;
    if (page !== undefined) {
      const body = await fs.promises.readFile(new URL(page.file, PAGE_DIR));
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': page.type, 'content-length': body.length }).end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    switch (url.pathname) {
      case '/api/csrf':
        return json(res, 200, { token: csrf });
      case '/api/questions':
        return json(res, 200, await questionsOf(ledger));
      case '/api/sessions':
        return json(res, 200, { ...recentSessions(await sessionsOf(ledger)), modes: APPROVAL_MODES });
      case '/api/output':
        return output(res, url.searchParams);
      case '/api/events':
        return events(req, res, url.searchParams);
      case '/api/artifacts':
        return options.workspace === undefined ? json(res, 404, { error: 'not_found', message: 'the cockpit was started without a workspace' })
          : json(res, 200, { artifacts: await listArtifacts(options.workspace, url.searchParams.has('turn') ? { turn: url.searchParams.get('turn')! } : {}) });
      default: {
        const artifact = /^\/api\/artifacts\/(art_[0-9a-f]{16})$/.exec(url.pathname);
        if (artifact !== null && options.workspace !== undefined) return serveArtifact(res, options.workspace, artifact[1]!, req.method === 'HEAD');
        return json(res, 404, { error: 'not_found', message: 'not found' });
      }
    }
  }

  /**
   * Whether the request carries the token or a page key: as `Authorization: Bearer`, or, for
   * the event stream alone (an `EventSource` sends no header), as `?key=`.
   */
  function authorized(req: http.IncomingMessage, url: URL): boolean {
    const header = req.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7) : url.pathname === '/api/events' ? url.searchParams.get('key') ?? '' : '';
    if (given === '') return false;
    if (same(given, token)) return true;
    for (const key of pageKeys) if (same(given, key)) return true;
    return false;
  }

  /**
   * `POST /api/login {"code"}` from the page's own origin: a key for the page, for a login
   * code not used yet (each logs in once).
   */
  async function login(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!fromThePage(req)) return json(res, 403, { error: 'origin', message: 'refused: the request does not come from the cockpit page (Origin)' });
    const body = await readJson(req);
    const code = typeof body?.code === 'string' ? body.code : '';
    let fresh: string | undefined;
    for (const known of loginCodes) if (code !== '' && same(code, known)) fresh = known;
    if (fresh === undefined) {
      logger.warn({ event: 'cockpit_login_refused' }, 'a login with a wrong or spent code was refused');
      return json(res, 401, { error: 'code', message: 'this login code is wrong or was used already: open the address toolgate printed last' });
    }
    loginCodes.delete(fresh);
    const key = crypto.randomBytes(24).toString('base64url');
    if (pageKeys.size >= MAX_PAGE_KEYS) pageKeys.delete(pageKeys.values().next().value!);
    pageKeys.add(key);
    return json(res, 200, { key });
  }

  /** Whether a request comes from the cockpit's own page: its `Origin`, and a same-origin fetch where the browser says. */
  function fromThePage(req: http.IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined || origin !== `http://${req.headers.host}`) return false;
    const site = req.headers['sec-fetch-site'];
    return site === undefined || site === 'same-origin';
  }

  /** Why a state-changing request is refused (`origin`, `csrf`), or `undefined` when it comes from the page. */
  function crossSite(req: http.IncomingMessage): 'origin' | 'csrf' | undefined {
    if (!fromThePage(req)) return 'origin';
    const given = req.headers['x-csrf-token'];
    if (typeof given !== 'string' || !same(given, csrf)) return 'csrf';
    return undefined;
  }

  async function answerQuestion(res: http.ServerResponse, id: number, body: Record<string, unknown>): Promise<void> {
    const question = await ledger.approval(id);
    if (question === undefined) return json(res, 404, { error: 'not_found', message: `no question ${id}` });
    if (question.request.kind === 'question') {
      // An ask_user question: the reply is text, or the chosen choices.
      const reply = body.reply;
      const ok = typeof reply === 'string' ? reply.length <= 10_000 : Array.isArray(reply) && reply.length <= 10 && reply.every((r) => typeof r === 'string' && r.length <= 200);
      if (!ok) return json(res, 400, { error: 'answer', message: 'reply must be text (at most 10000 characters) or a list of choices' });
      const counted = (await ledger.answer(id, JSON.stringify({ reply }), by))!;
      logger.info({ event: 'cockpit_reply', question: id, first: counted.first }, 'question answered');
      return json(res, 200, { found: true, first: counted.first, counted: counted.answer, next: 'resumes' });
    }
    const given = body.answer;
    const offers = Array.isArray(question.request.offers) ? (question.request.offers as unknown[]) : ['allow_once', 'deny'];
    if (typeof given !== 'string' || !offers.includes(given)) return json(res, 400, { error: 'answer', message: `answer must be one of ${offers.join(', ')}` });
    const outcome = await answer(id, given, by);
    logger.info({ event: 'cockpit_answer', question: id, answer: given, first: outcome.first, next: outcome.next }, 'question answered');
    return json(res, 200, outcome);
  }

  async function setMode(res: http.ServerResponse, body: Record<string, unknown>): Promise<void> {
    const { session, mode } = body;
    if (typeof session !== 'string' || session === '' || session.length > 500) return json(res, 400, { error: 'session', message: 'session must be a session name' });
    if (mode !== null && !(APPROVAL_MODES as readonly unknown[]).includes(mode)) return json(res, 400, { error: 'mode', message: `mode must be one of ${APPROVAL_MODES.join(', ')}, or null to clear it` });
    await setSessionApprovalMode(ledger, session, (mode ?? undefined) as ApprovalMode | undefined, by);
    logger.info({ event: 'cockpit_mode', session, mode }, 'session approval mode set');
    return json(res, 200, { session, mode });
  }

  async function output(res: http.ServerResponse, params: URLSearchParams): Promise<void> {
    const callId = params.get('call');
    const session = params.get('session');
    const offset = Number(params.get('offset') ?? '0');
    if (!callId || callId.length > 500 || session === null || session.length > 500 || !Number.isSafeInteger(offset) || offset < 0) {
      return json(res, 400, { error: 'id', message: 'give call=ID&session=S (and offset=BYTES): the viewer takes ids, never paths' });
    }
    const call = await ledger.get(callId, session);
    if (call === undefined) return json(res, 404, { error: 'not_found', message: `no call ${callId} in session ${session}` });
    const part = await ledger.outputPage(callId, session, offset, OUTPUT_PAGE_BYTES);
    if (part === undefined) return json(res, 404, { error: 'no_result', message: `call ${callId} is ${call.state}: it has no result yet` });
    return json(res, 200, { callId, session, state: call.state, ...part });
  }

  async function events(req: http.IncomingMessage, res: http.ServerResponse, params: URLSearchParams): Promise<void> {
    const last = req.headers['last-event-id'] ?? params.get('after') ?? undefined;
    let cursor = typeof last === 'string' && /^\d{1,15}$/.test(last) ? Number(last) : Math.max(0, (await ledger.lastEventId()) - FRESH_REPLAY_EVENTS);
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    res.write('retry: 1000\n\n');
    streams.add(res);
    let asked = '';
    let beats = 0;
    let ticking = false; // one tick at a time: a slow store is awaited, not read again meanwhile
    let ended = false;
    const tick = async () => {
      if (ticking || ended) return;
      ticking = true;
      try {
        for (;;) {
          const batch = await ledger.eventsAfter(cursor, 500);
          if (batch.length === 0) break;
          const calls = new Map<string, CallView | undefined>();
          for (const e of batch) {
            const key = `${e.session}\u0000${e.callId}`;
            if (!calls.has(key)) {
              const record = await ledger.get(e.callId, e.session);
              calls.set(key, record === undefined ? undefined : await callView(ledger, record));
            }
            const call = calls.get(key);
            if (call !== undefined && !ended) res.write(`id: ${e.id}\nevent: call\ndata: ${JSON.stringify({ event: { id: e.id, at: e.at, kind: e.kind }, call })}\n\n`);
            cursor = e.id;
          }
          if (batch.length < 500) break;
        }
        const now = (await questionsOf(ledger)).map((q) => q.id).join(',');
        if (now !== asked && !ended) {
          asked = now;
          res.write(`event: questions\ndata: ${JSON.stringify({ ids: now === '' ? [] : now.split(',').map(Number) })}\n\n`);
        }
        if (++beats * pollMs >= 15_000 && !ended) {
          beats = 0;
          res.write(': keep-alive\n\n');
        }
      } catch (error) {
        logger.warn({ event: 'cockpit_feed_failed', err: (error as Error)?.message }, 'could not read the ledger for the timeline; trying again');
      } finally {
        ticking = false;
      }
    };
    const timer = setInterval(() => void tick(), pollMs);
    void tick();
    const end = () => {
      ended = true;
      clearInterval(timer);
      streams.delete(res);
    };
    req.on('close', end);
    res.on('close', end);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  allowedHosts = new Set(hostHeadersFor(host, bound).map((h) => h.toLowerCase()));
  const shown = host.includes(':') ? `[${host}]` : host;
  let closed: Promise<void> | undefined;
  const base = `http://${shown}:${bound}/`;
  return {
    url: base,
    openUrl: `${base}#code=${firstCode}`,
    token,
    port: bound,
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const res of streams) res.end();
        streams.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** The default answerer: the answer is recorded; the asking process, while it runs, resumes on it. */
function recordOnly(ledger: CallStore): CockpitAnswerer {
  return async (id, answer, by) => {
    const counted = await ledger.answer(id, answer, by);
    if (counted === undefined) return { found: false, first: false, counted: undefined, next: 'none' };
    return { found: true, first: counted.first, counted: counted.answer, next: 'recorded' };
  };
}

/** Constant-time comparison of two strings. */
function same(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** One artifact's bytes as a download (`application/octet-stream`, never rendered here), or 404. */
async function serveArtifact(res: http.ServerResponse, workspace: string, id: string, head: boolean): Promise<void> {
  const found = await readArtifact(workspace, id);
  if (found === undefined) return json(res, 404, { error: 'not_found', message: `no artifact ${id}` });
  res.writeHead(200, {
    ...SECURITY_HEADERS, 'content-type': 'application/octet-stream', 'content-length': found.bytes.length,
    'content-disposition': `attachment; filename="${found.record.name}"`, 'x-artifact-sha256': found.record.sha256,
  }).end(head ? undefined : found.bytes);
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** The request's JSON object body, or `undefined` when it is not JSON, not an object, or too large. */
async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown> | undefined> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
