/**
 * Lazy visibility in `toolgate mcp` (`--lazy-domains`): one {@link McpLazyTools} per MCP
 * session. `tools/list` shows the core tools, the domains the client's model asked for, and
 * `request_tools`. Every call of the session carries the session's lazy visibility as its
 * client's caller services ({@link McpLazyTools.client}), so the executor's visibility decider
 * denies a call of a hidden tool `TOOL_HIDDEN` (a tool result with `isError` naming
 * `request_tools` and the domain, never a protocol error). A `request_tools` call runs through
 * the executor too (the caller tool of `src/builtin/caller-tools.ts`: decided, recorded,
 * audited), answered at once, never as a task; when it made something visible, the server
 * follows it with `notifications/tools/list_changed` to that session.
 *
 * @module
 */
import { CallerServices, withServices } from '../builtin/caller-services.js';
import { registerCallerTools } from '../builtin/caller-tools.js';
import { requestToolsSpec } from '../builtin/request-tools.js';
import type { ConfirmationHandler } from '../decisions/approval.js';
import type { ExecuteOptions } from '../executor/executor.js';
import { toCallToolResult, toMcpTool, type McpTool } from '../formats/mcp.js';
import { DomainVisibility, REQUEST_TOOLS_NAME, type LazyDomainsOptions } from '../registry/lazy-visibility.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ToolCallRequest, ToolExecutionResult } from '../types/result.js';
import type { ToolClient } from '../types/tool.js';

/** An MCP `CallToolResult` (as `toCallToolResult` makes it; only server.ts imports the SDK). */
type CallToolResult = ReturnType<typeof toCallToolResult>;

/**
 * The options of a call the server runs: its asker always named (`ClientAsker` in
 * confirmation.ts; `null` for nobody), so that the executor's own handler never answers for the client.
 */
type ClientCallOptions = ExecuteOptions & { confirmationHandler: ConfirmationHandler | null };

/** What the server runs calls on: its `ToolSystem`'s registry, and its calls (the MCP server takes nothing else). */
interface CallTarget {
  readonly registry: ToolRegistry;
  execute(call: ToolCallRequest, options: ClientCallOptions): Promise<ToolExecutionResult>;
}

/** The lazy-visibility state and offer of one MCP session. */
export class McpLazyTools {
  /** Which domains this session's model has made visible. */
  readonly visibility: DomainVisibility;
  /** What the session lends its calls: the visibility, and what `request_tools` chooses from. */
  private readonly services: CallerServices;

  /**
   * @param selected - every tool of the server's selection (`--tool`, `--tag`), whatever the mode.
   * @param offered - the selected tools the server's mode would run (what `tools/list` lists without lazy visibility).
   */
  constructor(options: LazyDomainsOptions, private readonly selected: () => RegisteredTool[], private readonly offered: () => RegisteredTool[]) {
    this.visibility = new DomainVisibility(options);
    this.services = new CallerServices({ visibility: this.visibility, domains: { selected, offered } });
  }

  /** The domains of the server's selection, sorted (`request_tools` is listed while there is one: the visibility decider's rule). */
  domains(): string[] {
    return this.visibility.domains(this.selected());
  }

  /** The `request_tools` tool in the MCP shape (its `enum`: {@link domains}; its description names each hidden domain's tools). */
  requestTool(): McpTool {
    const domains = this.domains();
    return toMcpTool(requestToolsSpec(domains, this.visibility.hiddenByDomain(this.offered())));
  }

  /** `client` carrying this session's lazy visibility: pass it as the `client` of every call of the session. */
  client(client: ToolClient | undefined): ToolClient | undefined {
    return withServices(client, this.services);
  }

  /**
   * Run a `request_tools` call through `target` (registering the caller tools there first).
   * @param options - the session's call options (mode, session, signal, who is asked...); its `client` gets this session's services.
   * @returns the tool result, and whether a domain became visible (then send `list_changed`).
   * @throws PathTraversalError as `execute` does (never for this tool's arguments).
   */
  async answer(target: CallTarget, args: Record<string, unknown>, callId: string, options: ClientCallOptions): Promise<{ result: CallToolResult; changed: boolean }> {
    registerCallerTools(target.registry);
    const before = this.visibility.visibleDomains.length;
    const result = await target.execute({ name: REQUEST_TOOLS_NAME, arguments: args, callId }, { ...options, client: this.client(options.client) });
    return { result: toCallToolResult({ outputSchema: null }, result), changed: this.visibility.visibleDomains.length > before };
  }
}
