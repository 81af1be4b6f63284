/**
 * Caller services: the session state toolgate's caller-side builtins (`ask_user`,
 * `request_tools`, `run_subagent`, `input_subagent`; see `caller-tools.ts`) and the
 * visibility decider need, handed to them with each call, never through globals.
 *
 * How it travels, in one documented path:
 * 1. the caller makes one {@link CallerServices} per turn or session (the `ToolCallHandler`
 *    for an agent's model turn, the MCP server for a session with lazy domains) and attaches it
 *    to the call's `client` execute option with {@link withServices};
 * 2. the executor hands that client, as it is, to the deciders (`PreparedCall.client`) and to
 *    the tool (`ToolContext.client`; the `main` runner passes the caller's own object);
 * 3. the visibility decider (`src/decisions/visibility.decider.ts`) and the builtins read it
 *    back with {@link servicesOf}, which trusts only an instance of this class.
 *
 * @module
 */
import type { DomainTool, DomainVisibility } from '../registry/lazy-visibility.js';
import type { ToolClient } from '../types/tool.js';
import type { QuestionHandler } from './ask-user.js';
import type { SubagentDriver } from './subagent.js';
import type { TaskService } from '../types/task-service.js';
import type { MemoryStore } from '../types/memory-service.js';

/** What `request_tools` chooses from in one session: the tools a domain request may make visible. */
export interface LazyDomainsScope {
  /** Every tool of the caller's selection, whatever the mode: a domain none has is `unknown`. */
  selected(): readonly DomainTool[];
  /** The selected tools the caller's mode would ever run: a domain none of them has is `not_in_mode`. */
  offered(): readonly DomainTool[];
}

/** What a caller lends; every field is optional and documents what its absence means. */
export interface CallerServicesInit {
  /** Answers `ask_user` (asked one question at a time by the caller). Absent: `ask_user` is denied as unavailable. */
  askUser?: QuestionHandler | undefined;
  /** The session's lazy visibility: calls of tools it hides are denied `TOOL_HIDDEN`. Absent: every tool is visible. */
  visibility?: DomainVisibility | undefined;
  /** With `visibility`: what `request_tools` chooses from. Absent: `request_tools` is denied as unavailable. */
  domains?: LazyDomainsScope | undefined;
  /** The calling agent's children. Absent: `run_subagent` and `input_subagent` are denied as unavailable. */
  subagents?: SubagentDriver | undefined;
  /** The session of the calls (an agent's `<turn id>:<round>`): a subagent's turn id names it. */
  session?: string | undefined;
  /** The turn of the calls (an agent's turn id). */
  turnId?: string | undefined;
  /** The scheduler's service for a call of a task tool (`task-service.ts`). Absent: the task tools answer "unavailable". */
  tasks?: TaskService | undefined;
  /** The tool system's memory store, for a call of a memory tool (`memory-service.ts`). Absent: the memory tools answer "unavailable". */
  memory?: MemoryStore | undefined;
  /**
   * The environment the user's config folder is found from (the tool system's `configEnv`), for
   * a call of `list_skills` or `read_skill`, so that they read the skills the tool system
   * registered. Absent: `process.env`.
   */
  configEnv?: NodeJS.ProcessEnv | undefined;
}

/** The services of one caller's turn or session (frozen; see the module's TSDoc for how they travel). */
export class CallerServices {
  readonly askUser: QuestionHandler | undefined;
  readonly visibility: DomainVisibility | undefined;
  readonly domains: LazyDomainsScope | undefined;
  readonly subagents: SubagentDriver | undefined;
  readonly session: string | undefined;
  readonly turnId: string | undefined;
  readonly tasks: TaskService | undefined;
  readonly memory: MemoryStore | undefined;
  readonly configEnv: NodeJS.ProcessEnv | undefined;

  constructor(init: CallerServicesInit) {
    this.askUser = init.askUser;
    this.visibility = init.visibility;
    this.domains = init.domains;
    this.subagents = init.subagents;
    this.session = init.session;
    this.turnId = init.turnId;
    this.tasks = init.tasks;
    this.memory = init.memory;
    this.configEnv = init.configEnv;
    Object.freeze(this);
  }

  /** These services with `changes` applied (a new object; this one is frozen). */
  with(changes: CallerServicesInit): CallerServices {
    return new CallerServices({ ...this.init(), ...changes });
  }

  private init(): CallerServicesInit {
    return { askUser: this.askUser, visibility: this.visibility, domains: this.domains, subagents: this.subagents, session: this.session, turnId: this.turnId, tasks: this.tasks, memory: this.memory, configEnv: this.configEnv };
  }
}

/** The services a call's client carries, or `undefined` (no client, or its `services` are not a {@link CallerServices}). */
export function servicesOf(client: ToolClient | undefined): CallerServices | undefined {
  const services = client?.services;
  return services instanceof CallerServices ? services : undefined;
}

/**
 * `client` carrying `services` (replacing any it carried): a new object whose handlers are
 * `client`'s own, bound to it; `client` itself when `services` is `undefined`.
 */
export function withServices(client: ToolClient | undefined, services: CallerServices | undefined): ToolClient | undefined {
  if (services === undefined) return client;
  if (client === undefined) return { services };
  const out: { -readonly [K in keyof ToolClient]: ToolClient[K] } = { services };
  if (client.progress !== undefined) out.progress = client.progress.bind(client);
  if (client.log !== undefined) out.log = client.log.bind(client);
  if (client.elicit !== undefined) out.elicit = client.elicit.bind(client);
  if (client.sample !== undefined) out.sample = client.sample.bind(client);
  return out;
}
