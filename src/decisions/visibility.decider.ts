/**
 * Visibility: the one place that decides what a caller is offered and which calls are refused
 * for what the caller can see. Every rule is here; the tool system, the agents and the MCP
 * server ask it and keep no rule of their own.
 *
 * Offer (what a model is shown, {@link offers} and {@link offeredCallerTools}):
 * - **selection** ({@link isSelected}): the tool is inside every selection of its caller (the
 *   tool system's `tags`; `toolgate mcp`'s `--tool` / `--tag`). A caller tool never is.
 * - **mode** ({@link isOfferedInMode}): the mode would ever let it run (a read-only mode offers
 *   read-only tools, plus scoped-write tools when it has scoped folders). Only what would always
 *   be denied is hidden; the mode decider still decides every call.
 * - **model class** ({@link isOfferedToModel}): the tool is meant for the model's class (`forModel`).
 * - **lazy domains**: the session's {@link DomainVisibility} shows it (core, or a domain asked for).
 * - **caller tools** (`ask_user`, `request_tools`, `run_subagent`, `input_subagent`;
 *   `src/builtin/caller-tools.ts`): offered by what the caller answers with
 *   ({@link CallerToolOffer}), never by a selection; in a known mode only.
 *
 * Refusal of a call (the {@link VisibilityDecider}, asked first in the pipeline, and
 * {@link isCallable} for callers that refuse before the executor):
 * - a tool outside the selection does not exist for the caller (`UNKNOWN_TOOL`, before its
 *   arguments are read: the tool system's `execute`, the MCP server's protocol error);
 * - a caller tool whose caller lent no service to answer it (`CallerServices` on the call's
 *   client) is denied `UNKNOWN_TOOL` saying why ({@link callerToolUnavailable});
 * - a tool a lazy domain still hides is denied `TOOL_HIDDEN` naming `request_tools` and the
 *   domain, but only where the mode would run it (else the mode decider's `MODE_DENIED`).
 *
 * Visibility is not authorization: an `allow` is never said here. A call with no caller
 * services costs the decider two property reads.
 *
 * @module
 */
import { ASK_USER_TOOL, ASK_USER_UNAVAILABLE } from '../builtin/ask-user.js';
import { servicesOf, type CallerServices } from '../builtin/caller-services.js';
import { INPUT_SUBAGENT, RUN_SUBAGENT, SUBAGENT_DEPTH_MESSAGE } from '../builtin/subagent.js';
import type { AgentMode } from '../modes/modes.js';
import { REQUEST_TOOLS_NAME, type DomainVisibility } from '../registry/lazy-visibility.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import { isCallerTool } from '../registry/visibility.js';
import type { ModelClass } from '../types/model-class.js';
import { deny, type Decider, type Decision, type PreparedCall } from './decision.js';

const NAME = 'visibility';

/** One choice of tools (the tool system's `tags`; `toolgate mcp`'s `--tool` / `--tag`). */
export interface ToolSelectionFilter {
  /** Keep tools carrying at least one of these tags. Default: every tool. */
  tags?: ReadonlySet<string> | readonly string[] | undefined;
  /** Keep only these names. Default: every name. */
  names?: ReadonlySet<string> | readonly string[] | undefined;
}

/** A tool as visibility reads it. */
type SeenTool = Pick<RegisteredTool, 'name' | 'tags'> & { readonly source?: string };

/** Who looks: everything the offer of an ordinary tool depends on. */
export interface Viewer {
  /** Selections the tool must be inside, every one of them. Default none (every tool). */
  selections?: readonly ToolSelectionFilter[];
  /** The call's mode; `undefined` (an unknown mode) offers nothing. */
  mode: AgentMode | undefined;
  /** Scoped write folders the caller adds to the mode's own. Default none. */
  scopedWriteDirs?: readonly string[];
  /** The executor's `scopedWriteTools` narrowing. Default: every scoped-write tool. */
  scopedWriteTools?: ReadonlySet<string>;
  /** The model's class. Default: every tool, whatever its `forModel`. */
  modelClass?: ModelClass;
  /** The session's lazy visibility. Default: every domain shown. */
  visibility?: DomainVisibility;
}

