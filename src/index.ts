/**
 * toolgate: a TypeScript tool system for LLM agents. The public API of the `toolgate` entry,
 * named exports only, grouped as `docs/api.md` documents them: what a user of the SDK needs
 * to run tools. Tool modules import `toolgate/tool` (`src/tool.ts`), the light authoring
 * entry every worker loads; the shipped tools' helpers are in `toolgate/internal`
 * (`src/internal.ts`, no compatibility promise). An export added here shows in
 * `api/toolgate.api.md` (`npm run api-report`); a name marked `@internal` may not be added.
 *
 * @module
 */

// Writing a tool (the whole authoring set, with the workspace's file operations, is `toolgate/tool`).
export { tool, type ToolOptions } from './decorators/tool.decorator.js';
export { ACTION_KINDS, type ActionKind } from './policy/action-kinds.js';
export type { ToolDescriptor } from './decorators/metadata.js';
export type { Tool, ToolClass, ToolContext, JsonSchema, OutputProjection, ToolClient } from './types/tool.js';

// Calls, results and errors.
export type { ToolCallRequest, ToolExecutionResult, StopReason, DecisionRecord, ToolOutcome, ToolErrorClass } from './types/result.js';
export {
  ToolgateError, ToolDefinitionError, ToolgateOptionError, PathTraversalError, InvalidPathError, ToolExecutionError, SandboxUnavailableError, PackageUnavailableError, type ToolErrorCode,
} from './errors/errors.js';
export { ERROR_CLASSES, type ErrorClassEntry } from './closeout/outcomes.js';

// The tool system facade, and the parts it exposes.
export { ToolSystem, type ToolSystemOptions, type ToolFolder, type ToolSelection, type ToolSystemConnector } from './system/tool-system.js';
export { ToolVersionManager, type ToolVersionInfo } from './system/version-manager.js';
export { ToolRegistry, type ToolFilter } from './registry/registry.js';
export { RegisteredTool, type RegisterOptions } from './registry/registered-tool.js';
export type { ToolDefinition, DefinitionRegisterOptions } from './registry/programmatic.js';
export type { ToolsetEntryConfig } from './registry/toolset.js';
export { loadTools, loadBuiltinTools, loadPortedTools, type LoadToolsOptions, type LoadedTools } from './registry/loader.js';
export { ToolExecutor, type ToolExecutorOptions, type ExecuteOptions, type ExecuteManyOptions, type PolicyOptions, type CallPreview } from './executor/executor.js';

// Policy and decisions: what a user configures and answers.
export type { PolicyHook, PolicyCall } from './decisions/policy-hook.decider.js';
export type { ConfirmationHandler, ConfirmationContext, ConfirmationRequest, ApprovalAnswer, AskedQuestion } from './decisions/approval.js';
export { isSuspension, SUSPENDS } from './decisions/approval.js';
export { APPROVAL_MODES, type ApprovalMode } from './decisions/decision.js';
export type { SavedApprovals } from './policy/remembered-approvals.js';
export { MODES, type AgentMode, type ModeName } from './modes/modes.js';
export { MODEL_CLASSES, type ModelClass } from './types/model-class.js';
export { SANDBOX_PROFILES, type SandboxProfile, type SandboxPolicy } from './sandbox/bubblewrap.js';
export { createLogger, type Logger, type LevelWithSilent } from './logging/logger.js';

// The ledger: reading calls, answering questions, a session's approval mode, the cockpit.
export {
  Ledger, ENDED_STATES,
  type LedgerOptions, type CallKey, type CallStatus, type CallRecord, type ApprovalRecord, type StoredResult, type LedgerEvent, type ListFilter, type LedgerFeedEvent, type OutputPage,
} from './ledger/store.js';
export type { CallStore } from './ledger/call-store.js';
// A shared store (issue 32): a postgres:// URL opens the PostgreSQL store (pg, an optional peer), anything else the SQLite ledger.
export { openCallStore, type OpenStoreOptions } from './ledger/open-store.js';
export type { PostgresStoreOptions } from './ledger/postgres/store.js';
export { defaultStateDir, ledgerFile } from './ledger/paths.js';
export { setSessionApprovalMode, sessionApprovalMode, supervisedSession } from './ledger/session-approval-modes.js';
export { ledgerQuestionHandler, type LedgerQuestionOptions } from './ledger/user-questions.js';
export { startCockpit, type CockpitOptions, type CockpitHandle } from './cockpit/server.js';

// Provider formats: tool specs and the messages a turn's answer is appended to.
export { exportTool, EXPORT_FORMATS, type ExportFormat } from './formats/export.js';
export type { OpenAITool, OpenAIChatMessage, OpenAIAssistantMessage, OpenAIToolCall } from './formats/openai.js';
export type { AnthropicTool, AnthropicMessage } from './formats/anthropic.js';
export type { McpTool } from './formats/mcp.js';

// Agents: model turns answered, the agent loop, the model client, the plugin harness.
export { ToolCallHandler, type ToolCallHandlerOptions, type HandleOptions, type QuestionHandler, type UserQuestion } from './system/tool-call-handler.js';
export {
  BaseAgent, GeneralAgent, ExploreAgent, PlanAgent,
  type AgentOptions, type GeneralAgentOptions, type PlanAgentOptions, type AgentEvent, type AgentRunResult, type AgentRunOptions, type AgentStopReason,
} from './agents/base-agent.js';
export { DEFAULT_RETRY_ON, type RetryOptions, type RetryEvent } from './agents/retry.js';
export { OpenAIChatModel, ModelResponseError, modelEndpointFromEnv, type ChatModel, type ChatRequest, type ModelEndpoint, type OpenAIChatModelOptions } from './agents/model-client.js';
export { Harness, type HarnessPlugin } from './agents/harness.js';
export type { SubagentOptions } from './agents/subagents.js';
export { DomainVisibility, type LazyDomainsOptions } from './registry/lazy-visibility.js';
export type { TurnLimits } from './agents/turn-limits.js';

// MCP: bridging servers in, serving the tools out, the config file.
export { McpBridge, type McpBridgeOptions, type McpServerStatus, type McpClientTransport } from './mcp/bridge.js';
export {
  loadConfig, type ToolgateConfig, type LoadedConfig, type McpServerConfig, type McpStdioServerConfig, type McpHttpServerConfig, type McpOAuthConfig, type OAuthAuthorizer,
} from './mcp/config.js';
// The MCP server SDK loads on first use of these (mcp/lazy-server.ts), not at import.
export { createMcpServer, serveStdio, serveHttp } from './mcp/lazy-server.js';
export type { McpServeOptions, McpServerHandle } from './mcp/server.js';
export type { McpHttpOptions } from './mcp/http-server.js';
export { LedgerTaskStore, type LedgerTaskStoreOptions } from './mcp/tasks.js';
export { listArtifacts, readArtifact, type ArtifactRecord } from './workspace/artifact-store.js';
