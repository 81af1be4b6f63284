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
  const [{ generateSchemas, writeOrCheckSchemaFile }, { findFiles }] = await Promise.all([import('../schema-gen/generate.js'), import('../util/glob.js')]);
  // A pattern that matches nothing is a typo or a wrong folder, not a project without tools.
  for (const pattern of positionals) {
    const found = (await findFiles([pattern], ctx.cwd, ['**/*.d.ts'])).filter((f) => /\.(ts|mts|tsx)$/.test(f));
    if (found.length === 0) throw new UsageError(`schemas: ${pattern} matches no TypeScript file (.ts, .mts, .tsx) under ${ctx.cwd}`);
  }
  const file = await generateSchemas({ patterns: positionals, tsconfig: values.tsconfig as string | undefined, cwd: ctx.cwd });
  const status = writeOrCheckSchemaFile(path.resolve(ctx.cwd, values.out), file, values.check === true);
  const count = Object.keys(file.tools).length;
  if (values.check) {
    if (status.stale) {
      ctx.stderr.write(`toolgate: ${values.out} is stale (${status.changed.join(', ') || 'formatting'}); run the same toolgate schemas command without --check and commit the file.\n`);
      return EXIT.failed;
    }
    ctx.stdout.write(`${values.out}: up to date (${count} ${count === 1 ? 'tool' : 'tools'})\n`);
    return EXIT.ok;
  }
  ctx.stdout.write(`${values.out}: ${status.written ? 'written' : 'unchanged'} (${count} ${count === 1 ? 'tool' : 'tools'})\n`);
  return EXIT.ok;
}
