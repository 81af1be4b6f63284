/**
 * `toolgate list [--tag T]... [--domain D]... [--json]`: the tools, one line each (with their
 * lazy domain, `-` for core tools), or as JSON; `--domain` keeps the tools of those domains
 * (`core` for the tools without one).
 *
 * @module
 */
import { EXIT, logLevel, parse, UsageError, type CliContext } from './context.js';
import { cliToolRegistry } from './tool-registry.js';


function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(flat);
  return m ? m[1]! : flat;
}

/** Run `toolgate list`; `argv` are the arguments after `list`. */
export async function listCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values } = parse(argv, { tag: { type: 'string', multiple: true }, domain: { type: 'string', multiple: true }, json: { type: 'boolean' } });
  const level = logLevel(values);
  // The registry alone: listing imports no tool module and no executor.
  const loaded = await cliToolRegistry(values, ctx, { workspace: ctx.cwd, logLevel: level });
  try {
    const { registry } = loaded;
    const tags = values.tag as string[] | undefined;
    const known = new Set(registry.list().flatMap((t) => t.tags));
    const unknown = (tags ?? []).filter((t) => !known.has(t));
    if (unknown.length) throw new UsageError(`no tool has the tag ${unknown.join(', ')}; tags in use: ${[...known].sort().join(', ')}`);
    const domains = values.domain as string[] | undefined;
    const inUse = new Set(registry.list().map((t) => t.domain ?? 'core'));
    const unknownDomains = (domains ?? []).filter((d) => !inUse.has(d));
    if (unknownDomains.length) throw new UsageError(`no tool has the domain ${unknownDomains.join(', ')}; domains in use: ${[...inUse].sort().join(', ')}`);
    const tools = registry.list({ tags }).filter((t) => domains === undefined || domains.includes(t.domain ?? 'core'));
    if (values.json) {
      const rows = tools.map((t) => ({
        name: t.name, version: t.version, description: t.description, tags: t.tags, domain: t.domain ?? null, kind: t.kind, readOnly: t.readOnly,
        requiresConfirmation: t.requiresConfirmation, timeoutMs: t.timeoutMs, rateLimitRpm: t.rateLimitRpm ?? null,
        memoryMb: t.memoryMb ?? null, maxOutputLength: t.maxOutputLength, runner: t.runner, revision: t.revision,
        versions: registry.versions(t.name),
      }));
      ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return EXIT.ok;
    }
    const header = ['NAME', 'VERSION', 'KIND', 'ACCESS', 'CONFIRM', 'DOMAIN', 'TAGS', 'DESCRIPTION'];
    const rows = tools.map((t) => [t.name, t.version, t.kind, t.readOnly ? 'read' : 'write', t.requiresConfirmation ? 'yes' : 'no', t.domain ?? '-', t.tags.join(','), firstSentence(t.description)]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const row of [header, ...rows]) {
      ctx.stdout.write(`${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
    }
    return EXIT.ok;
  } finally {
    await loaded.close();
  }
}
