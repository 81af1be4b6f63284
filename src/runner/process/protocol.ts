/**
 * What crosses between the process runner and its child processes, over Node's IPC channel
 * (advanced serialization: the structured clone worker threads use). Private to
 * `runner/process/`.
 *
 * @module
 */
import type { SandboxPolicy } from '../../sandbox/bubblewrap.js';
import type { PathFilterSpec } from '../../workspace/path-filter.js';
import type { ToolEntry, ToolReply } from '../tool-host.js';
import type { ClientMessage, ClientReply } from '../client-relay.js';

/** A call as sent to a child: an array, copied without field names. */
export type ChildTask = [
  /** The call's number in this runner, echoed in every message about it. */
  seq: number,
  tool: ToolEntry,
  /** Validated arguments. */
  args: unknown,
  callId: string,
  workspaceRoot: string,
  /** When the call will be stopped (epoch ms); 0 for no time limit. */
  deadline: number,
  /** Real paths of the folders writes are confined to (scoped writes), if any. */
  writeRoots: string[] | undefined,
  /** Folder where the child keeps the whole output when it cuts it, if anywhere. */
  fullOutputDir: string | undefined,
  /** How processes the tool starts are confined (`ctx.sandbox`), when not the default. */
  sandbox: SandboxPolicy | undefined,
  /** W3C trace context of the call's span (OpenTelemetry), if traced. */
  traceparent?: string | undefined,
  /** What the caller's client offers (`clientMethods`), when the call has one. */
  client?: number,
  /** The call's path rules (`ctx.workspace.withholds()`), when policy files count. */
  pathFilter?: PathFilterSpec,
];

/** Tool modules a child should import now, so later calls of their tools start at once. */
export interface PreloadMessage {
  preload: string[];
}

/** Sent once, when the child has loaded its code and its preloads and takes calls. */
export const READY = 'ready';
/** `[seq, STARTED]`: the tool's module has loaded and the tool is about to run (sent only when the call had to load it). */
export const STARTED = 0;
/** `[seq, REPLIED, reply]`: the call ended. */
export const REPLIED = 1;
/** `[seq, UNSENDABLE, message]`: the call ended but its reply cannot be copied to the host. */
export const UNSENDABLE = 2;

/** `[seq, CLIENT, message]`: the tool called `ctx.progress`, `ctx.log`, `ctx.elicit` or `ctx.sample`. */
export const CLIENT = 3;

/** A child's message. */
export type ChildMessage =
  | typeof READY
  | [seq: number, kind: typeof STARTED]
  | [seq: number, kind: typeof REPLIED, reply: ToolReply]
  | [seq: number, kind: typeof UNSENDABLE, message: string]
  | [seq: number, kind: typeof CLIENT, message: ClientMessage];

/** The host's answer to a child's elicit or sample message. */
export interface ClientReplyMessage {
  clientReply: ClientReply;
}
