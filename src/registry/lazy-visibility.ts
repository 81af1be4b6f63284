/**
 * Lazy visibility: tools of a **domain** (`git`, `archive`) are hidden from the model until it
 * asks for the domain with `request_tools`; tools without a domain are the **core**, always
 * offered. This module decides, next to `visibility.ts` (selection and mode), whether a tool
 * is shown now, what a `request_tools` call makes visible, and what a direct call of a hidden
 * tool is answered.
 *
 * - A tool's domain is its `@tool({ domain })`, else the domain its first mapped tag gives
 *   ({@link LazyDomainsOptions.tagDomains}); neither makes it core.
 * - Visibility only grows: a domain once made visible stays visible for the life of its
 *   {@link DomainVisibility} (an agent's run, an MCP session).
 * - Visibility is not authorization: a visible tool's calls still pass the mode, policy and
 *   approval deciders, and a tool the mode would never run is never made visible (it is
 *   reported unavailable).
 *
 * @module
 */
import { failedResult } from '../closeout/results.js';
import type { ToolExecutionResult } from '../types/result.js';
import type { RegisteredTool } from './registered-tool.js';

/** The name of the builtin through which a model asks for more tools. */
export const REQUEST_TOOLS_NAME = 'request_tools';

/** Options of lazy visibility (`lazyDomains` of agents and of `toolgate mcp`); every option documents its default. */
export interface LazyDomainsOptions {
  /**
   * Tags that put a tool in a domain, `{ tag: domain }` (`{ git: 'git', archive: 'files' }`):
   * a tool without its own `domain` gets the domain of its first tag found here. Domains are
   * snake_case like tool names. Default: none (only `@tool({ domain })` makes a domain).
   */
  tagDomains?: Readonly<Record<string, string>>;
}

/** A tool as lazy visibility sees it. */
export type DomainTool = Pick<RegisteredTool, 'name' | 'tags' | 'domain'>;

/** One requested domain that cannot be made visible, and why. */
interface UnavailableDomain {
  /** The domain as requested. */
  domain: string;
  /** `unknown`: no tool of the selection has it; `not_in_mode`: the mode never runs any of its tools. */
  reason: 'unknown' | 'not_in_mode';
}

/** The answer to a `request_tools` call: tool names only, never schemas. */
export interface RequestToolsAnswer {
  /** Tools this request made visible, by domain (`{ git: ['git_add', ...] }`). */
  visible: Record<string, string[]>;
  /** Tools of requested domains that were visible already, by domain. */
  alreadyVisible: Record<string, string[]>;
  /** Requested domains that cannot be made visible. */
  unavailable: UnavailableDomain[];
}

const DOMAIN_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Check a `tagDomains` map (from an option or a flag).
 * @returns `undefined` when valid, else the problem (for `ToolgateOptionError.fromBadOption`).
 */
export function checkLazyDomainsOptions(options: LazyDomainsOptions): string | undefined {
  if (options === null || typeof options !== 'object') return 'must be true or an object { tagDomains }';
  const map = options.tagDomains;
  if (map === undefined) return undefined;
  if (map === null || typeof map !== 'object' || Array.isArray(map)) return 'tagDomains must be an object { tag: domain }';
  for (const [tag, domain] of Object.entries(map)) {
    if (typeof domain !== 'string' || !DOMAIN_PATTERN.test(domain)) return `tagDomains.${tag} must be a snake_case domain name matching ${DOMAIN_PATTERN}; got ${JSON.stringify(domain)}`;
  }
  return undefined;
}

/**
 * The lazy-visibility state of one session (an agent's run, one MCP session): which domains
 * the model has made visible. Construct one per session; it only grows.
 */
export class DomainVisibility {
  private readonly tagDomains: ReadonlyMap<string, string>;
  private readonly shown = new Set<string>();

  /** @param options - see {@link LazyDomainsOptions}; checked by the caller with {@link checkLazyDomainsOptions}. */
  constructor(options: LazyDomainsOptions = {}) {
    this.tagDomains = new Map(Object.entries(options.tagDomains ?? {}));
  }

