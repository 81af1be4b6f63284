/**
 * An in-process 2026-07-28 MCP handler over a tool system with a SQLite ledger in a temporary
 * folder, for the requestor-binding tests: requests are sent with `modern(served.as(authInfo), ...)`
 * (task-extension-helpers.ts), as an OAuth-checking front passes an `authInfo`.
 */
import path from 'node:path';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import { createMcpServer, ToolSystem, type McpServeOptions } from 'toolgate';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';
import type { Target } from './task-extension-helpers.js';

/** What {@link ledgerHandler} started. */
export interface LedgerHandler {
  tmp: ReturnType<typeof tempWorkspace>;
  system: ToolSystem;
  /** Where a request as `authInfo` goes. */
  as(authInfo: AuthInfo): Target;
  /** Close the tool system and remove the folders. */
  close(): Promise<void>;
}

/** Start one (the fixture tools; `serve` adds server options such as `tasks: false`). */
export async function ledgerHandler(serve: Partial<McpServeOptions> = {}): Promise<LedgerHandler> {
  const tmp = tempWorkspace();
  const system = new ToolSystem({ registry: await fixtureRegistry(), workspace: tmp.ws, executor: { ledger: { dir: path.join(tmp.root, 'state') }, outputStore: false, sweepLeftovers: false } });
  const handler = createMcpHandler((ctx) => createMcpServer({ system, workspaceRoot: tmp.ws, ...serve }, { era: ctx.era }));
  return {
    tmp, system,
    as: (authInfo) => ({ handler, authInfo }),
    close: async () => {
      await system.close();
      tmp.cleanup();
    },
  };
}
