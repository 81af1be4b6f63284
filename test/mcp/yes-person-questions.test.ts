/**
 * `toolgate mcp --yes` and a question only a person answers (a protected path's: `.git`):
 * `--yes` answers ordinary questions in advance, and puts the person-only one to the client's
 * person at once, as without `--yes`: a 2026-07-28 client with form elicitation gets an
 * input-required result (answered in its retry), a 2025-11-25 client `elicitation/create`.
 * Before, a 2026-07-28 client's question waited in the ledger (45 s) for `toolgate approvals`
 * and then failed, the client never asked: each test's timeout is under that wait, so a
 * question that does not arrive fails the test. Without elicitation and without a ledger the
 * refusal says --yes does not answer the question (not "restart with --yes"). Against the
 * built `toolgate mcp` over HTTP and stdio; the servers are stopped and the folders removed.
 */
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, ToolSystem } from 'toolgate';
import { BIN, fixtureRegistry, inMemoryTransport } from '../helpers.js';
import { mcpFolders, startHttpCommand, type HttpCommand } from './http-command.js';
import { callModern, CONFIRM_KEY, MODERN } from './input-required-helpers.js';

/** Under the ledger's 45 s wait: a question that waits there instead of reaching the client fails the test. */
const UNDER_THE_WAIT = { timeout: 30_000 };

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('toolgate mcp --yes: a question only a person answers goes to the client\'s person at once', () => {
  let folders: ReturnType<typeof mcpFolders>;
  let env: NodeJS.ProcessEnv;
  let served: HttpCommand;
  const token = randomBytes(24).toString('base64url');
  const clients: Client[] = [];
  const read = (rel: string) => (fs.existsSync(path.join(folders.ws, rel)) ? fs.readFileSync(path.join(folders.ws, rel), 'utf8') : undefined);

  before(async () => {
    folders = mcpFolders('toolgate-mcp-yes-');
    // No policy or profile of the machine's user.
    env = { ...process.env, HOME: path.join(folders.root, 'home'), XDG_CONFIG_HOME: path.join(folders.root, 'config') };
    served = await startHttpCommand(['--workspace', folders.ws, '--state-dir', folders.state, '--yes'], { ...env, TOOLGATE_MCP_TOKEN: token });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    if (served !== undefined && served.child.exitCode === null) {
      const exited = new Promise((resolve) => served.child.once('exit', resolve));
      served.child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(folders.root, { recursive: true, force: true });
  });

  /** Raw 2026-07-28 requests (input-required-helpers.ts) sent to the running server, with its token. */
  const overHttp = () => ({
    fetch: async (request: Request) => fetch(served.url, {
      method: request.method, body: await request.text(),
      headers: { ...Object.fromEntries(request.headers.entries()), authorization: `Bearer ${token}` },
    }),
  }) as unknown as McpHttpHandler;

  test('2026-07-28, form elicitation: the protected path\'s question is an input-required result at once; yes in the retry writes, no writes nothing', UNDER_THE_WAIT, async () => {
    for (const approve of [true, false]) {
      const args = { filepath: `.git/${approve ? 'yes' : 'no'}.txt`, content: 'by the person\n' };
      const first = await callModern(overHttp(), { name: 'write_file', arguments: args });
      assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
      const asked = first.result!.inputRequests![CONFIRM_KEY]!;
      assert.equal(asked.method, 'elicitation/create');
      assert.match(asked.params.message, /write_file/);
      assert.match(asked.params.message, /\.git/);
      assert.match(asked.params.message, /question \d+/);
      assert.equal(read(args.filepath), undefined, 'nothing ran before the answer');
      const answer = approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
      const retried = await callModern(overHttp(), { name: 'write_file', arguments: args, inputResponses: { [CONFIRM_KEY]: answer }, requestState: first.result!.requestState });
      assert.equal(retried.error, undefined, JSON.stringify(retried));
      if (approve) {
        assert.equal(retried.result?.isError, undefined, JSON.stringify(retried));
        assert.equal(read(args.filepath), 'by the person\n');
      } else {
        assert.equal(retried.result?.isError, true, JSON.stringify(retried));
        assert.match(retried.result!.content![0]!.text, /denied/i);
        assert.equal(read(args.filepath), undefined);
      }
    }
  });

  test('2026-07-28, form elicitation: an ordinary write runs without a question (--yes answers it)', UNDER_THE_WAIT, async () => {
    const done = await callModern(overHttp(), { name: 'write_file', arguments: { filepath: 'plain.txt', content: 'plain\n' } });
    assert.equal(done.result?.resultType, 'complete', JSON.stringify(done));
    assert.equal(done.result?.isError, undefined, JSON.stringify(done));
    assert.equal(read('plain.txt'), 'plain\n');
  });

  test('the SDK client pinned to 2026-07-28 is asked through its elicitation handler for the protected path only, and its yes writes', UNDER_THE_WAIT, async () => {
    const asked: string[] = [];
    const client = new Client({ name: 'yes-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } });
    clients.push(client);
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { approve: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    const plain = (await client.callTool({ name: 'write_file', arguments: { filepath: 'sdk-plain.txt', content: 'p\n' } })) as CallToolResult;
    assert.notEqual(plain.isError, true, text(plain));
    assert.deepEqual(asked, [], 'an ordinary write asked');
    const guarded = (await client.callTool({ name: 'write_file', arguments: { filepath: '.git/sdk.txt', content: 'g\n' } })) as CallToolResult;
    assert.notEqual(guarded.isError, true, text(guarded));
    assert.equal(asked.length, 1);
    assert.match(asked[0]!, /\.git/);
    assert.equal(read('.git/sdk.txt'), 'g\n');
  });

  for (const approve of [true, false]) {
    test(`2025-11-25 over stdio: the protected path's question is elicitation/create; ${approve ? 'yes writes' : 'no writes nothing'}, an ordinary write asks nothing`, UNDER_THE_WAIT, async () => {
      const asked: string[] = [];
      const client = new Client({ name: 'yes-legacy', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
      clients.push(client);
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(String((request.params as { message: string }).message));
        return approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
      });
      const state = path.join(folders.root, `stdio-state-${approve}`);
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', folders.ws, '--state-dir', state, '--yes'], stderr: 'pipe', env: { ...getDefaultEnvironment(), HOME: env.HOME!, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME!, XDG_STATE_HOME: process.env.XDG_STATE_HOME! } }));
      assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
      const plainFile = `legacy-plain-${approve}.txt`;
      const plain = (await client.callTool({ name: 'write_file', arguments: { filepath: plainFile, content: 'p\n' } })) as CallToolResult;
      assert.notEqual(plain.isError, true, text(plain));
      assert.deepEqual(asked, [], 'an ordinary write asked');
      const file = `.git/legacy-${approve}.txt`;
      const guarded = (await client.callTool({ name: 'write_file', arguments: { filepath: file, content: 'g\n' } })) as CallToolResult;
      assert.equal(asked.length, 1, text(guarded));
      assert.match(asked[0]!, /\.git/);
      if (approve) {
        assert.notEqual(guarded.isError, true, text(guarded));
        assert.equal(read(file), 'g\n');
      } else {
        assert.equal(guarded.isError, true, text(guarded));
        assert.equal(read(file), undefined);
      }
      await client.close();
    });
  }

  test('a client without elicitation and no ledger: refused at once, saying --yes does not answer the question (not "restart with --yes")', UNDER_THE_WAIT, async () => {
    const client = new Client({ name: 'yes-no-elicitation', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', folders.ws, '--no-ledger', '--yes'], stderr: 'pipe', env: { ...getDefaultEnvironment(), HOME: env.HOME!, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME!, XDG_STATE_HOME: process.env.XDG_STATE_HOME! } }));
    const refused = (await client.callTool({ name: 'write_file', arguments: { filepath: '.git/nobody.txt', content: 'n\n' } })) as CallToolResult;
    assert.equal(refused.isError, true, text(refused));
    assert.equal((refused._meta as Record<string, unknown> | undefined)?.['toolgate/errorCode'], 'CONFIRMATION_REQUIRED', JSON.stringify(refused));
    assert.match(text(refused), /protected path/);
    assert.match(text(refused), /does not answer this question/);
    assert.doesNotMatch(text(refused), /with --yes \(approves/);
    assert.equal(read('.git/nobody.txt'), undefined);
    await client.close();
  });
});

describe('createMcpServer({ yes: true }): a person-only question nobody answers in time', () => {
  test('a client without elicitation: the question waits in the ledger, and the refusal does not send the person to --yes', UNDER_THE_WAIT, async () => {
    const folders = mcpFolders('toolgate-mcp-yes-wait-');
    const system = new ToolSystem({ registry: await fixtureRegistry(), workspace: folders.ws, executor: { ledger: { dir: folders.state }, outputStore: false, sweepLeftovers: false } });
    const client = new ClientV1({ name: 'no-elicitation', version: '1.0.0' }, { capabilities: {} });
    try {
      await client.connect(await inMemoryTransport(createMcpServer({ system, workspaceRoot: folders.ws, yes: true, answerWaitMs: 300, tasks: false })));
      const plain = (await client.callTool({ name: 'write_file', arguments: { filepath: 'plain.txt', content: 'p\n' } })) as CallToolResult;
      assert.notEqual(plain.isError, true, text(plain));
      const late = (await client.callTool({ name: 'write_file', arguments: { filepath: '.git/late.txt', content: 'l\n' } })) as CallToolResult;
      assert.equal(late.isError, true, text(late));
      assert.equal(late._meta?.['toolgate/errorCode'], 'CONFIRMATION_REQUIRED');
      assert.match(text(late), /nobody answered question \d+ within 300 ms/);
      assert.match(text(late), /toolgate approvals allow ID/);
      assert.match(text(late), /does not answer this question/);
      assert.doesNotMatch(text(late), /with --yes \(approves/);
      assert.equal(fs.existsSync(path.join(folders.ws, '.git', 'late.txt')), false);
    } finally {
      await client.close();
      await system.close();
      fs.rmSync(folders.root, { recursive: true, force: true });
    }
  });
});

describe('createMcpServer({ yes: true }): the other questions only a person answers', () => {
  test('the always-ask approval mode, a 2026-07-28 client: every call is an input-required result; yes in the retry runs it', UNDER_THE_WAIT, async () => {
    const folders = mcpFolders('toolgate-mcp-yes-fresh-');
    const system = new ToolSystem({ registry: await fixtureRegistry(), workspace: folders.ws, executor: { approvalMode: 'always-ask', ledger: { dir: folders.state }, outputStore: false, sweepLeftovers: false } });
    try {
      const handler = createMcpHandler((ctx) => createMcpServer({ system, workspaceRoot: folders.ws, yes: true, tasks: false }, { era: ctx.era }));
      const args = { filepath: 'fresh.txt', content: 'f\n' };
      const first = await callModern(handler, { name: 'write_file', arguments: args });
      assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
      assert.equal(fs.existsSync(path.join(folders.ws, 'fresh.txt')), false);
      const retried = await callModern(handler, { name: 'write_file', arguments: args, inputResponses: { [CONFIRM_KEY]: { action: 'accept', content: { approve: true } } }, requestState: first.result!.requestState });
      assert.equal(retried.result?.isError, undefined, JSON.stringify(retried));
      assert.equal(fs.readFileSync(path.join(folders.ws, 'fresh.txt'), 'utf8'), 'f\n');
    } finally {
      await system.close();
      fs.rmSync(folders.root, { recursive: true, force: true });
    }
  });

  test('a 2025 client whose elicitation fails: refused, and the text does not send the person to --yes', UNDER_THE_WAIT, async () => {
    const folders = mcpFolders('toolgate-mcp-yes-failed-');
    const system = new ToolSystem({ registry: await fixtureRegistry(), workspace: folders.ws, executor: { ledger: false, outputStore: false, sweepLeftovers: false } });
    const client = new ClientV1({ name: 'elicitation-fails', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked += 1;
      throw new Error('no person behind this client');
    });
    try {
      await client.connect(await inMemoryTransport(createMcpServer({ system, workspaceRoot: folders.ws, yes: true, tasks: false })));
      const refused = (await client.callTool({ name: 'write_file', arguments: { filepath: '.git/failed.txt', content: 'x\n' } })) as CallToolResult;
      assert.equal(asked, 1);
      assert.equal(refused.isError, true, text(refused));
      assert.equal(refused._meta?.['toolgate/errorCode'], 'CONFIRMATION_REQUIRED');
      assert.match(text(refused), /asking through this MCP client failed/);
      assert.match(text(refused), /does not answer this question/);
      assert.doesNotMatch(text(refused), /with --yes \(approves/);
      assert.equal(fs.existsSync(path.join(folders.ws, '.git', 'failed.txt')), false);
    } finally {
      await client.close();
      await system.close();
      fs.rmSync(folders.root, { recursive: true, force: true });
    }
  });
});
