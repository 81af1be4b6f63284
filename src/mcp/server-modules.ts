/**
 * The root entry's MCP server functions ({@link createMcpServer}, `serveStdio`, `serveHttp`),
 * in one module that nothing imports: `lazy-server.ts` loads it on first use, synchronously (Node's
 * `require` of an ES module), so that `import('toolgate')` does not load the SDK and zod
 * (about 90 ms of CPU) for the applications that serve no MCP.
 *
 * It loads the SDK's ES build (through its modules' `import`s), as an application's
 * `import ... from '@modelcontextprotocol/server'` does, so a class such as `Server` is one
 * class in a process however it was reached.
 *
 * @module
 */
export { createMcpServer } from './server.js';
export { serveStdio } from './stdio-server.js';
export { serveHttp } from './http-server.js';
