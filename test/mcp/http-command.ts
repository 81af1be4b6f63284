/**
 * Start `toolgate mcp --http` as a child process and read what it prints on stderr: its URL
 * and the token every request must carry (made at every start unless TOOLGATE_MCP_TOKEN is
 * set or --no-token is given).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BIN } from '../helpers.js';

/** A running `toolgate mcp --http`. */
export interface HttpCommand {
  child: ChildProcess;
  url: string;
  /** The token it printed; `undefined` when it printed none (--no-token, or the environment's). */
  token: string | undefined;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
}

/**
 * Spawn `toolgate mcp --http --port 0 ...args` and wait (at most 30 s) for its URL and its
 * token notice. The caller kills the child.
 */
export async function startHttpCommand(args: string[], env?: NodeJS.ProcessEnv): Promise<HttpCommand> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: env ?? process.env });
  let stderr = '';
  return new Promise<HttpCommand>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`toolgate mcp --http printed no URL and token within 30 s: ${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const url = /serving \d+ tools on (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(stderr)?.[1];
      const notice = /^toolgate mcp: (every request must send .*|no token .*)$/m.exec(stderr)?.[1];
      if (url === undefined || notice === undefined) return;
      clearTimeout(timer);
      const token = /"Authorization: Bearer ([A-Za-z0-9_-]+)"/.exec(notice)?.[1];
      resolve({ child, url, token, stderr: () => stderr });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`toolgate mcp --http exited with ${code}: ${stderr}`));
    });
  });
}

/** A client transport to `server` that sends its token (when it has one). */
export function transportTo(server: Pick<HttpCommand, 'url' | 'token'>): StreamableHTTPClientTransport {
  const requestInit = server.token === undefined ? undefined : { headers: { authorization: `Bearer ${server.token}` } };
  return new StreamableHTTPClientTransport(new URL(server.url), { requestInit });
}

/** A test's folders: a temporary root holding the workspace `ws` (made) and the state folder `state` (not made). */
export function mcpFolders(prefix: string): { root: string; ws: string; state: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const ws = path.join(root, 'ws');
  fs.mkdirSync(ws);
  return { root, ws, state: path.join(root, 'state') };
}

/** Close the test's clients, SIGKILL its children still running (waiting for each to exit), and remove `root`. */
export async function cleanUpMcp(clients: Client[], children: ChildProcess[], root: string): Promise<void> {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }
  fs.rmSync(root, { recursive: true, force: true });
}
