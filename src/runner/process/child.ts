/**
 * Entry of the process runner's child processes. It imports the tool modules the host names
 * in its first argument (a JSON list: tools that already answered in this runner), reports
 * `ready`, then runs one call at a time as the host sends them and replies with plain data.
 * When the host's IPC channel closes, the child exits; a host killed with SIGKILL takes the
 * child with it through the parent-death signal the runner sets (see `process-runner.ts`).
 *
 * @module
 */
import { isThenable } from '../../util/values.js';
import { CallContext } from '../call-context.js';
import { serializeError } from '../runner.js';
import { failureReply, loadTool, successReply, type LoadedTool, type ToolEntry, type ToolReply } from '../tool-host.js';
import { CLIENT, READY, REPLIED, STARTED, UNSENDABLE, type ChildMessage, type ChildTask, type ClientReplyMessage, type PreloadMessage } from './protocol.js';
import { isClientReply, RelayedClient } from '../client-relay.js';

/** The client of the call running now (one call at a time per child), if it has one. */
let relayed: RelayedClient | undefined;

const TAG = `p${process.pid}`;
/** Longest wait for the initial preloads before the child says it is ready, in ms. */
const PRELOAD_WAIT_MS = 5000;

/** Loaded tools by module, export and key. */
const loaded = new Map<string, LoadedTool>();

function keyOf(entry: ToolEntry): string {
  return `${entry.m}\n${entry.e}\n${entry.k}`;
}

function send(message: ChildMessage): void {
  try {
    process.send!(message);
  } catch (error) {
    // A reply that cannot be copied (functions, symbols...): say so instead.
    if (Array.isArray(message) && message[1] === REPLIED) {
      process.send!([message[0], UNSENDABLE, `its return value cannot be sent from the child process (${(error as Error).message}); return plain data: strings, numbers, booleans, arrays and plain objects`]);
    }
  }
}

function preload(urls: readonly string[]): Promise<unknown> {
  return Promise.all(urls.map((url) => import(url).catch(() => undefined)));
}

function run(task: ChildTask): void {
  const [seq, entry] = task;
  const tool = loaded.get(keyOf(entry));
  if (tool !== undefined) {
    start(tool, task);
    return;
  }
  loadTool(entry).then(
    (fresh) => {
      loaded.set(keyOf(entry), fresh);
      send([seq, STARTED]);
      start(fresh, task);
    },
    (error: unknown) => send([seq, REPLIED, { ok: false, error: serializeError(error), loadFailed: true }]),
  );
}

function start(tool: LoadedTool, task: ChildTask): void {
  const [seq, entry, args, callId, root, deadline, writeRoots, fullOutputDir, sandbox, traceparent, methods, pathFilter] = task;
  const ctx = new CallContext(callId, tool.name, tool.version, root, false, entry.o, writeRoots, deadline > 0 ? deadline : undefined, sandbox);
  if (traceparent !== undefined) ctx.traceparent = traceparent;
  if (pathFilter !== undefined) ctx.pathFilter = pathFilter;
  if (methods !== undefined) {
    // IPC keeps order: the host has every client message of the call before its reply.
    relayed = new RelayedClient(String(seq), methods, (message) => send([seq, CLIENT, message]));
    ctx.client = relayed;
  }
  const reply = (value: ToolReply) => {
    if (relayed !== undefined && ctx.client === relayed) relayed = undefined;
    send([seq, REPLIED, value]);
  };
  let returned: unknown;
  try {
    returned = tool.instance.run(args as never, ctx);
  } catch (error) {
    reply(failureReply(error, ctx, entry));
    return;
  }
  if (!isThenable(returned)) {
    reply(successReply(returned, ctx, entry, callId, fullOutputDir, TAG));
    return;
  }
  Promise.resolve(returned).then(
    (value) => reply(successReply(value, ctx, entry, callId, fullOutputDir, TAG)),
    (error: unknown) => reply(failureReply(error, ctx, entry)),
  );
}

process.on('disconnect', () => process.exit(0));
process.on('message', (message: ChildTask | PreloadMessage | ClientReplyMessage) => {
  if (Array.isArray(message)) run(message);
  else if (message !== null && typeof message === 'object' && 'clientReply' in message) {
    if (isClientReply(message.clientReply)) relayed?.receive(message.clientReply);
  }
  else if (message !== null && typeof message === 'object' && Array.isArray(message.preload)) void preload(message.preload);
});

let initial: string[] = [];
try {
  const parsed: unknown = JSON.parse(process.argv[2] ?? '[]');
  if (Array.isArray(parsed)) initial = parsed.filter((url): url is string => typeof url === 'string');
} catch {
  // no preloads
}
// A preloaded module that never finishes loading must not keep the child from taking calls.
await Promise.race([preload(initial), new Promise((resolve) => setTimeout(resolve, PRELOAD_WAIT_MS).unref())]);
send(READY);
