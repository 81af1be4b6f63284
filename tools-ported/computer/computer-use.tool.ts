import dns from 'node:dns/promises';
import fs from 'node:fs';
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { tool, ToolExecutionError, type Tool, type ToolContext } from '../../src/tool.js';
import { displayFor, stopDisplaysOf } from './display-sessions.js';
import { parseKeys } from './keys.js';
import { addressVerdict, netAllowlistFromEnv, normalHost } from '../common/net-policy.js';
import { browserLaunch } from './browser-launch.js';
import { displaySize, findXPrograms, type VirtualDisplay } from './virtual-display.js';

/** What computer_use does. */
export type ComputerAction = 'screenshot' | 'click' | 'double_click' | 'type' | 'key' | 'scroll' | 'move' | 'drag' | 'wait' | 'open';

/** Arguments of computer_use. */
export interface ComputerUseInput {
  /**
   * What to do: screenshot (look at the screen), click / double_click (at x, y), type (text),
   * key (keys, such as "ctrl+s"), scroll (direction and amount, at x, y when given), move (the
   * pointer to x, y), drag (from x, y to to_x, to_y with the left button held), wait (seconds),
   * open (a web page, url, in a browser window on the screen).
   */
  action: ComputerAction;
  /**
   * Pixels from the left edge of the screen (click, double_click, move, drag's start; scroll's
   * position, optional). 0 is the left edge; a screenshot says the screen's width.
   * @TJS-type integer
   * @minimum 0
   * @maximum 3839
   */
  x?: number;
  /**
   * Pixels from the top edge of the screen, as x.
   * @TJS-type integer
   * @minimum 0
   * @maximum 2159
   */
  y?: number;
  /**
   * Where a drag ends, pixels from the left edge.
   * @TJS-type integer
   * @minimum 0
   * @maximum 3839
   */
  to_x?: number;
  /**
   * Where a drag ends, pixels from the top edge.
   * @TJS-type integer
   * @minimum 0
   * @maximum 2159
   */
  to_y?: number;
  /** The mouse button of a click or double_click. Default left. */
  button?: 'left' | 'middle' | 'right';
  /**
   * The text to type (type): typed as a keyboard would, "\n" presses Return.
   * @minLength 1
   * @maxLength 2000
   */
  text?: string;
  /**
   * The keys to press (key): one combination such as "Return", "ctrl+s", "shift+Tab", or a
   * few separated by spaces ("ctrl+a Delete"). X key names: letters, digits, F1-F24, Return,
   * Tab, Escape, BackSpace, Delete, Home, End, Page_Up, Page_Down, Up, Down, Left, Right,
   * space; modifiers ctrl, alt, shift, super.
   * @minLength 1
   * @maxLength 200
   */
  keys?: string;
  /** Which way to scroll (scroll). Default down. */
  direction?: 'up' | 'down' | 'left' | 'right';
  /**
   * How many wheel steps to scroll (scroll). Default 3.
   * @TJS-type integer
   * @minimum 1
   * @maximum 20
   */
  amount?: number;
  /**
   * The page to open (open): a workspace file (such as "site/index.html") or an http(s) URL.
   * Pages reach the network only when the user allowed commands network access.
   * @format workspace-path-or-url
   * @minLength 1
   * @maxLength 2000
   */
  url?: string;
  /**
   * How long to wait (wait), in seconds: for a program to start or a page to load. Default 1.
   * @minimum 0.1
   * @maximum 10
   */
  seconds?: number;
}

const BUTTONS = { left: '1', middle: '2', right: '3' } as const;
const WHEEL = { up: '4', down: '5', left: '6', right: '7' } as const;
/** Windows a description lists at most. */
const MAX_WINDOWS = 20;

/**
 * Use a computer: a virtual screen (an X display of its own, started on first use) that you
 * look at with screenshots and drive with the mouse and keyboard. Start with a screenshot:
 * it shows the screen, gives its size in pixels and lists the open windows with their
 * positions; then click, double_click, type, key, scroll, move or drag at pixel coordinates
 * (x from the left, y from the top), and take another screenshot to see what changed; open
 * shows a web page (a workspace file or an http(s) URL) in a browser window there. Asks the
 * user first by default.
 */
