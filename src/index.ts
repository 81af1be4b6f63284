/**
 * toolgate: a TypeScript tool system for LLM agents. The public API of the `toolgate` entry,
 * named exports only, grouped as `docs/api.md` documents them. Tool modules import
 * `toolgate/tool` (`src/tool.ts`) instead: it is the light authoring entry every worker loads.
 *
 * @module
 */

// Authoring tools (the same as `toolgate/tool`, for code that imports one entry only).
export { tool, kindFitsReadOnly, TOOL_NAME_PATTERN, BRIDGED_TOOL_NAME_PATTERN, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_LENGTH, MAX_TIMEOUT_MS, type ToolOptions } from './decorators/tool.decorator.js';
export { ACTION_KINDS, isActionKind, mostSevere, onlyReads, type ActionKind } from './policy/action-kinds.js';
export type { ToolDescriptor } from './decorators/metadata.js';
export {
  MAX_IMAGES, MAX_IMAGE_DATA_URL_LENGTH, MAX_CLIENT_LOG_LENGTH, TOOL_LOG_LEVELS, type Tool, type ToolClass, type ShellInputTool, type ShellInputTarget, type ToolContext, type JsonSchema, type RunnerKind, type TruncationStrategy,
  type ToolAttachment, type ToolClient, type ToolLogLevel, type ElicitAnswer, type SampleRequest, type SampleAnswer,
} from './types/tool.js';
export { Workspace, isInside } from './workspace/workspace.js';
export { openFileInside, readFileInside, writeFileInside, type OpenInside, type ReadInside, type WriteInside, type WriteInsideOptions } from './workspace/safe-io.js';
export { pinFolder, checkDescriptorInside, throwIfStopped, FolderMissingError, CAN_PIN_FOLDERS, type WriteStop, type PinnedFolder, type PinFolderOptions, type PinnedFile, type FileStatus, type FileKind, type FolderDirent, type FileSystemError } from './workspace/pinned-folder.js';

// Calls, results and errors.
export type { ToolCallRequest, ToolExecutionResult, StopReason, DecisionRecord } from './types/result.js';
export {
  ToolgateError, ToolDefinitionError, ToolgateOptionError, PathTraversalError, InvalidPathError, ToolExecutionError, SandboxUnavailableError, type ToolErrorCode,
} from './errors/errors.js';
export { SANDBOX_PROFILES, BWRAP_ENV, type SandboxProfile, type SandboxPolicy } from './sandbox/bubblewrap.js';

// The tool system facade, and the parts it composes.
export { ToolSystem, type ToolSystemOptions, type ToolFolder, type ToolSelection, type ToolSystemConnector } from './system/tool-system.js';
export { ToolVersionManager, type ToolVersionInfo } from './system/version-manager.js';
export { ToolRegistry, type ToolFilter, type ResolveFailure } from './registry/registry.js';
export { RegisteredTool, type RegisterOptions, type UpstreamToolMetadata, type ToolOverrides } from './registry/registered-tool.js';
export type { ToolDefinition, DefinitionRegisterOptions } from './registry/programmatic.js';
export { checkToolset, type ToolsetEntryConfig, type ToolsetEntry } from './registry/toolset.js';
export { loadTools, loadBuiltinTools, loadPortedTools, type LoadToolsOptions, type LoadedTools } from './registry/loader.js';
export { SCHEMA_FILE_FORMAT, type SchemaFile, type SchemaFileEntry } from './schema/schema-file.js';
export { ToolExecutor, type ToolExecutorOptions, type ExecuteOptions, type ExecuteManyOptions, type PolicyOptions, type CallPreview } from './executor/executor.js';
export type { OutputStoreOptions, StoredOutput } from './closeout/output-store.js';
export type { ToolOutcome, ToolErrorClass } from './types/result.js';
export { ERROR_CLASSES, type ErrorClassEntry } from './closeout/outcomes.js';
export type { OutputProjection } from './types/tool.js';
export {
  Ledger, ENDED_STATES, INTERRUPTED_MESSAGE, argumentsSha256, prunedResult,
  type LedgerOptions, type TombstoneRecord, type CallKey, type CallStatus, type CallRecord, type NewCall, type StoredCallOptions, type ApprovalRecord, type StoredResult, type LedgerEvent, type RecordOutcome, type CallEnd, type ListFilter,
} from './ledger/store.js';
export { defaultStateDir, workspaceKey, ledgerFile } from './ledger/paths.js';
export type { LedgerFeedEvent, OutputPage, SessionSetting } from './ledger/store.js';
// The call store interface, for another store than the SQLite `Ledger` (its contract suite: test/ledger/call-store-contract.ts).
export type { CallStore, CallJournal, QuestionBook, CallFeed, SessionSettings, Retention, TaskBindings, CountedAnswer } from './ledger/call-store.js';
export { ledgerApprovalModes, setSessionApprovalMode, sessionApprovalMode, supervisedSession, APPROVAL_MODE_SETTING } from './ledger/session-approval-modes.js';
export { ledgerQuestionHandler, type LedgerUserQuestion, type LedgerQuestionOptions } from './ledger/user-questions.js';
export { startCockpit, COCKPIT_CSP, type CockpitOptions, type CockpitHandle, type CockpitAnswer, type CockpitAnswerer } from './cockpit/server.js';
export type { PolicyHook, PolicyCall } from './decisions/policy-hook.decider.js';
export type { ConfirmationHandler, ConfirmationContext, ConfirmationRequest, ApprovalAnswer } from './decisions/approval.js';
export { APPROVAL_MODES, type ApprovalMode } from './decisions/decision.js';
export type { SavedApprovals } from './policy/remembered-approvals.js';
export { MODES, resolveMode, type AgentMode, type ModeName } from './modes/modes.js';
export { MODEL_CLASSES, isModelClass, type ModelClass } from './types/model-class.js';
export { createLogger, type Logger, type LevelWithSilent } from './logging/logger.js';

