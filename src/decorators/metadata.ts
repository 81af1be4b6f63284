/**
 * The one module that touches reflect-metadata: where `@tool` records its descriptor and
 * where loaders read it back.
 *
 * @module
 */
/// <reference types="reflect-metadata" />
import { createRequire } from 'node:module';
import type { ActionKind } from '../policy/action-kinds.js';
import type { ModelClass } from '../types/model-class.js';
import type { OutputProjection, RunnerKind, ToolClass, TruncationStrategy } from '../types/tool.js';

/** Metadata key under which `@tool` stores a {@link ToolDescriptor} on the class. */
const TOOL_METADATA_KEY = Symbol.for('toolgate:tool');

/**
 * Plain record of a tool definition, as `@tool` validated and stored it. Schemas and the
 * TSDoc description are not here: they come from the generated schema file.
 */
export interface ToolDescriptor {
  /** Tool name, `^[a-z][a-z0-9_]{0,63}$`. */
  readonly name: string;
  /** Semver version (`1.2.0`). */
  readonly version: string;
  /** What a call does to the world (see `ToolOptions.kind`). */
  readonly kind: ActionKind;
  /** Description override; when absent the class TSDoc (from the schema file) is used. */
  readonly description?: string;
  /** Free-form tags for filtering (`fs`, `web`). */
  readonly tags: readonly string[];
  /** Domain of lazy visibility (`git`); absent for a core tool (see `ToolOptions.domain`). */
  readonly domain?: string;
  /** No side effects; allowed in read-only modes. */
  readonly readOnly: boolean;
  /** Needs `confirm: true` or a confirmation handler's yes. */
  readonly requiresConfirmation: boolean;
  /** Writes only to the paths its `workspace-path` arguments name (may run in scoped write folders). */
  readonly scopedWrite: boolean;
  /** The model class the tool is meant for (see `ToolOptions.forModel`); `undefined`: every model. */
  readonly forModel?: ModelClass;
  /** Timeout in milliseconds; `<= 0` disables. */
  readonly timeoutMs: number;
  /** Requests per minute allowed, or `undefined` for no limit. */
  readonly rateLimitRpm?: number;
  /** Old-generation heap cap of the worker in MiB, or `undefined` for the pool default. */
  readonly memoryMb?: number;
  /** Output cap in characters; `<= 0` disables truncation. */
  readonly maxOutputLength: number;
  /** How long output is cut. */
  readonly truncation: TruncationStrategy;
  /** The output projection as given (`truncation` already holds a string `model`). */
  readonly output: Readonly<OutputProjection>;
  /** `pool` (worker threads) or `main` (main thread, for stateful tools). */
  readonly runner: RunnerKind;
  /** URL of the module that defines the class, for workers; `undefined` if unknown. */
  readonly moduleUrl?: string;
  /** Export name of the class in that module (the class name unless a loader corrected it). */
  readonly exportName: string;
  /**
   * The decorated class; `undefined` in a descriptor read from a tool manifest, whose class
   * is imported on the tool's first call (`RegisteredTool.load`).
   */
  readonly target?: ToolClass;
}

// The polyfill is required on first use: a registry read from a tool manifest never needs it.
const require = createRequire(import.meta.url);
let polyfilled = false;
function reflect(): typeof Reflect {
  if (!polyfilled) {
    require('reflect-metadata');
    polyfilled = true;
  }
  return Reflect;
}

/** Store a descriptor on a class. */
export function defineToolMetadata(target: ToolClass, descriptor: ToolDescriptor): void {
  reflect().defineMetadata(TOOL_METADATA_KEY, descriptor, target);
}

/** Read the descriptor `@tool` stored on a value, or `undefined` when it is not a tool class. */
export function getToolMetadata(value: unknown): ToolDescriptor | undefined {
  if (typeof value !== 'function') return undefined;
  // Own metadata only: a subclass of a tool is not the same tool.
  return reflect().getOwnMetadata(TOOL_METADATA_KEY, value) as ToolDescriptor | undefined;
}
