/**
 * The MCP server SDK's protocol errors, for {@link LedgerTaskStore} (`tasks.ts`), which the
 * root entry exports: it loads this module when it first throws one (a synchronous `require`
 * of this ES module), so that `import('toolgate')` does not load the SDK. This module's
 * `import` loads the SDK's ES build, the one an application and the MCP server import: one
 * `ProtocolError` class in a process.
 *
 * @module
 */
export { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
