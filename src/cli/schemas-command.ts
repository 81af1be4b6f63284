/**
 * `toolgate schemas PATTERN... --out FILE [--check] [--tsconfig FILE]`: generate (or check)
 * the schema file of a project's tools.
 *
 * @module
 */
import path from 'node:path';
import { EXIT, parse, UsageError, type CliContext } from './context.js';


/** Run `toolgate schemas`; `argv` are the arguments after `schemas`. */
export async function schemasCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(argv, { out: { type: 'string' }, check: { type: 'boolean' }, tsconfig: { type: 'string' } });
  if (positionals.length === 0) throw new UsageError('schemas needs at least one PATTERN of TypeScript files');
  if (typeof values.out !== 'string') throw new UsageError('schemas needs --out FILE');
  // Loaded only here: the TypeScript compiler stays out of every other command.
  const { generateSchemas, writeOrCheckSchemaFile } = await import('../schema-gen/generate.js');
  const file = await generateSchemas({ patterns: positionals, tsconfig: values.tsconfig as string | undefined, cwd: ctx.cwd });
  const status = writeOrCheckSchemaFile(path.resolve(ctx.cwd, values.out), file, values.check === true);
  const count = Object.keys(file.tools).length;
  if (values.check) {
    if (status.stale) {
      ctx.stderr.write(`toolgate: ${values.out} is stale (${status.changed.join(', ') || 'formatting'}); run toolgate schemas without --check (npm run schemas) and commit it.\n`);
      return EXIT.failed;
    }
    ctx.stdout.write(`${values.out}: up to date (${count} ${count === 1 ? 'tool' : 'tools'})\n`);
    return EXIT.ok;
  }
  ctx.stdout.write(`${values.out}: ${status.written ? 'written' : 'unchanged'} (${count} ${count === 1 ? 'tool' : 'tools'})\n`);
  return EXIT.ok;
}
