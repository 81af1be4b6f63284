/**
 * `toolgate skills list | trust NAME | untrust NAME`: the skills found for a workspace (the
 * user's and the workspace's `.toolgate/skills/`), and trusting a workspace skill by its
 * content. Trust is the user's `skills-trust.json` (beside `policy.toml`: a config file, not
 * state, so no `--state-dir`): it pins each trusted skill's digest, and a skill changed since
 * is untrusted again (docs/skills.md). `trust` shows what it trusts (the folder's files, the
 * tools the skill declares, how each runs) and pins the digest of exactly the bytes it read
 * and showed; off a terminal it needs `--yes`. The skills' modules are the ported tools'
 * (`tools-ported/skills/`), loaded by URL as the tool system loads them.
 *
 * Exit codes: 0 done; 1 a skill that cannot be pinned, a trust file that cannot be written, or
 * the person said no; 2 usage: no such skill, `--state-dir`, and `trust` off a terminal
 * without `--yes`.
 *
 * @module
 */
import readline from 'node:readline/promises';
import { EXIT, parse, UsageError, workspaceOption, type CliContext } from './context.js';
import { terminalSafe } from './terminal.js';

/** The shapes of the skills' modules this command uses (`tools-ported/skills/`). */
interface SkillTool { name: string; description: string; run: { type: 'shell'; command: string } | { type: 'script'; file: string } | { type: 'http'; method: string; url: string } }
interface Skill { name: string; id: string; origin: 'user' | 'workspace'; folder: string; description: string; tools: readonly SkillTool[] }
type Entry = { type: 'file'; bytes: Buffer } | { type: 'link'; target: string } | { type: 'other' };
interface Catalog {
  skills: readonly Skill[];
  trusted: ReadonlySet<Skill>;
  problems: ReadonlyArray<{ file: string; message: string }>;
  snapshots: ReadonlyMap<Skill, { entries: ReadonlyMap<string, Entry>; digest: string }>;
  pins: ReadonlyMap<string, string>;
  workspaceRoot: string | undefined;
  trustFile: string;
}
interface CatalogModule { findSkills(options: { workspaceRoot: string; env: NodeJS.ProcessEnv }): Catalog }
interface TrustFileModule { setSkillPin(file: string, root: string, name: string, digest: string | undefined): { changed: boolean; before: string | undefined } }

const CATALOG_MODULE = new URL('../../tools-ported/skills/skill-catalog.js', import.meta.url);
const TRUST_FILE_MODULE = new URL('../../tools-ported/skills/skill-trust-file.js', import.meta.url);

