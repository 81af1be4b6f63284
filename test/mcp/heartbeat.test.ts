/**
 * A call that goes quiet keeps its MCP client waiting: while a call whose client sent a progress
 * token runs without progress for `heartbeatMs`, the server sends a progress notification saying
 * it still runs, with a `progress` that only grows and stays below the tool's next whole value,
 * until the result, and never after it. Driven by the SDK `Client` over the in-memory transport
 * with a short interval (20 ms) and tools that wait for the test to let them end: the test counts
 * notifications and checks their order, never elapsed time. Before the heartbeat, a silent call
 * sent nothing between its last output and its result (the first wait below timed out).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, ToolgateOptionError, ToolRegistry, ToolSystem, type ToolContext } from 'toolgate';
import { buildToolDescriptor } from '../../src/decorators/tool.decorator.js';
import { inMemoryTransport, tempWorkspace } from '../helpers.js';
import { waitFor } from '../wait.js';

const INPUT = { type: 'object', properties: { gate: { type: 'string' } }, required: ['gate'], additionalProperties: false };
const HEARTBEAT = /^still running, \d+ s, no new output or progress for \d+ s$/;

/** Gates the tool waits on, by name: the test opens one to let its call end. */
const gates = new Map<string, () => void>();
function gate(name: string): Promise<void> {
  return new Promise((resolve) => gates.set(name, resolve));
}

describe('MCP heartbeat of a call that sends no progress', () => {
  const tmp = tempWorkspace();
  let system: ToolSystem;
  let client: Client;
  const errors: string[] = [];
  before(async () => {
    const registry = new ToolRegistry();
    // Reports 5 (say five characters of output), then goes quiet until its gate opens, then reports 6.
    const target = class {
      async run(args: { gate: string }, ctx: ToolContext) {
        ctx.progress(5);
        await gate(args.gate);
        ctx.progress(6);
        return 'done';
      }
    };
    registry.register(
      buildToolDescriptor({ name: 'quiet_tool', kind: 'internal', readOnly: true, version: '1.0.0', runner: 'main' }, target),
      { name: 'quiet_tool', version: '1.0.0', description: 'quiet', className: 'T', source: 'test', inputSchema: INPUT, outputSchema: null },
      { foreignSchemas: true },
    );
    system = new ToolSystem({ registry, workspace: tmp.ws, executor: { outputStore: false, sweepLeftovers: false } });
    const server = createMcpServer({ system, workspaceRoot: tmp.ws, tasks: false, heartbeatMs: 20 });
    client = new Client({ name: 'heartbeat', version: '1.0.0' }, { capabilities: {} });
    // A progress notification for a call whose result came already names a token the SDK forgot.
    client.onerror = (error) => errors.push(error.message);
    await client.connect(await inMemoryTransport(server));
  });
  after(async () => {
    for (const open of gates.values()) open();
    await client.close();
    await system.close();
    tmp.cleanup();
  });

  /** Start a call of quiet_tool with a progress token; its progress is collected in order. */
  function call(name: string): { progress: Progress[]; result: Promise<CallToolResult> } {
    const progress: Progress[] = [];
    const result = client.callTool({ name: 'quiet_tool', arguments: { gate: name } }, undefined, { onprogress: (p) => progress.push(p) }) as Promise<CallToolResult>;
    return { progress, result };
  }
  const beats = (progress: Progress[]) => progress.filter((p) => p.message !== undefined && HEARTBEAT.test(p.message)).length;

  test('heartbeats while the call is quiet, growing progress, the tool\'s own value kept, none after the result', async () => {
    const first = call('first');
    await waitFor(() => beats(first.progress) >= 3, { what: 'three heartbeats', seen: () => JSON.stringify(first.progress) });
    gates.get('first')!();
    const result = await first.result;
    assert.equal(result.isError, undefined, JSON.stringify(result));
    const seen = first.progress;
    assert.deepEqual(seen[0], { progress: 5 }, 'the tool\'s own progress first');
    assert.deepEqual(seen.at(-1), { progress: 6 }, 'the tool\'s next value is sent as it is, after the heartbeats');
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.progress > seen[i - 1]!.progress, `progress grows: ${JSON.stringify(seen)}`);
    for (const p of seen.slice(1, -1)) {
      assert.match(p.message ?? '', HEARTBEAT);
      assert.ok(p.progress > 5 && p.progress < 6, `a heartbeat stays below the tool's next value: ${p.progress}`);
    }

    // A second call waits through heartbeats of its own: had the first call's timer outlived its
    // result, its notifications (an unknown token by now) would have come meanwhile.
    const second = call('second');
    await waitFor(() => beats(second.progress) >= 3, { what: 'three heartbeats of the second call' });
    gates.get('second')!();
    await second.result;
    assert.deepEqual(errors, [], 'no progress for a call whose result came');
  });

  test('a call without a progress token gets no heartbeat', async () => {
    const quiet = client.callTool({ name: 'quiet_tool', arguments: { gate: 'untokened' } });
    await waitFor(() => gates.has('untokened'), { what: 'the call to wait at its gate' });
    // Heartbeats of a token-carrying call run meanwhile; none come for the untokened one.
    const other = call('other');
    await waitFor(() => beats(other.progress) >= 3, { what: 'three heartbeats of the other call' });
    gates.get('untokened')!();
    gates.get('other')!();
    await Promise.all([quiet, other.result]);
    assert.deepEqual(errors, []);
  });

  test('heartbeatMs must be a whole number of milliseconds, 0 or more', () => {
    for (const bad of [-1, 1.5, Number.NaN]) {
      assert.throws(() => createMcpServer({ system, tasks: false, heartbeatMs: bad }), ToolgateOptionError);
    }
  });
});