/** What a caller answers caller tools with, as the offer sees it. */
export interface CallerToolOffer {
  /**
   * The caller answers `ask_user` (an agent's question handler; `toolgate mcp` unless its
   * `askUser` option is false). Default false.
   */
  askUser?: boolean;
  /**
   * Selections `ask_user` must be inside, as if it were an ordinary tool (`toolgate mcp`: its
   * `--tool` / `--tag` and the tool system's tags; a config toolset names exactly what it
   * serves). Default none.
   */
  askUserSelections?: readonly ToolSelectionFilter[];
  /** Lazy visibility is on: the domains of the caller's selection (`request_tools` is offered when there is one, callable when on). Default: off. */
  lazyDomains?: readonly string[];
  /** The depth of the caller's subagent driver (0: a parent, offered the subagent tools; 1: a child). Default: no subagents. */
  subagentDepth?: 0 | 1;
}

function has(list: ReadonlySet<string> | readonly string[], value: string): boolean {
  return Array.isArray(list) ? list.includes(value) : (list as ReadonlySet<string>).has(value);
}

function isEmpty(list: ReadonlySet<string> | readonly string[] | undefined): boolean {
  return list === undefined || (Array.isArray(list) ? list.length === 0 : (list as ReadonlySet<string>).size === 0);
}

function holds(tool: Pick<RegisteredTool, 'name' | 'tags'>, filter: ToolSelectionFilter): boolean {
  if (!isEmpty(filter.names) && !has(filter.names!, tool.name)) return false;
  return isEmpty(filter.tags) || tool.tags.some((t) => has(filter.tags!, t));
}

/** Is `tool` inside every one of `selections` (an empty or absent list selects everything)? A caller tool never is. */
export function isSelected(tool: SeenTool, ...selections: ToolSelectionFilter[]): boolean {
  return !isCallerTool(tool) && selections.every((s) => holds(tool, s));
}

/**
 * Would `mode` ever let `tool` run? `false` for an unknown mode (`undefined`): nothing is
 * offered where everything is denied.
 * @param scopedWriteDirs - scoped write folders the caller adds to the mode's own.
 * @param scopedWriteTools - the executor's `scopedWriteTools` narrowing, if any.
 */
export function isOfferedInMode(
  tool: Pick<RegisteredTool, 'name' | 'readOnly' | 'scopedWrite'>, mode: AgentMode | undefined, scopedWriteDirs: readonly string[] = [], scopedWriteTools?: ReadonlySet<string>,
): boolean {
  if (mode === undefined) return false;
  if (!mode.readOnly || tool.readOnly) return true;
  const scoped = (mode.scopedWriteDirs?.length ?? 0) + scopedWriteDirs.length > 0;
  return scoped && tool.scopedWrite && (scopedWriteTools === undefined || scopedWriteTools.has(tool.name));
}

/** Is `tool` offered to a model of class `modelClass`? Yes when the tool names no class or names this one; every tool when no class is given. */
export function isOfferedToModel(tool: Pick<RegisteredTool, 'forModel'>, modelClass: ModelClass | undefined): boolean {
  return modelClass === undefined || tool.forModel === undefined || tool.forModel === modelClass;
}

/** Is the ordinary `tool` offered to `viewer` (selection, mode, model class, lazy domains)? A caller tool never is: see {@link offeredCallerTools}. */
export function offers(tool: RegisteredTool, viewer: Viewer): boolean {
  return isSelected(tool, ...(viewer.selections ?? []))
    && isOfferedInMode(tool, viewer.mode, viewer.scopedWriteDirs, viewer.scopedWriteTools)
    && isOfferedToModel(tool, viewer.modelClass)
    && (viewer.visibility === undefined || viewer.visibility.shows(tool));
}

/** The caller tools `offer` lets be called (listed or not): `ask_user` inside its selections, `request_tools` with lazy domains on, the subagent tools for a parent. */
function callableCallerTools(offer: CallerToolOffer): string[] {
  const names: string[] = [];
  if (offer.askUser === true && (offer.askUserSelections ?? []).every((s) => holds(ASK_USER_TOOL, s))) names.push(ASK_USER_TOOL.name);
  if (offer.lazyDomains !== undefined) names.push(REQUEST_TOOLS_NAME);
  if (offer.subagentDepth === 0) names.push(RUN_SUBAGENT, INPUT_SUBAGENT);
  return names;
}

