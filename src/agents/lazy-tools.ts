/**
 * Lazy visibility in an agent's run: the tools offered each model round are the core, the
 * domains the model asked for, and `request_tools`. Its calls run through the executor like
 * every call (the caller tool of `src/builtin/caller-tools.ts`), answered with the
 * {@link AgentLazyTools.visibility} and {@link AgentLazyTools.scope} the agent lends with every
 * call of the run; the next round offers what they made visible. One {@link AgentLazyTools}
 * per run (a run is one turn): what became visible stays so until the run returns.
 *
 * @module
 */
import type { LazyDomainsScope } from '../builtin/caller-services.js';
import { requestToolsSpec } from '../builtin/request-tools.js';
import { checkLazyDomainsOptions, DomainVisibility, type LazyDomainsOptions } from '../registry/lazy-visibility.js';
import { ToolgateOptionError } from '../errors/errors.js';
import { exportTool } from '../formats/export.js';
import type { OpenAITool } from '../formats/openai.js';
import { MODES } from '../modes/modes.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import type { ToolSelection, ToolSystem } from '../system/tool-system.js';

/**
 * Check the `lazyDomains` agent option.
 * @returns the options to use, or `undefined` when lazy visibility is off (`undefined` or `false`).
 * @throws ToolgateOptionError naming `lazyDomains` when it is malformed.
 */
export function lazyDomainsOption(value: boolean | LazyDomainsOptions | undefined): LazyDomainsOptions | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return {};
  const problem = checkLazyDomainsOptions(value);
  if (problem !== undefined) throw ToolgateOptionError.fromBadOption('lazyDomains', problem);
  return value;
}

/** The lazy-visibility state and offer of one agent run. */
export class AgentLazyTools {
  /** Which domains the model has made visible in this run. */
  readonly visibility: DomainVisibility;
  /** What `request_tools` chooses from: the agent's selection in any mode, and what its mode runs. */
  readonly scope: LazyDomainsScope;

  /**
   * @param tools - the run's tool system.
   * @param selection - the agent's mode, scoped write folders and name (its pins).
   */
  constructor(private readonly tools: ToolSystem, private readonly selection: ToolSelection, options: LazyDomainsOptions) {
    this.visibility = new DomainVisibility(options);
    this.scope = { selected: () => this.selected(), offered: () => this.tools.tools(this.selection) };
  }

  /** Every tool of the system's selection, whatever the mode (`default` offers every tool). */
  private selected(): RegisteredTool[] {
    return this.tools.tools({ ...this.selection, mode: MODES.default });
  }

  /** The domains of the agent's selection, sorted (`request_tools` is offered while there is one: the visibility decider's rule). */
  domains(): string[] {
    return this.visibility.domains(this.selected());
  }

  /** The `request_tools` spec (OpenAI shape): its `enum` lists {@link domains}, its description names each hidden domain's tools. */
  requestToolsSpec(): OpenAITool {
    const hidden = this.visibility.hiddenByDomain(this.tools.tools(this.selection));
    return exportTool(requestToolsSpec(this.domains(), hidden), 'openai') as OpenAITool;
  }
}
