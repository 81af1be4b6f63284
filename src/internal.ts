/**
 * The internal entry, `toolgate/internal`: the helpers the shipped tools (`tools/`,
 * `tools-ported/`) share with the framework: launching and confining child processes, the
 * pids cgroup, `/proc`, the environment allowlist, protected names. Every name here is
 * marked `@internal`: it can change in any release, and no public entry (`toolgate`,
 * `toolgate/tool`, the adapters) may export it (`npm run api-report` fails then).
 *
 * Like `toolgate/tool`, it is loaded by tool modules in every worker and stays light; the
 * build bundles both into `dist/bundle/core.js` (scripts/bundle.ts).
 *
 * @module
 */
export { gitDirShapeOf, isGitDirEntry, protectedNameIn, type PathEntry } from './workspace/protected-names.js';
export { isSecretKey } from './logging/secrets.js';
export { loadOptional, resolveOptional, HIDE_PACKAGES_ENV } from './util/optional-package.js';
export { commandEnv, INHERITED_ENV } from './sandbox/child-env.js';
export { ownStateFolders } from './workspace/own-state-paths.js';
export { PidsCgroup } from './sandbox/pids-cgroup.js';
export { findExecutable, parentDeathLauncher } from './sandbox/executables.js';
export { launchScript, type LaunchScriptName } from './sandbox/launch-scripts.js';
export { launchPrefix, LAUNCH_PROFILES, type LaunchProfileName, type InterpreterLaunch } from './sandbox/launch-profiles.js';
export { processTree, residentBytes } from './sandbox/proc.js';
export { bubblewrapAvailable, probeBubblewrap, DEFAULT_SANDBOX, BWRAP_ENV, BUBBLEWRAP_PACKAGE, type BubblewrapProbe } from './sandbox/bubblewrap.js';
export { taskServiceOf, TASK_DOMAIN, TASK_TOOL_NAMES, TASK_SERVICE_UNAVAILABLE, type TaskService, type TaskToolName } from './types/task-service.js';
export { memoryOf, scopeKey, checkTags, showNote, MEMORY_LIMITS, MEMORY_DOMAIN, MEMORY_UNAVAILABLE, type MemoryStore, type MemoryNote, type MemoryScope } from './types/memory-service.js';
export { SKILL_TOOL_PREFIX } from './decorators/tool-namespaces.js';