// Provider formats: tool specs and the messages that carry tool calls and results.
export { exportTool, EXPORT_FORMATS, type ExportFormat } from './formats/export.js';
export type { ExportableTool, PendingToolCall } from './formats/common.js';
export {
  toOpenAITool, toOpenAIStrictTool, toStrictSchema, openAIToolCalls, toOpenAIToolMessages,
  type OpenAITool, type OpenAIChatMessage, type OpenAIAssistantMessage, type OpenAIToolCall, type OpenAIContentPart,
} from './formats/openai.js';
export {
  toAnthropicTool, anthropicToolUses, toAnthropicToolResults,
  type AnthropicTool, type AnthropicMessage, type AnthropicContentBlock, type AnthropicTextBlock, type AnthropicImageBlock, type AnthropicToolUseBlock, type AnthropicToolResultBlock,
} from './formats/anthropic.js';
export { toMcpTool, toCallToolResult, type McpTool, type CallResultTool } from './formats/mcp.js';
export { toJsonSchema2020, JSON_SCHEMA_2020_12 } from './formats/json-schema-2020.js';

// Agents: model turns answered, the agent loop, the model client, the plugin harness.
export {
  ToolCallHandler, executorTarget, MAX_CALLS_PER_TURN,
  type ToolCallHandlerOptions, type HandleOptions, type AgentCallOptions, type ToolCallTarget, type QuestionHandler, type UserQuestion, type CallRetryPolicy,
} from './system/tool-call-handler.js';
export { ASK_USER_TOOL, askUserSpec, type AskUserInput } from './builtin/ask-user.js';
export {
  BaseAgent, GeneralAgent, ExploreAgent, PlanAgent,
  type AgentOptions, type GeneralAgentOptions, type PlanAgentOptions, type AgentEvent, type AgentRunResult, type AgentRunOptions, type AgentStopReason, type AgentKind,
} from './agents/base-agent.js';
export { DEFAULT_RETRY_ON, type RetryOptions, type RetryEvent } from './agents/retry.js';
export { OpenAIChatModel, ModelResponseError, modelEndpointFromEnv, type ChatModel, type ChatRequest, type ModelEndpoint, type OpenAIChatModelOptions } from './agents/model-client.js';
export { Harness, type HarnessPlugin } from './agents/harness.js';
export {
  SubagentSessions, SUBAGENT_DEPTH_MESSAGE,
  type SubagentOptions, type SubagentEvent, type SubagentInfo, type SubagentStatus, type SubagentAgentClass, type SubagentAgent, type SubagentChildOptions, type SubagentRunResult, type SubagentParent, type SubagentParentOptions,
} from './agents/subagents.js';
export {
  RUN_SUBAGENT, INPUT_SUBAGENT, subagentTools, subagentTurnId, parseSubagentTurnId,
  type RunSubagentInput, type InputSubagentInput, type SubagentChoices, type SubagentTurn, type SubagentDriver, type SubagentCall, type SubagentReport,
} from './builtin/subagent.js';
// What a caller lends the caller tools with its calls (HandleOptions.lazyDomains; docs/tool-visibility.md).
export { type LazyDomainsScope } from './builtin/caller-services.js';
// Lazy visibility (request_tools) and turn limits (docs/tool-visibility.md).
export { DomainVisibility, REQUEST_TOOLS_NAME, type DomainTool, type LazyDomainsOptions, type RequestToolsAnswer, type UnavailableDomain } from './registry/lazy-visibility.js';
export { answerRequestTools, requestToolsSpec, type RequestToolsInput } from './builtin/request-tools.js';
export { DEFAULT_MAX_MODEL_CALLS, DEFAULT_MAX_TOOL_CALLS_PER_RESPONSE, type TurnLimits } from './agents/turn-limits.js';

// MCP: bridging servers in, serving the registry out, the config file.
export { McpBridge, MCP_TAG, bridgedKind, type McpBridgeOptions, type McpServerStatus } from './mcp/bridge.js';
export { PROXY_SEPARATOR } from './mcp/proxy-names.js';
export {
  loadConfig, CONFIG_FILE_NAME, type ToolgateConfig, type ToolsConfig, type LoadedConfig, type McpServerConfig, type McpStdioServerConfig, type McpHttpServerConfig, type McpServerCommon,
} from './mcp/config.js';
export { createMcpServer, type McpServeOptions, type McpServerHandle } from './mcp/server.js';
export { serveStdio } from './mcp/stdio-server.js';
export { serveHttp, type McpHttpOptions } from './mcp/http-server.js';
export { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, type HttpSessionLimits } from './mcp/http-sessions.js';
export { LedgerTaskStore, TASK_SESSION, type LedgerTaskStoreOptions, type TaskRun } from './mcp/tasks.js';
