/**
 * Relaying a call's {@link ToolClient} (`ctx.progress`, `ctx.log`, `ctx.elicit`, `ctx.sample`)
 * from where a tool runs (a pool worker, a child process) to the main thread, where the caller's
 * handlers live. Each runner supplies the wire (a `BroadcastChannel` for the pool, the IPC
 * channel for child processes); this module owns the message shapes and both ends:
 * - {@link RelayedClient} (tool side): a `ToolClient` whose calls become {@link ClientMessage}s
 *   and whose `elicit`/`sample` wait for the matching {@link ClientReply};
 * - {@link answerClientMessage} (main side): run one message against the caller's client.
 *
 * Only calls whose caller gave a client pay for any of this: the task then carries
 * {@link clientMethods}, a bit set of what the client offers, so a tool asking for what is
 * not offered is answered at once, without a round trip.
 *
 * @module
 */
import { ToolExecutionError } from '../errors/errors.js';
import type { ElicitAnswer, JsonSchema, SampleAnswer, SampleRequest, ToolClient, ToolLogLevel } from '../types/tool.js';

/** Bits of {@link clientMethods}. */
const PROGRESS = 1;
const LOG = 2;
const ELICIT = 4;
const SAMPLE = 8;

/** What `client` offers, as a bit set (0 for no client). */
export function clientMethods(client: ToolClient | undefined): number {
  if (client === undefined) return 0;
  return (client.progress ? PROGRESS : 0) | (client.log ? LOG : 0) | (client.elicit ? ELICIT : 0) | (client.sample ? SAMPLE : 0);
}

/** A message from where a tool runs: `[key, method, arguments, request number (elicit/sample)]`. */
export type ClientMessage = [key: string, method: 'progress' | 'log' | 'elicit' | 'sample' | 'end', args: unknown[], request?: number];

/** The answer to an elicit or sample message: `[key, request number, ok, value or error message, error code]`. */
export type ClientReply = [key: string, request: number, ok: boolean, value: unknown, code?: string];

/** Whether `value` is a {@link ClientMessage}. */
export function isClientMessage(value: unknown): value is ClientMessage {
  return Array.isArray(value) && value.length >= 3 && typeof value[0] === 'string' && typeof value[1] === 'string' && Array.isArray(value[2]);
}

/** Whether `value` is a {@link ClientReply}. */
export function isClientReply(value: unknown): value is ClientReply {
  return Array.isArray(value) && value.length >= 4 && typeof value[0] === 'string' && typeof value[1] === 'number' && typeof value[2] === 'boolean';
}

/**
 * The tool side: a {@link ToolClient} that posts its calls and waits for replies. One per call;
 * `receive` every reply that arrives on the wire (replies for other keys are ignored).
 */
export class RelayedClient implements ToolClient {
  private next = 0;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  readonly progress?: ToolClient['progress'];
  readonly log?: ToolClient['log'];
  readonly elicit?: ToolClient['elicit'];
  readonly sample?: ToolClient['sample'];

  constructor(
    /** The call's key on the wire. */
    readonly key: string,
    methods: number,
    private readonly post: (message: ClientMessage) => void,
  ) {
    if (methods & PROGRESS) this.progress = (done, total, message) => this.post([key, 'progress', [done, total, message]]);
    if (methods & LOG) this.log = (level: ToolLogLevel, data: unknown) => this.post([key, 'log', [level, data]]);
    if (methods & ELICIT) this.elicit = (message: string, schema: JsonSchema) => this.request('elicit', [message, schema]) as Promise<ElicitAnswer>;
    if (methods & SAMPLE) this.sample = (request: SampleRequest) => this.request('sample', [request]) as Promise<SampleAnswer>;
  }

  /** Settle the request a reply answers (when it is this call's). */
  receive(reply: ClientReply): void {
    if (reply[0] !== this.key) return;
    const waiting = this.pending.get(reply[1]);
    if (waiting === undefined) return;
    this.pending.delete(reply[1]);
    if (reply[2]) waiting.resolve(reply[3]);
    else waiting.reject(new ToolExecutionError(String(reply[3]), (reply[4] ?? 'TOOL_ERROR') as never));
  }

  /** Say that the call ended: the main side has every message of it once this arrives (wires that keep order). */
  end(): void {
    try {
      this.post([this.key, 'end', []]);
    } catch {
      // the wire is gone: the main side stops waiting by itself
    }
  }

  private request(method: 'elicit' | 'sample', args: unknown[]): Promise<unknown> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        this.post([this.key, method, args, id]);
      } catch (error) {
        this.pending.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }
}

/**
 * The main side: run one message against the caller's client.
 * @returns the reply to send back for `elicit`/`sample`, `undefined` for `progress`/`log`.
 */
export async function answerClientMessage(client: ToolClient, message: ClientMessage, tool: string, signal: AbortSignal): Promise<ClientReply | undefined> {
  const [key, method, args, request] = message;
  try {
    switch (method) {
      case 'progress':
        client.progress?.(args[0] as number, args[1] as number | undefined, args[2] as string | undefined);
        return undefined;
      case 'log':
        client.log?.(args[0] as ToolLogLevel, args[1], tool);
        return undefined;
      case 'elicit':
        if (client.elicit === undefined) throw new ToolExecutionError('the caller cannot elicit', 'CLIENT_UNAVAILABLE');
        return [key, request ?? 0, true, await client.elicit(args[0] as string, args[1] as JsonSchema, signal)];
      case 'sample':
        if (client.sample === undefined) throw new ToolExecutionError('the caller cannot sample', 'CLIENT_UNAVAILABLE');
        return [key, request ?? 0, true, await client.sample(args[0] as SampleRequest, signal)];
      default:
        return undefined;
    }
  } catch (error) {
    if (request === undefined) return undefined;
    const code = (error as { code?: unknown })?.code;
    return [key, request, false, (error as Error)?.message ?? String(error), typeof code === 'string' ? code : 'TOOL_ERROR'];
  }
}
