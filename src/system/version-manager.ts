/**
 * The version manager of a {@link ToolSystem}: pins of tools to semver ranges per agent,
 * deprecations whose message reaches the model, and registration revisions.
 *
 * @module
 */
import { isValidRange } from '../util/semver.js';
import { ToolgateOptionError } from '../errors/errors.js';
import { RegisteredTool } from '../registry/registered-tool.js';
import type { ToolRegistry } from '../registry/registry.js';

/** One registered version of a tool, as {@link ToolVersionManager.versions} lists it. */
export interface ToolVersionInfo {
  /** Tool name. */
  name: string;
  /** Semver version. */
  version: string;
  /** Registration revision (SHA-256 hex; see `registrationRevision`). */
  revision: string;
  /** The version calls get when no range is given (the highest release). */
  latest: boolean;
  /** Deprecation message, when the version is deprecated. */
  deprecated?: string;
}

/**
 * Pins, deprecations and revisions over a registry. Pins are per agent name: an agent's
 * calls (and the specs it is offered) use the highest version inside its pinned range; other
 * agents are not affected.
 */
export class ToolVersionManager {
  private readonly pinsByAgent = new Map<string, Map<string, string>>();
  private readonly deprecations = new Map<string, string>();

  constructor(private readonly registry: ToolRegistry) {}

  /**
   * Pin `name` to a semver range for one agent.
   * @param agent - agent name (as given in `AgentOptions.name`, or any key the caller uses).
   * @param range - a semver range such as `^1.0.0` or `1.2.x`.
   * @throws ToolgateOptionError when the range is not a semver range, or no registered
   *   version of `name` satisfies it (pin after the tools are loaded: `ToolSystem.start()`).
   */
  pin(agent: string, name: string, range: string): void {
    if (typeof range !== 'string' || !isValidRange(range)) {
      throw ToolgateOptionError.fromBadOption(`pins.${agent}.${name}`, `must be a semver range such as ^1.0.0; got ${JSON.stringify(range)}`);
    }
    const found = this.registry.resolve(name, range);
    if (!(found instanceof RegisteredTool)) throw ToolgateOptionError.fromBadOption(`pins.${agent}.${name}`, `matches no registered tool: ${found.message}`);
    let pins = this.pinsByAgent.get(agent);
    if (pins === undefined) this.pinsByAgent.set(agent, (pins = new Map()));
    pins.set(name, range);
  }

  /** Remove a pin; the agent gets the latest version again. */
  unpin(agent: string, name: string): void {
    this.pinsByAgent.get(agent)?.delete(name);
  }

  /** The pins of one agent, `{ name: range }`. */
  pins(agent: string): Record<string, string> {
    return Object.fromEntries(this.pinsByAgent.get(agent) ?? []);
  }

  /** The range an agent's calls to `name` use, or `undefined` for the latest version. */
  rangeFor(agent: string | undefined, name: string): string | undefined {
    return agent === undefined ? undefined : this.pinsByAgent.get(agent)?.get(name);
  }

  /** The version an agent's call to `name` runs (its pin, else the latest), or `undefined`. */
  resolve(name: string, agent?: string): RegisteredTool | undefined {
    return this.registry.get(name, this.rangeFor(agent, name));
  }

  /** Every registered version of `name`, ascending, with revision and deprecation. */
  versions(name: string): ToolVersionInfo[] {
    const latest = this.registry.get(name)?.version;
    return this.registry.versions(name).map((version) => {
      const tool = this.registry.get(name, version)!;
      const info: ToolVersionInfo = { name, version, revision: tool.revision, latest: version === latest };
      const message = this.deprecations.get(tool.key);
      if (message !== undefined) info.deprecated = message;
      return info;
    });
  }

  /**
   * Deprecate one version. The message is put before the tool's description in the specs the
   * model is offered, and after the output of every call that runs this version, so the model
   * learns what to use instead.
   * @param message - what to use instead, in one sentence (at most 500 characters).
   * @throws ToolgateOptionError when `name@version` is not registered or the message is empty.
   */
  deprecate(name: string, version: string, message: string): void {
    const tool = this.registry.get(name, version);
    if (tool === undefined || tool.version !== version) {
      throw ToolgateOptionError.fromBadOption(`deprecations.${name}@${version}`, `names no registered version; registered: ${this.registry.versions(name).join(', ') || '(none)'}`);
    }
    if (typeof message !== 'string' || message.trim() === '' || message.length > 500) {
      throw ToolgateOptionError.fromBadOption(`deprecations.${name}@${version}`, 'needs a message of 1 to 500 characters saying what to use instead');
    }
    this.deprecations.set(tool.key, message.trim());
  }

  /** The deprecation message of `name@version`, or `undefined`. */
  deprecation(name: string, version: string | undefined): string | undefined {
    return version === undefined ? undefined : this.deprecations.get(`${name}@${version}`);
  }

  /** Registration revision of the version an agent's calls to `name` run, or `undefined`. */
  revision(name: string, agent?: string): string | undefined {
    return this.resolve(name, agent)?.revision;
  }
}
