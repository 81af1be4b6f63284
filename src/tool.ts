/**
 * The authoring entry point, `toolgate/tool`: what a tool module needs (the decorator, the
 * context and result types, errors, the workspace resolver and its safe file operations, the
 * sandbox prefix for `ctx.sandbox`) and nothing else. Tool modules are loaded by every worker
 * thread, so importing this light entry instead of `toolgate` keeps worker start-up short (it
 * skips ajv, pino, piscina and the rest of the executor). The helpers only the shipped tools
 * use (process launching, cgroups, `/proc`, protected names) are in `toolgate/internal`.
 *
 * @module
 */
export { tool, TOOL_NAME_PATTERN, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_LENGTH, type ToolOptions } from './decorators/tool.decorator.js';
export { ToolgateError, PathTraversalError, InvalidPathError, ToolExecutionError, SandboxUnavailableError, PackageUnavailableError, type ToolErrorCode } from './errors/errors.js';
export { ACTION_KINDS, type ActionKind } from './policy/action-kinds.js';
export type { Tool, ToolClass, ShellInputTool, ShellInputTarget, ToolContext, JsonSchema, RunnerKind, TruncationStrategy, OutputProjection, ToolAttachment, ToolLogLevel, ElicitAnswer, SampleRequest, SampleAnswer } from './types/tool.js';
export { MAX_IMAGES, MAX_IMAGE_DATA_URL_LENGTH, TOOL_LOG_LEVELS } from './types/tool.js';
export { Workspace, isInside } from './workspace/workspace.js';
export { openFileInside, readFileInside, writeFileInside, type OpenInside, type ReadInside, type WriteInside, type WriteInsideOptions } from './workspace/safe-io.js';
export { pinFolder, checkDescriptorInside, throwIfStopped, FolderMissingError, CAN_PIN_FOLDERS, type WriteStop, type PinnedFolder, type PinFolderOptions, type PinnedFile, type FileStatus, type FileKind, type FolderDirent, type FileSystemError } from './workspace/pinned-folder.js';
export { sandboxLauncher, SANDBOX_PROFILES, type SandboxPolicy, type SandboxProfile, type SandboxMounts } from './sandbox/bubblewrap.js';
export { prepareStaging, registerArtifact, listArtifacts, readArtifact, ARTIFACT_DIR, ARTIFACT_STAGING_DIR, MAX_ARTIFACT_BYTES, MAX_ARTIFACTS, type ArtifactRecord } from './workspace/artifact-store.js';
