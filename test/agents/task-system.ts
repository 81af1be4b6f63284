/**
 * A tool system with the fixture tools for the task-domain tests, its state and config folders
 * (XDG_STATE_HOME, XDG_CONFIG_HOME) in a temporary folder while it runs, restored after.
 */
import path from 'node:path';
import { ToolSystem } from 'toolgate';
import { FIXTURE_SCHEMAS, FIXTURES_DIR, tempWorkspace } from '../helpers.js';

/** The fixture tools (test/fixtures). */
export const FIXTURES = [{ directory: FIXTURES_DIR, schemas: FIXTURE_SCHEMAS }];

/** The task id in a task tool's output, else 'none'. */
export const idOf = (text: string | undefined): string => /"id": "(task_[0-9a-f]{16})"/.exec(text ?? '')?.[1] ?? 'none';

/** A workspace `t`; `start()` in `before`, `stop()` in `after`. */
export function taskSystem(): { t: ReturnType<typeof tempWorkspace>; start(): Promise<ToolSystem>; stop(): Promise<void> } {
  const t = tempWorkspace();
  const saved = { state: process.env.XDG_STATE_HOME, config: process.env.XDG_CONFIG_HOME };
  let tools: ToolSystem | undefined;
  return {
    t,
    async start() {
      process.env.XDG_STATE_HOME = path.join(t.root, 'state');
      process.env.XDG_CONFIG_HOME = path.join(t.root, 'config');
      tools = new ToolSystem({ workspace: t.ws, toolFolders: FIXTURES, executor: { policy: { user: false } } });
      await tools.start();
      return tools;
    },
    async stop() {
      await tools?.close();
      for (const [name, value] of [['XDG_STATE_HOME', saved.state], ['XDG_CONFIG_HOME', saved.config]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      t.cleanup();
    },
  };
}
