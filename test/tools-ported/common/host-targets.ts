/**
 * What the escape attempts of the Python tests aim at on the host: a secret file outside the
 * workspace, a folder where a successful attempt would leave markers, a loopback HTTP server
 * and a unix socket, both recording every request or connection that reaches them. Shared by
 * the sandbox's tests (test/sandbox/python-sandbox.test.ts) and the tool's
 * (test/tools/execute-python.test.ts).
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { tempWorkspace, type TempWorkspace } from '../../helpers.js';

/** The content of the secret file; it must never come back from a run. */
export const SECRET_TEXT = 'TOP-SECRET-HOST-CONTENT-41c7';

/** The targets; `close()` stops the servers and removes the folders. */
export interface HostTargets {
  tmp: TempWorkspace;
  secretFile: string;
  markerDir: string;
  /** The loopback HTTP server's URL. */
  url: string;
  socketPath: string;
  /** What reached the servers, in order (the array is appended to, never replaced). */
  hits: string[];
  close(): Promise<void>;
}

/** Lay out the targets in a new {@link tempWorkspace} and start the servers. */
export async function startHostTargets(): Promise<HostTargets> {
  const tmp = tempWorkspace();
  const hits: string[] = [];
  const secretFile = path.join(tmp.outside, 'secret.txt');
  fs.writeFileSync(secretFile, `${SECRET_TEXT}\n`);
  const markerDir = path.join(tmp.outside, 'markers');
  fs.mkdirSync(markerDir);
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    fs.writeFileSync(path.join(markerDir, `http-hit-${hits.length}`), String(req.url));
    res.end('reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socketPath = path.join(markerDir, 'host.sock');
  const socketServer = net.createServer((connection) => {
    hits.push('unix socket connection');
    fs.writeFileSync(path.join(markerDir, `unix-hit-${hits.length}`), 'connected');
    connection.end('host secret over a unix socket\n');
  });
  await new Promise<void>((resolve) => socketServer.listen(socketPath, resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/escape`;
  return {
    tmp, secretFile, markerDir, url, socketPath, hits,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => socketServer.close(() => resolve()));
      tmp.cleanup();
    },
  };
}