@tool({ name: 'computer_use', version: '1.0.0', kind: 'computer_use', requiresConfirmation: true, domain: 'computer_use', tags: ['computer', 'ported'], runner: 'main', timeoutMs: 60_000 })
export class ComputerUseTool implements Tool<ComputerUseInput, string> {
  async run(args: ComputerUseInput, ctx: ToolContext): Promise<string> {
    // Checked before the display starts: bad input changes nothing, not even that.
    const plan = planAction(args);
    if (args.action === 'open') await checkPageHost(pageUrl(ctx, args.url));
    checkOnScreen(displaySize(), args); // the size a new display gets: no display starts for a point off it
    findXPrograms();
    const display = await displayFor(this, ctx.workspace.realRoot, ctx.sandbox);
    if (args.action === 'screenshot') return screenshot(display, ctx);
    if (args.action === 'open') return openPage(display, pageUrl(ctx, args.url), ctx);
    checkOnScreen(display, args);
    if (args.action === 'wait') {
      await sleep(Math.min((args.seconds ?? 1) * 1000, ctx.deadline === undefined ? Number.POSITIVE_INFINITY : ctx.deadline - Date.now() - 2000), ctx.signal);
    } else {
      const ran = await display.run([findXPrograms().xdotool, ...plan.argv]);
      if (ran.code !== 0) throw new ToolExecutionError(`computer_use: ${args.action} failed (xdotool ${ran.code === null ? 'was stopped' : `exit status ${ran.code}`}: ${ran.stderr.trim().slice(0, 400)}).`);
    }
    const state = await describeScreen(display);
    return `${plan.done}\n${state}\nTake a screenshot to see the result.`;
  }

  /** Stop the displays this instance started (the executor is closing). */
  async close(): Promise<void> {
    await stopDisplaysOf(this);
  }
}

/** The xdotool arguments of an action and what to say when it is done. @throws ToolExecutionError (`INVALID_ARGUMENTS`) for missing or misplaced arguments. */
function planAction(args: ComputerUseInput): { argv: string[]; done: string } {
  const bad = (message: string) => new ToolExecutionError(`computer_use: ${message} Nothing was done.`, 'INVALID_ARGUMENTS');
  const point = (what: string): [string, string] => {
    if (!Number.isInteger(args.x) || !Number.isInteger(args.y)) throw bad(`${what} needs x and y, whole numbers of pixels from the left and top edges.`);
    return [String(args.x), String(args.y)];
  };
  switch (args.action) {
    case 'screenshot':
      return { argv: [], done: '' };
    case 'click':
    case 'double_click': {
      const [x, y] = point(args.action);
      const button = args.button ?? 'left';
      if (!(button in BUTTONS)) throw bad(`button must be left, middle or right; got ${JSON.stringify(String(button).slice(0, 20))}.`);
      const repeat = args.action === 'double_click' ? ['--repeat', '2', '--delay', '80'] : [];
      return { argv: ['mousemove', '--sync', x, y, 'click', ...repeat, BUTTONS[button]], done: `${args.action === 'click' ? 'Clicked' : 'Double-clicked'} ${button} at (${x}, ${y}).` };
    }
    case 'move': {
      const [x, y] = point('move');
      return { argv: ['mousemove', '--sync', x, y], done: `Moved the pointer to (${x}, ${y}).` };
    }
    case 'drag': {
      const [x, y] = point('drag');
      if (!Number.isInteger(args.to_x) || !Number.isInteger(args.to_y)) throw bad('drag needs to_x and to_y, where the drag ends.');
      return {
        argv: ['mousemove', '--sync', x, y, 'mousedown', '1', 'mousemove', '--sync', String(args.to_x), String(args.to_y), 'mouseup', '1'],
        done: `Dragged from (${x}, ${y}) to (${args.to_x}, ${args.to_y}).`,
      };
    }
    case 'type': {
      if (typeof args.text !== 'string' || args.text === '') throw bad('type needs text, at least one character.');
      if (args.text.length > 2000) throw bad(`type takes at most 2000 characters of text; got ${args.text.length}.`);
      return { argv: ['type', '--delay', '12', '--', args.text], done: `Typed ${args.text.length} character(s).` };
    }
    case 'key': {
      const combos = parseKeys(args.keys);
      return { argv: ['key', '--delay', '30', '--', ...combos], done: `Pressed ${combos.join(' ')}.` };
    }
    case 'scroll': {
      const direction = args.direction ?? 'down';
      if (!(direction in WHEEL)) throw bad(`direction must be up, down, left or right; got ${JSON.stringify(String(direction).slice(0, 20))}.`);
      const amount = args.amount ?? 3;
      if (!Number.isInteger(amount) || amount < 1 || amount > 20) throw bad('amount must be a whole number from 1 to 20.');
      const at = args.x === undefined && args.y === undefined ? [] : ['mousemove', '--sync', ...point('scroll at a position')];
      return { argv: [...at, 'click', '--repeat', String(amount), '--delay', '30', WHEEL[direction]], done: `Scrolled ${direction} ${amount} step(s)${at.length ? ` at (${args.x}, ${args.y})` : ''}.` };
    }
    case 'open':
      return { argv: [], done: '' };
    case 'wait': {
      const seconds = args.seconds ?? 1;
      if (typeof seconds !== 'number' || !(seconds >= 0.1 && seconds <= 10)) throw bad('seconds must be from 0.1 to 10.');
      return { argv: [], done: `Waited ${seconds} s.` };
    }
    default:
      throw bad(`unknown action ${JSON.stringify(String((args as { action?: unknown }).action).slice(0, 40))}; use screenshot, click, double_click, type, key, scroll, move, drag, wait or open.`);
  }
}

