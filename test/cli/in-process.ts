/**
 * Running the `toolgate` command in this process (`runCli` with its own streams), for tests
 * of argument parsing, usage errors and output formats. Spawned runs (`runCli` of
 * `test/helpers.ts`) stay for what is about the process: the bin, exit codes, stdin, signals,
 * and the environment child processes inherit.
 */
import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/main.js';
import { REPO_ROOT, type CliRun } from '../helpers.js';
import { onEachPrompt } from '../wait.js';

/**
 * Run `toolgate ARGS...` in process with no terminal: stdin is empty unless `input` is given,
 * the folder is the repository root unless `cwd` says otherwise. With `atPrompt`, stdin is a
 * fake terminal instead, on which each confirmation prompt is answered with what `atPrompt`
 * gives (it gets what stderr holds so far).
 */
export async function cliInProcess(args: string[], options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv; atPrompt?: (stderr: string) => string | Promise<string> } = {}): Promise<CliRun> {
  const { atPrompt } = options;
  const stdin = Object.assign(new PassThrough(), { isTTY: atPrompt !== undefined });
  if (atPrompt === undefined) stdin.end(options.input ?? '');
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  if (atPrompt !== undefined) onEachPrompt(stderr, '[N]o ', () => void Promise.resolve(atPrompt(err)).then((answer) => stdin.write(`${answer}\n`)));
  const code = await runCli(args, { stdin, stdout, stderr, cwd: options.cwd ?? REPO_ROOT, env: options.env ?? process.env });
  // PassThrough delivers 'data' on a later turn: let it drain before reading.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: out, stderr: err };
}
