/**
 * toolgate: a TypeScript tool system for LLM agents. Public API (named exports only).
 *
 * @module
 */
export { tool, buildToolDescriptor, TOOL_NAME_PATTERN, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_LENGTH, MAX_TIMEOUT_MS, type ToolOptions } from './decorators/tool.decorator.js';
export { getToolMetadata, TOOL_METADATA_KEY, type ToolDescriptor } from './decorators/metadata.js';
export {
  ToolgateError, ToolDefinitionError, ToolgateOptionError, PathTraversalError, InvalidPathError, ToolExecutionError, type ToolErrorCode,
} from './errors.js';
export type {
  Tool, ToolClass, ToolContext, ToolExecutionResult, ToolCallRequest, JsonSchema, RunnerKind, TruncationStrategy,
} from './types.js';
export { ToolRegistry, type ToolFilter, type ResolveFailure } from './registry/registry.js';
export { RegisteredTool, registrationRevision, type RevisionFlags } from './registry/registered-tool.js';
export { loadTools, loadBuiltinTools, loadPortedTools, type LoadToolsOptions, type LoadedTools } from './registry/loader.js';
export { ToolExecutor, type ToolExecutorOptions, type ExecuteOptions, type ExecuteManyOptions } from './executor/executor.js';
export { parseArguments, type ParsedArguments } from './executor/arguments.js';
export { Workspace, workspaceFor, isInside } from './workspace/workspace.js';
export { openFileInside, readFileInside, writeFileInside, type OpenInside, type ReadInside, type WriteInside, type WriteInsideOptions } from './workspace/safe-io.js';
export { pinFolder, checkDescriptorInside, FolderMissingError, CAN_PIN_FOLDERS, type PinnedFolder, type PinFolderOptions, type PinnedFile, type FileStatus, type FolderDirent, type FileSystemError } from './workspace/pinned-folder.js';
export { MODES, resolveMode, type AgentMode, type ModeName } from './modes/modes.js';
export type { Decision, Decider, Verdict, PreparedCall, ResolvedPath } from './decisions/decision.js';
export type { PolicyHook, PolicyCall } from './decisions/policy-hook.decider.js';
export type { ConfirmationHandler, ConfirmationRequest } from './decisions/approval.js';
export { DEFAULT_RATE_LIMIT_MAX_WAIT_MS } from './decisions/rate-limit.js';
export { closeOut, truncate, NO_OUTPUT } from './closeout/closeout.js';
export {
  exportTool, toOpenAITool, toOpenAIStrictTool, toAnthropicTool, toMcpTool, toStrictSchema, EXPORT_FORMATS,
  type ExportFormat, type OpenAITool, type AnthropicTool, type McpTool, type ExportableTool,
} from './schema/export.js';
export { readSchemaFile, SCHEMA_FILE_FORMAT, type SchemaFile, type SchemaFileEntry } from './schema/schema-file.js';
export { findPathArguments, type PathArgument } from './schema/path-arguments.js';
export { WORKSPACE_PATH_FORMAT, checkSchema } from './schema/validator.js';
export { createLogger, redactSecrets, isSecretKey } from './logging/logger.js';
export { MAX_CALLS_IN_FLIGHT } from './runner/pool/pool-runner.js';
export type { Runner, RunRequest, RunOutcome, RunnableTool } from './runner/runner.js';
export {
  PythonSandbox,
  type PythonSandboxOptions,
  type PythonRunOptions,
  type PythonRunResult,
  type PythonRunStatus,
  type PythonIsolation,
} from './sandbox/python-sandbox.js';
export { PYTHON_ESCAPE_VECTORS, STRIP_SECOND_LAYER, REACH_BRIDGE_THROUGH_FINDER, renderEscapeVector, type PythonEscapeVector } from './sandbox/python-escape-vectors.js';
export { ASK_USER_TOOL, ASK_USER_INPUT_SCHEMA, askUserSpec, checkAskUserArguments, type AskUserInput } from './builtin/ask-user.js';
export { apiEndpoint, cleanText, isLoopbackHost, readResponseText } from './keyed-api.js';
export { OutputStore, type OutputStoreOptions, type StoredOutput } from './closeout/output-store.js';
export { MAX_IMAGES, MAX_IMAGE_DATA_URL_LENGTH, type StopReason } from './types.js';
export { ToolSystem, type ToolSystemOptions, type ToolFolder, type ToolSelection, type ToolSystemConnector } from './system/tool-system.js';
export { ToolVersionManager, type ToolVersionInfo } from './system/version-manager.js';
export { Harness, type HarnessPlugin } from './agents/harness.js';
export {
  ToolCallHandler, executorTarget, openAIToolCalls, anthropicToolUses, toOpenAIToolMessages, toAnthropicToolResults, ASK_USER_UNAVAILABLE, MAX_CALLS_PER_TURN,
  type ToolCallHandlerOptions, type HandleOptions, type PendingToolCall, type AgentCallOptions, type ToolCallTarget, type QuestionHandler, type UserQuestion,
} from './agents/tool-call-handler.js';
export {
  BaseAgent, GeneralAgent, ExploreAgent, PlanAgent,
  type AgentOptions, type GeneralAgentOptions, type PlanAgentOptions, type AgentEvent, type AgentRunResult, type AgentRunOptions, type AgentStopReason, type AgentKind,
} from './agents/base-agent.js';
export { OpenAIChatModel, ModelResponseError, modelEndpointFromEnv, type ChatModel, type ChatRequest, type ModelEndpoint, type OpenAIChatModelOptions } from './agents/model-client.js';
export type {
  OpenAIChatMessage, OpenAIAssistantMessage, OpenAIToolCall, OpenAIContentPart, AnthropicMessage, AnthropicContentBlock, AnthropicTextBlock, AnthropicImageBlock,
  AnthropicToolUseBlock, AnthropicToolResultBlock,
} from './agents/messages.js';
export { McpBridge, MAX_BRIDGED_DESCRIPTION, DEFAULT_MCP_TIMEOUT_MS, DEFAULT_MCP_MAX_TOTAL_TIMEOUT_MS, DEFAULT_MCP_START_TIMEOUT_MS, MCP_TAG, type McpBridgeOptions, type McpServerStatus } from './mcp/bridge.js';
export {
  loadConfig, checkMcpServers, CONFIG_FILE_NAME, type ToolgateConfig, type LoadedConfig, type McpServerConfig, type McpStdioServerConfig, type McpHttpServerConfig, type McpServerCommon,
} from './mcp/config.js';
export { assignProxyNames, proxyName, serverPrefix, MAX_TOOL_NAME_LENGTH, PROXY_SEPARATOR, type ProxyNameRequest } from './mcp/proxy-names.js';
export { commandEnv, INHERITED_ENV } from './child-env.js';
export type { RegisterOptions } from './registry/registered-tool.js';
export { compileForeignValidator } from './schema/validator.js';
export {
  createMcpServer, serveStdio, serveHttp, isLoopbackAddress, hostHeadersFor, toCallToolResult, cannotAskMessage, type McpServeOptions, type McpHttpOptions, type McpServerHandle,
} from './mcp/server.js';