/** Run `toolgate skills`; `argv` are the arguments after `skills`. */
export async function skillsCommand(argv: string[], ctx: CliContext): Promise<number> {
  // --state-dir is parsed only to say why it does not apply (every other stateful command takes it).
  const { values, positionals } = parse(argv, { workspace: { type: 'string' }, yes: { type: 'boolean', short: 'y' }, json: { type: 'boolean' }, 'state-dir': { type: 'string' } });
  const [action = 'list', name, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  if (!['list', 'trust', 'untrust'].includes(action)) throw new UsageError(`skills: unknown action ${JSON.stringify(action)} (list, trust NAME, untrust NAME)`);
  if (action === 'list' ? name !== undefined : name === undefined) throw new UsageError(action === 'list' ? 'skills list takes no NAME' : `skills ${action} needs the skill's NAME (toolgate skills list shows them)`);
  const workspace = workspaceOption(values, ctx);
  const { findSkills } = (await import(CATALOG_MODULE.href)) as CatalogModule;
  const catalog = findSkills({ workspaceRoot: workspace, env: ctx.env });
  if (values['state-dir'] !== undefined) {
    throw new UsageError(`skills takes no --state-dir: trust is your configuration, not state; it is kept in ${catalog.trustFile} (your config folder: $XDG_CONFIG_HOME/toolgate, else ~/.config/toolgate), which every command reads whatever its --state-dir; set XDG_CONFIG_HOME to keep it elsewhere`);
  }
  if (action === 'list') return list(catalog, values.json === true, ctx);
  const skill = catalog.skills.find((s) => s.name === name || s.id === name);
  if (skill === undefined) {
    // A name that is not there is a usage error (exit 2), as an unknown tool is for `call`.
    for (const p of catalog.problems) ctx.stderr.write(`toolgate: not loaded: ${terminalSafe(p.message, false)}\n`);
    throw new UsageError(`no skill ${JSON.stringify(name)} for ${workspace}; skills: ${catalog.skills.map((s) => s.name).join(', ') || '(none)'} (toolgate skills list shows them)`);
  }
  if (skill.origin === 'user') {
    ctx.stderr.write(`toolgate: ${skill.name} is one of your own skills (${skill.folder}): those are trusted without a pin; to stop using it, move it out of that folder\n`);
    return action === 'trust' ? EXIT.ok : EXIT.failed;
  }
  const { setSkillPin } = (await import(TRUST_FILE_MODULE.href)) as TrustFileModule;
  if (action === 'untrust') {
    const change = setSkillPin(catalog.trustFile, catalog.workspaceRoot!, skill.name, undefined);
    ctx.stdout.write(change.changed ? `${skill.name} is no longer trusted in ${catalog.workspaceRoot} (${catalog.trustFile}): its tools are not registered from the next start\n` : `${skill.name} was not trusted in ${catalog.workspaceRoot}; nothing changed\n`);
    return EXIT.ok;
  }
  return trust(skill, catalog, values.yes === true, setSkillPin, ctx);
}

/** A skill's trust: `trusted`, `untrusted`, or `changed` (pinned, but its content is not the pinned one). */
function status(skill: Skill, catalog: Catalog): 'trusted' | 'untrusted' | 'changed' {
  if (catalog.trusted.has(skill)) return 'trusted';
  return skill.origin === 'workspace' && catalog.pins.has(skill.name) ? 'changed' : 'untrusted';
}

function list(catalog: Catalog, json: boolean, ctx: CliContext): number {
  const rows = catalog.skills.map((s) => ({ name: s.name, origin: s.origin, status: status(s, catalog), digest: catalog.snapshots.get(s)?.digest, pinned: s.origin === 'workspace' ? catalog.pins.get(s.name) : undefined, folder: s.folder, tools: s.tools.map((t) => t.name) }));
  if (json) {
    ctx.stdout.write(`${JSON.stringify({ skills: rows, problems: catalog.problems, trustFile: catalog.trustFile }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) ctx.stdout.write(`no skills for ${catalog.workspaceRoot} (folders with a SKILL.md in your config folder's skills/ or the workspace's .toolgate/skills/)\n`);
  else {
    const cells = rows.map((r) => [r.name, r.origin, r.origin === 'user' ? 'trusted (yours)' : r.status, r.digest === undefined ? '-' : `${r.digest.slice(0, 23)}…`, r.tools.join(', ') || '-']);
    const head = ['NAME', 'ORIGIN', 'STATUS', 'DIGEST', 'TOOLS'];
    const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
    const line = (c: string[]) => c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
    ctx.stdout.write(`${[line(head), ...cells.map(line)].map((l) => terminalSafe(l, false)).join('\n')}\n`);
  }
  for (const p of catalog.problems) ctx.stdout.write(`not loaded: ${terminalSafe(p.message, false)}\n`);
  if (rows.some((r) => r.origin === 'workspace' && r.status !== 'trusted')) ctx.stdout.write('A workspace skill\'s tools are registered only once you trust its content: toolgate skills trust NAME (it shows the files and tools first).\n');
  return EXIT.ok;
}

/** Show what `skill` would be trusted with, ask (or take `--yes`), and pin the digest of what was shown. */
async function trust(skill: Skill, catalog: Catalog, yes: boolean, setSkillPin: TrustFileModule['setSkillPin'], ctx: CliContext): Promise<number> {
  const snapshot = catalog.snapshots.get(skill);
  if (snapshot === undefined) {
    ctx.stderr.write(`toolgate: ${skill.name} cannot be trusted: its folder ${skill.folder} is over 512 files or 16 MiB, or could not be read whole\n`);
    return EXIT.failed;
  }
  if (catalog.trusted.has(skill)) {
    ctx.stdout.write(`${skill.name} is trusted already with this content (${snapshot.digest})\n`);
    return EXIT.ok;
  }
  const out: string[] = [`Skill ${skill.name} of the workspace ${catalog.workspaceRoot}`, `Folder: ${skill.folder}`, `Description: ${skill.description}`, `Digest: ${snapshot.digest}${catalog.pins.has(skill.name) ? ` (pinned before: ${catalog.pins.get(skill.name)}; the content changed since)` : ''}`, `Files (${snapshot.entries.size}):`];
  for (const [rel, entry] of snapshot.entries) out.push(`  ${rel}${entry.type === 'file' ? `  (${entry.bytes.length} bytes)` : entry.type === 'link' ? `  -> ${entry.target} (symbolic link)` : '  (not a regular file)'}`);
  out.push(skill.tools.length === 0 ? 'Tools: none (instructions only)' : `Tools it declares (${skill.tools.length}; each call is still decided by your policy, and asks by default):`);
  for (const t of skill.tools) out.push(`  ${t.name}: ${t.description}`, `    runs: ${t.run.type === 'shell' ? `shell ${t.run.command}` : t.run.type === 'script' ? `script ${t.run.file}` : `http ${t.run.method} ${t.run.url}`}`);
  ctx.stdout.write(`${out.map((l) => terminalSafe(l, false)).join('\n')}\n`);
  if (!yes) {
    if (ctx.stdin.isTTY !== true) throw new UsageError(`skills trust: not on a terminal, so nobody can confirm; review the above and run again with --yes to trust this content of ${skill.name}`);
    const rl = readline.createInterface({ input: ctx.stdin, output: ctx.stderr, terminal: true });
    let typed: string;
    try {
      typed = await rl.question(`Trust this content of ${skill.name} (its tools register at the next start)? [y/N] `);
    } finally {
      rl.close();
      ctx.stdin.pause();
    }
    if (!/^y(es)?$/i.test(typed.trim())) {
      ctx.stdout.write('not trusted; nothing changed\n');
      return EXIT.failed;
    }
  }
  try {
    setSkillPin(catalog.trustFile, catalog.workspaceRoot!, skill.name, snapshot.digest);
  } catch (error) {
    ctx.stderr.write(`toolgate: ${(error as Error).message}\n`);
    return EXIT.failed;
  }
  ctx.stdout.write(`trusted ${skill.name} with ${snapshot.digest} in ${catalog.trustFile}; a change to any of its files makes it untrusted again\n`);
  return EXIT.ok;
}
