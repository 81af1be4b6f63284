/**
 * `toolgate mcp --http` says how many tools it serves: the count of the list `tools/list`
 * serves (every page), `ask_user` and the other caller tools included. Before, it counted the
 * registry's selection and said 79 where `tools/list` held 80 (`ask_user`).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { cleanUpMcp, mcpFolders, startHttpCommand, transportTo } from '../mcp/http-command.js';

describe('toolgate mcp --http: the count it prints', () => {
  const folders = mcpFolders('toolgate-mcp-count-');
  const clients: Client[] = [];
  const children: ChildProcess[] = [];
  after(() => cleanUpMcp(clients, children, folders.root));

  for (const selection of [[], ['--tag', 'fs'], ['--mode', 'explore']]) {
    test(`is the length of tools/list (${selection.join(' ') || 'every tool'})`, { timeout: 60_000 }, async () => {
      const server = await startHttpCommand(['--workspace', folders.ws, '--no-ledger', ...selection]);
      children.push(server.child);
      const printed = Number(/serving (\d+) tools on/.exec(server.stderr())![1]);
      const client = new Client({ name: 'count', version: '1.0.0' });
      clients.push(client);
      await client.connect(transportTo(server));
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        names.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      assert.equal(printed, names.length, `printed ${printed}; tools/list: ${names.length}`);
      if (selection.length === 0) assert.ok(names.includes('ask_user'), 'ask_user is served and counted');
    });
  }
});
