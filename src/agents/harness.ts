/**
 * A small harness: the place plugins (the tool system, later an MCP bridge or a store) are
 * plugged into, started together and closed together, as in `harness.use(new ToolSystem())`.
 *
 * @module
 */
import { ToolgateOptionError } from '../errors/errors.js';

/** Something a {@link Harness} runs. */
export interface HarnessPlugin {
  /** Unique name within a harness (`tool-system` for the {@link ToolSystem}). */
  readonly name: string;
  /** Called by `Harness.start()`, in the order plugins were added. */
  start?(harness: Harness): void | Promise<void>;
  /** Called by `Harness.close()`, in reverse order; errors are collected, not thrown early. */
  close?(): void | Promise<void>;
}

/**
 * Holds plugins by name. `use` adds one (chainable), `start` starts them in order, `close`
 * closes them in reverse order.
 *
 * ```ts
 * const harness = new Harness().use(new ToolSystem({ workspace: '.' }));
 * await harness.start();
 * const tools = harness.get<ToolSystem>('tool-system');
 * ```
 */
export class Harness {
  private readonly plugins = new Map<string, HarnessPlugin>();
  private started = false;

  /**
   * Add a plugin; when the harness has already started, start it by calling `start()` again.
   * @throws ToolgateOptionError when a plugin of that name is already in use.
   */
  use(plugin: HarnessPlugin): this {
    if (plugin === null || typeof plugin !== 'object' || typeof plugin.name !== 'string' || plugin.name === '') {
      throw ToolgateOptionError.fromBadOption('plugin', 'must be an object with a non-empty name');
    }
    if (this.plugins.has(plugin.name)) throw ToolgateOptionError.fromBadOption(`plugin ${plugin.name}`, 'is already in use in this harness');
    this.plugins.set(plugin.name, plugin);
    return this;
  }

  /** The plugin called `name`, or `undefined`. */
  get<T extends HarnessPlugin = HarnessPlugin>(name: string): T | undefined {
    return this.plugins.get(name) as T | undefined;
  }

  /** Names of the plugins, in the order they were added. */
  get names(): string[] {
    return [...this.plugins.keys()];
  }

  private readonly startedPlugins = new Set<HarnessPlugin>();

  /** Start every plugin not started yet, in order (each one's `start` awaited before the next). */
  async start(): Promise<void> {
    for (const plugin of this.plugins.values()) {
      if (this.startedPlugins.has(plugin)) continue;
      await plugin.start?.(this);
      this.startedPlugins.add(plugin);
    }
    this.started = true;
  }

  /** Has `start()` completed at least once? */
  get isStarted(): boolean {
    return this.started;
  }

  /**
   * Close every started plugin in reverse order. Every plugin is closed even when one fails;
   * the first failure is thrown afterwards (as an `AggregateError` when several failed).
   */
  async close(): Promise<void> {
    const errors: unknown[] = [];
    for (const plugin of [...this.startedPlugins].reverse()) {
      try {
        await plugin.close?.();
      } catch (error) {
        errors.push(error);
      }
      this.startedPlugins.delete(plugin);
    }
    this.started = false;
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} harness plugins failed to close`);
  }
}