  /** The domain of `tool`, or `undefined` for a core tool. */
  domainOf(tool: DomainTool): string | undefined {
    if (tool.domain !== undefined) return tool.domain;
    for (const tag of tool.tags) {
      const domain = this.tagDomains.get(tag);
      if (domain !== undefined) return domain;
    }
    return undefined;
  }

  /** Is `tool` shown now (core, or of a domain made visible)? */
  shows(tool: DomainTool): boolean {
    const domain = this.domainOf(tool);
    return domain === undefined || this.shown.has(domain);
  }

  /** The domains made visible so far, in the order they were. */
  get visibleDomains(): readonly string[] {
    return [...this.shown];
  }

  /** The tools of `tools` still hidden, by domain (`{ git: ['git_add', ...] }`; what `request_tools` names in its description). */
  hiddenByDomain(tools: readonly DomainTool[]): Record<string, string[]> {
    const hidden: Record<string, string[]> = {};
    for (const tool of tools) {
      const domain = this.domainOf(tool);
      if (domain !== undefined && !this.shown.has(domain)) (hidden[domain] ??= []).push(tool.name);
    }
    return hidden;
  }

  /** The domains of `tools`, sorted (what `request_tools` offers in its `enum`). */
  domains(tools: readonly DomainTool[]): string[] {
    const out = new Set<string>();
    for (const tool of tools) {
      const domain = this.domainOf(tool);
      if (domain !== undefined) out.add(domain);
    }
    return [...out].sort();
  }

  /**
   * Make `requested` domains visible.
   * @param selected - every tool of the caller's selection (any mode): a domain none has is `unknown`.
   * @param offered - the selected tools the mode would ever run: a domain none of them has is
   *   `not_in_mode`; the tools made visible are these.
   * @returns what became visible, what already was, and what is unavailable (see {@link RequestToolsAnswer}).
   */
  request(requested: readonly string[], selected: readonly DomainTool[], offered: readonly DomainTool[]): RequestToolsAnswer {
    const answer: RequestToolsAnswer = { visible: {}, alreadyVisible: {}, unavailable: [] };
    const known = new Set(this.domains(selected));
    for (const domain of new Set(requested)) {
      const tools = [...new Set(offered.filter((t) => this.domainOf(t) === domain).map((t) => t.name))].sort();
      if (tools.length === 0) {
        answer.unavailable.push({ domain, reason: known.has(domain) ? 'not_in_mode' : 'unknown' });
      } else if (this.shown.has(domain)) {
        answer.alreadyVisible[domain] = tools;
      } else {
        this.shown.add(domain);
        answer.visible[domain] = tools;
      }
    }
    return answer;
  }

  /**
   * The answer to a direct call of `tool` while it is hidden: a failed result
   * (`TOOL_HIDDEN`, not run) whose message names `request_tools` and the domain; `undefined`
   * when the tool is shown. Callers ask only about tools the mode would run (a tool it never
   * runs is left to the mode decider's denial).
   */
  hiddenCall(tool: DomainTool, callId: string): ToolExecutionResult | undefined {
    const message = this.hiddenMessage(tool);
    return message === undefined ? undefined : failedResult('TOOL_HIDDEN', message, { tool: tool.name, callId, stopReason: 'not_run' });
  }

  /**
   * Why a call of `tool` is refused while it is hidden, naming `request_tools` and the domain
   * (what the visibility decider's `TOOL_HIDDEN` says); `undefined` when the tool is shown.
   */
  hiddenMessage(tool: DomainTool): string | undefined {
    const domain = this.domainOf(tool);
    if (domain === undefined || this.shown.has(domain)) return undefined;
    return `${tool.name} is not visible yet: it belongs to the domain ${JSON.stringify(domain)}. `
      + `Call ${REQUEST_TOOLS_NAME} with {"domains": [${JSON.stringify(domain)}], "reason": "..."} first; the tool was not run.`;
  }
}
