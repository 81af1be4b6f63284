/**
 * Lazy visibility in `toolgate mcp` (`--lazy-domains`): one {@link McpLazyTools} per MCP
 * session. `tools/list` shows the core tools, the domains the client's model asked for, and
 * `request_tools`; a `request_tools` call is answered here (never by the executor) and, when it
 * made something visible, followed by `notifications/tools/list_changed` to that session; a
 * call of a hidden tool is a tool result (`isError`, `toolgate/errorCode: TOOL_HIDDEN`) naming
 * `request_tools` and the domain, never a protocol error.
 *
 * @module
 */
import { answerRequestTools, requestToolsSpec } from '../builtin/request-tools.js';
import { toCallToolResult, toMcpTool, type McpTool } from '../formats/mcp.js';
import { DomainVisibility, type LazyDomainsOptions } from '../registry/lazy-visibility.js';
import type { RegisteredTool } from '../registry/registered-tool.js';

/** An MCP `CallToolResult` (as `toCallToolResult` makes it; only server.ts imports the SDK). */
type CallToolResult = ReturnType<typeof toCallToolResult>;

/** The lazy-visibility state and offer of one MCP session. */
export class McpLazyTools {
  /** Which domains this session's model has made visible. */
  readonly visibility: DomainVisibility;

  /**
   * @param selected - every tool of the server's selection (`--tool`, `--tag`), whatever the mode.
   * @param offered - the selected tools the server's mode would run (what `tools/list` lists without lazy visibility).
   */
  constructor(options: LazyDomainsOptions, private readonly selected: () => RegisteredTool[], private readonly offered: () => RegisteredTool[]) {
    this.visibility = new DomainVisibility(options);
  }

  /** The `request_tools` tool in the MCP shape, or `undefined` when the selection has no domain. */
  requestTool(): McpTool | undefined {
    const domains = this.visibility.domains(this.selected());
    if (domains.length === 0) return undefined;
    const hidden: Record<string, string[]> = {};
    for (const tool of this.offered()) {
      const domain = this.visibility.domainOf(tool);
      if (domain !== undefined && !this.visibility.shows(tool)) (hidden[domain] ??= []).push(tool.name);
    }
    return toMcpTool(requestToolsSpec(domains, hidden));
  }

  /**
   * Answer a `request_tools` call.
   * @returns the tool result, and whether a domain became visible (then send `list_changed`).
   */
  answer(args: Record<string, unknown>, callId: string): { result: CallToolResult; changed: boolean } {
    const before = this.visibility.visibleDomains.length;
    const result = answerRequestTools(this.visibility, args, callId, this.selected(), this.offered());
    return { result: toCallToolResult({ outputSchema: null }, result), changed: this.visibility.visibleDomains.length > before };
  }

  /** The result of a direct call of `tool` while its domain is hidden (and the mode would run it), else `undefined`. */
  hiddenCall(tool: RegisteredTool, callId: string): CallToolResult | undefined {
    if (!this.offered().some((t) => t.name === tool.name)) return undefined;
    const hidden = this.visibility.hiddenCall(tool, callId);
    return hidden === undefined ? undefined : toCallToolResult(tool, hidden);
  }
}