/**
 * The caller tools a caller lists, in the order models are shown them: `ask_user`,
 * `run_subagent`, `input_subagent`, `request_tools` (only while some domain exists). None in an
 * unknown mode (`undefined`): caller tools are read-only, so any known mode runs them.
 */
export function offeredCallerTools(offer: CallerToolOffer, mode: AgentMode | undefined): string[] {
  if (mode === undefined) return [];
  const names = callableCallerTools(offer).filter((n) => n !== REQUEST_TOOLS_NAME);
  if ((offer.lazyDomains?.length ?? 0) > 0) names.push(REQUEST_TOOLS_NAME);
  return names;
}

/**
 * May the caller call `tool` at all (does it exist for the caller)? An ordinary tool when it is
 * inside `selections` (mode and lazy domains are the decider's, on the call); a caller tool
 * when `offer` lets it be called. For callers that refuse a call before the executor
 * (the MCP server's protocol error for an unknown tool).
 */
export function isCallable(tool: RegisteredTool, selections: readonly ToolSelectionFilter[], offer: CallerToolOffer): boolean {
  return isCallerTool(tool) ? callableCallerTools(offer).includes(tool.name) : isSelected(tool, ...selections);
}

/**
 * Does `tool` exist for a caller with these selections, lending its services on each call (the
 * tool system)? An ordinary tool inside them does; a caller tool always does, and whether its
 * caller lent what answers it is decided on the call (the {@link VisibilityDecider}).
 */
export function existsFor(tool: SeenTool, ...selections: ToolSelectionFilter[]): boolean {
  return isCallerTool(tool) || isSelected(tool, ...selections);
}

/** Message of `request_tools` when the session has no lazy domains. */
const REQUEST_TOOLS_UNAVAILABLE = `${REQUEST_TOOLS_NAME} is unavailable: tools are not grouped in domains here, so every tool you may use is offered already.`;

/**
 * Why a call of the caller tool `name` cannot be answered with what the caller lent
 * (`services`), or `undefined` when it can (and for a name that is no caller tool).
 */
function callerToolUnavailable(name: string, services: CallerServices | undefined): string | undefined {
  switch (name) {
    case ASK_USER_TOOL.name:
      return services?.askUser === undefined ? ASK_USER_UNAVAILABLE : undefined;
    case REQUEST_TOOLS_NAME:
      return services?.visibility === undefined || services.domains === undefined ? REQUEST_TOOLS_UNAVAILABLE : undefined;
    case RUN_SUBAGENT:
    case INPUT_SUBAGENT: {
      const driver = services?.subagents;
      if (driver === undefined) return `${name} is unavailable: this agent was given no subagents, so it cannot start or drive any. Do the work yourself with your other tools.`;
      return driver.depth === 0 ? undefined : `${name} is ${SUBAGENT_DEPTH_MESSAGE}`;
    }
    default:
      return undefined;
  }
}

/** The visibility step of the pipeline: what the caller lent reaches it with the call (`PreparedCall.client`). */
export class VisibilityDecider implements Decider {
  readonly name = NAME;

  /** @param scopedWriteTools - the executor's narrowing of the `scopedWrite` tools (whether a read-only mode would run a tool). */
  constructor(private readonly scopedWriteTools: ReadonlySet<string> | undefined) {}

  decide(call: PreparedCall): Decision | undefined {
    const { tool, client } = call;
    if (isCallerTool(tool)) {
      const missing = callerToolUnavailable(tool.name, servicesOf(client));
      return missing === undefined ? undefined : deny(NAME, 'UNKNOWN_TOOL', missing);
    }
    if (client === undefined) return undefined;
    const visibility = servicesOf(client)?.visibility;
    if (visibility === undefined || !isOfferedInMode(tool, call.mode, call.scopedWriteDirs, this.scopedWriteTools)) return undefined;
    const hidden = visibility.hiddenMessage(tool);
    return hidden === undefined ? undefined : deny(NAME, 'TOOL_HIDDEN', hidden, `domain ${visibility.domainOf(tool)}`);
  }
}