/** @throws ToolExecutionError (`INVALID_ARGUMENTS`) when a point of the action is off the display. */
function checkOnScreen(display: { width: number; height: number }, args: ComputerUseInput): void {
  for (const [x, y] of [[args.x, args.y], [args.to_x, args.to_y]] as const) {
    if (x === undefined && y === undefined) continue;
    if ((x !== undefined && x >= display.width) || (y !== undefined && y >= display.height)) {
      throw new ToolExecutionError(
        `computer_use: (${x}, ${y}) is off the screen, which is ${display.width}x${display.height} pixels (x 0 to ${display.width - 1}, y 0 to ${display.height - 1}). Nothing was done; take a screenshot to see where things are.`,
        'INVALID_ARGUMENTS',
      );
    }
  }
}

async function screenshot(display: VirtualDisplay, ctx: ToolContext): Promise<string> {
  // To a file of the sandbox's private /tmp, then out: scrot cannot open a socket as its
  // output file, and Node's output pipes are sockets.
  const shot = await display.run(['sh', '-c', '"$SCROT" --overwrite --pointer /tmp/toolgate-screen.png && cat /tmp/toolgate-screen.png'], { SCROT: findXPrograms().scrot });
  const png = shot.stdout;
  if (shot.code !== 0 || png.length < 8 || png.readUInt32BE(0) !== 0x89504e47) {
    throw new ToolExecutionError(`computer_use: the screenshot failed (scrot ${shot.code === null ? 'was stopped' : `exit status ${shot.code}`}: ${shot.stderr.trim().slice(0, 400)}).`);
  }
  ctx.attachImage(`data:image/png;base64,${png.toString('base64')}`);
  const state = await describeScreen(display);
  return (
    `Screenshot of the virtual display, ${display.width}x${display.height} pixels (attached as a PNG image, ${png.length} bytes; x runs 0 to ${display.width - 1} from the left, y 0 to ${display.height - 1} from the top).\n` +
    state
  );
}

/** The screen in words, for every model and for those that cannot see the image: the pointer, the focused window, the visible windows with their titles, positions and sizes. */
async function describeScreen(display: VirtualDisplay): Promise<string> {
  const script = [
    'X="$XDOTOOL"',
    `for w in $("$X" search --onlyvisible --maxdepth 2 --name '' 2>/dev/null | head -n ${MAX_WINDOWS}); do`,
    '  printf "W %s " "$w"; "$X" getwindowgeometry --shell "$w" 2>/dev/null | tr "\\n" " "; printf "NAME="; "$X" getwindowname "$w" 2>/dev/null | head -c 200 | tr "\\n\\t" "  "; echo',
    'done',
    'printf "F "; "$X" getwindowfocus 2>/dev/null; echo',
    'printf "P "; "$X" getmouselocation --shell 2>/dev/null | tr "\\n" " "; echo',
  ].join('\n');
  const ran = await display.run(['sh', '-c', script], { XDOTOOL: findXPrograms().xdotool });
  const text = ran.stdout.toString('utf8');
  const focus = /^F (\d+)/m.exec(text)?.[1];
  const mouse = /^P X=(\d+) Y=(\d+)/m.exec(text);
  const pointer = { x: mouse?.[1], y: mouse?.[2] };
  const windows: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^W (\d+) .*?X=(-?\d+) Y=(-?\d+) WIDTH=(\d+) HEIGHT=(\d+) .*?NAME=(.*)$/.exec(line);
    if (m === null) continue;
    const [, id, x, y, w, h, name] = m;
    // Unnamed windows are the root and programs' helper windows, not what a person sees.
    if (name!.trim() === '' || Number(w) <= 1 || Number(h) <= 1) continue;
    windows.push(`- ${JSON.stringify(name!.trim())} at (${x}, ${y}), ${w}x${h}${id === focus ? ', focused' : ''}`);
  }
  const lines = [`Pointer at (${pointer.x ?? '?'}, ${pointer.y ?? '?'}).`];
  lines.push(windows.length === 0 ? 'No windows are open (an empty screen).' : `Windows (${windows.length}${windows.length >= MAX_WINDOWS ? ', more not listed' : ''}):\n${windows.join('\n')}`);
  return lines.join('\n');
}

