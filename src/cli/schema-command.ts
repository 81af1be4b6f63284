/**
 * `toolgate schema NAME [--version RANGE] [--format openai|openai-strict|anthropic|mcp]`:
 * one tool's spec in a provider's shape.
 *
 * @module
 */
import { EXPORT_FORMATS, exportTool, type ExportFormat } from '../formats/export.js';
import { EXIT, logLevel, parse, UsageError, type CliContext } from './context.js';
import { cliToolRegistry } from './tool-registry.js';


/** Run `toolgate schema`; `argv` are the arguments after `schema`. */
export async function schemaCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(argv, { version: { type: 'string' }, format: { type: 'string' } });
  const level = logLevel(values);
  const name = positionals[0];
  if (!name || positionals.length > 1) throw new UsageError('schema takes one tool NAME');
  const format = (values.format as string | undefined) ?? 'openai';
  if (!EXPORT_FORMATS.includes(format as ExportFormat)) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}; got ${format}`);
  // The registry alone: printing a spec imports no tool module and no executor.
  const loaded = await cliToolRegistry(values, ctx, { workspace: ctx.cwd, logLevel: level });
  try {
    const found = loaded.registry.resolve(name, values.version as string | undefined);
    if ('found' in found) throw new UsageError(found.message);
    ctx.stdout.write(`${JSON.stringify(exportTool(found, format as ExportFormat), null, 2)}\n`);
    return EXIT.ok;
  } finally {
    await loaded.close();
  }
}