/**
 * The URL of the page `open` shows: a workspace file as a `file://` URL of its real path, or
 * an http(s) URL as given.
 * @throws PathTraversalError for a path outside the workspace; ToolExecutionError
 *   (`INVALID_ARGUMENTS`) for a missing file, a folder, or another URL scheme.
 */
function pageUrl(ctx: ToolContext, url: string | undefined): string {
  const bad = (message: string) => new ToolExecutionError(`computer_use: ${message} Nothing was opened.`, 'INVALID_ARGUMENTS');
  if (typeof url !== 'string' || url.trim() === '') throw bad('open needs url: a workspace file such as "site/index.html" or an http(s) URL.');
  if (/^https?:\/\//i.test(url.trim())) {
    try {
      return new URL(url.trim()).href;
    } catch {
      throw bad(`${JSON.stringify(url.slice(0, 100))} is not a valid URL.`);
    }
  }
  if (/^[a-z][a-z0-9+.-]+:/i.test(url.trim())) throw bad(`${JSON.stringify(url.slice(0, 60))} is neither a workspace file nor an http(s) URL.`);
  const file = ctx.workspace.resolve(url);
  let isFile = false;
  try {
    isFile = fs.statSync(file).isFile();
  } catch {
    throw bad(`${url.slice(0, 200)} does not exist in the workspace.`);
  }
  if (!isFile) throw bad(`${url.slice(0, 200)} is not a file.`);
  return pathToFileURL(file).href;
}

/**
 * Refuse a page whose host is not a public address, as `http_request` does (case N1, the
 * allowlist of `TOOLGATE_NET_ALLOW` included), before anything starts: a clear error for the
 * model. The guarantee is the egress proxy's (browser-launch.ts), which judges every connection
 * the browser makes afterwards, redirects and the page's own requests included.
 * @throws ToolExecutionError (`INVALID_ARGUMENTS`) for a local, private or unresolvable host.
 */
async function checkPageHost(url: string): Promise<void> {
  const parsed = new URL(url);
  if (parsed.protocol === 'file:') return;
  const host = normalHost(parsed.hostname);
  const allow = netAllowlistFromEnv();
  let addresses: string[];
  if (net.isIP(host) !== 0) addresses = [host];
  else if (host === 'localhost' || host.endsWith('.localhost')) addresses = ['127.0.0.1'];
  else {
    try {
      addresses = (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch (error) {
      throw new ToolExecutionError(`computer_use: the host ${host.slice(0, 100)} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'}). Nothing was opened.`, 'INVALID_ARGUMENTS');
    }
  }
  for (const address of addresses) {
    const blocked = addressVerdict(host, address, allow, parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port));
    if (blocked !== undefined) {
      throw new ToolExecutionError(`computer_use: ${parsed.host.slice(0, 100)} is a local or private address (${address}: ${blocked}); open shows public pages and workspace files only (an operator allows more with TOOLGATE_NET_ALLOW). Nothing was opened.`, 'INVALID_ARGUMENTS');
    }
  }
}

/**
 * Open `url` in a browser window at the top left of the screen, and wait until it has a window
 * (at most 20 s). Every connection the browser then makes is judged at connect time (browser-launch.ts).
 * @throws ToolExecutionError when the browser (or, sandboxed, its egress forwarder) exits
 *   before any window shows, with the last lines it wrote: a failed start is an error, not a
 *   blank screen.
 */
async function openPage(display: VirtualDisplay, url: string, ctx: ToolContext): Promise<string> {
  const launch = await browserLaunch(display, url, ctx.sandbox);
  const child = display.open(launch.argv, launch.policy, launch.readOnly);
  let errors = '';
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (errors = (errors + s).slice(-4000)));
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const until = Math.min(Date.now() + 20_000, ctx.deadline === undefined ? Number.POSITIVE_INFINITY : ctx.deadline - 3000);
  let state = await describeScreen(display);
  while (!/^Windows/m.test(state) && Date.now() < until && !ctx.signal.aborted) {
    const gone = exited();
    if (!gone) await sleep(250, ctx.signal);
    state = await describeScreen(display);
    if (gone && !/^Windows/m.test(state)) {
      const tail = errors.trim().split('\n').filter((l) => l.trim() !== '').slice(-3).join(' | ').slice(0, 600);
      throw new ToolExecutionError(`computer_use: the browser did not start: it exited (${child.signalCode ?? `status ${child.exitCode}`}) before showing a window${tail ? `: ${tail}` : ' and wrote nothing'}. Nothing was opened.`);
    }
  }
  return `Opened ${url} in a browser window.\n${state}\nTake a screenshot to see it.`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (!(ms > 0) || signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
