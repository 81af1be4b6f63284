/**
 * The policy-file case of `npm run bench`: {@link benchPolicy} measures the whole policy step
 * an executor call pays: `PolicySet.decide` (the stat of both files included) and then the
 * saved-approval lookups (`PolicyFileApprovals.size`, and `has` for each of the call's keys:
 * one, or one per command of a shell call of 1 to 3 commands), for 1,000 mixed calls (file
 * tools with paths, shell calls, network tools) against a 50-rule user file holding 20 saved
 * approvals and a small workspace file. It returns the median µs per call over rounds.
 * Target: at most 50 µs. (The keys are computed beforehand: hashing a call is the remembered
 * decider's, once per call, and does not depend on the files.)
 *
 * Run alone: `npm run build && node dist/scripts/bench-policy.js`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { PolicyCallInput } from '../src/policy/policy-rules.js';
import { createLogger } from '../src/logging/logger.js';
import { PolicySet } from '../src/policy/policy-set.js';
import { PolicyFileApprovals } from '../src/policy/saved-approvals.js';
import type { ShellCommand } from '../src/policy/shell/types.js';

/** 50 rules of every shape: tool, kind, paths, args and command rules. */
function fiftyRules(): string {
  const rules: string[] = ['[[rules]]\naction = "ask"'];
  for (let i = 0; i < 10; i++) rules.push(`[[rules]]\ntool = "tool_${i}_*"\naction = "${i % 3 === 0 ? 'deny' : 'allow'}"`);
  rules.push('[[rules]]\nkind = ["file_read", "mcp_read"]\naction = "allow"');
  for (let i = 0; i < 10; i++) rules.push(`[[rules]]\ntool = "write_file"\npaths = ["area${i}/**", "*.md"]\naction = "allow"`);
  rules.push('[[rules]]\ntool = "write_file"\npaths = ["**/.env", "secrets/**"]\naction = "deny"');
  for (let i = 0; i < 8; i++) rules.push(`[[rules]]\ntool = "http_request"\nargs = { url = "https://api${i}.example.com/**", method = "{GET,HEAD}" }\naction = "allow"`);
  const commands = ['echo *', 'ls', 'cat', 'git status', 'git diff', 'git log', 'npm run test*', 'npm ci', 'grep', 'find . -name *', 'node --version', 'python -m pytest', 'make', 'cargo test', 'go test ./...'];
  for (const c of commands) rules.push(`[[rules]]\ncommand = "${c}"\naction = "allow"`);
  rules.push('[[rules]]\ncommand = "rm"\naction = "deny"\nreason = "no deleting"');
  rules.push('[[rules]]\ncommand = "git push"\naction = "ask"');
  rules.push('[[rules]]\ncommand = "sudo"\naction = "deny"');
  rules.push('[[rules]]\nkind = "network"\ntool = "run_command"\naction = "ask"');
  if (rules.length !== 50) throw new Error(`the bench file has ${rules.length} rules, not 50`);
  return `${rules.join('\n\n')}\n`;
}

function command(text: string, fields: Partial<ShellCommand> = {}): ShellCommand {
  const argv = fields.argv ?? text.split(' ');
  return { argv, program: argv[0]!, wrappers: [], kind: 'shell_command', writes: [], text, ...fields };
}

/** 1,000 calls: a third file tools, a third shell calls of 1 to 3 commands, a third network and other tools. */
function mixedCalls(): PolicyCallInput[] {
  const calls: PolicyCallInput[] = [];
  const shellLines: ShellCommand[][] = [
    [command('git status')],
    [command('echo ok'), command('rm -rf data')],
    [command('npm run test:unit'), command('git diff --stat'), command('grep -n x src/a.ts')],
    [command('ls > out.txt', { argv: ['ls'], writes: ['out.txt'] })],
    [command('curl https://x', { kind: 'network' }), command('cat f')],
    [command('timeout 5 rm -rf x', { argv: ['rm', '-rf', 'x'], wrappers: ['timeout'] })],
  ];
  for (let i = 0; calls.length < 1000; i++) {
    switch (i % 6) {
      case 0: calls.push({ tool: 'write_file', kind: 'file_write', args: { filepath: `area${i % 12}/f${i}.txt`, content: 'x' }, paths: [`area${i % 12}/f${i}.txt`] }); break;
      case 1: calls.push({ tool: 'read_file', kind: 'file_read', args: { filepath: `src/m${i}.ts` }, paths: [`src/m${i}.ts`] }); break;
      case 2: case 3: {
        const cmds = shellLines[i % shellLines.length]!;
        calls.push({ tool: 'run_command', kind: 'shell_command', args: { command: cmds.map((c) => c.text).join(' && ') }, paths: [], shell: { commands: cmds, uncertain: [], kind: cmds.some((c) => c.kind === 'network') ? 'network' : 'shell_command' } });
        break;
      }
      case 4: calls.push({ tool: 'http_request', kind: 'network', args: { url: `https://api${i % 10}.example.com/v1/items/${i}`, method: i % 4 === 0 ? 'POST' : 'GET' }, paths: [] }); break;
      default: calls.push({ tool: `tool_${i % 13}_x`, kind: 'internal', args: {}, paths: [] });
    }
  }
  return calls;
}

/** Median µs per `decide` over `rounds` rounds of the 1,000 calls (one warm-up round uncounted). */
export function benchPolicy(rounds = 31): { medianUs: number; rules: number; calls: number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-policy-'));
  try {
    const user = path.join(dir, 'user.toml');
    const workspace = path.join(dir, 'workspace.toml');
    const key = (n: number) => n.toString(16).padStart(64, '0');
    const saved = Array.from({ length: 20 }, (_, n) => `[[approved]]\nkey = "${key(n * 7)}"\ntool = "run_command"\nsummary = "saved ${n}"\n`);
    fs.writeFileSync(user, `${fiftyRules()}\n${saved.join('\n')}`);
    fs.writeFileSync(workspace, '[[rules]]\ntool = "write_file"\npaths = ["generated/**"]\naction = "deny"\n\n[[rules]]\ncommand = "git push"\naction = "deny"\n');
    const policies = new PolicySet({ user, workspace });
    const approvals = new PolicyFileApprovals(user, createLogger());
    const calls = mixedCalls();
    // One key per command of a shell call, else one; every fifth a saved one.
    const keys = calls.map((call, i) => Array.from({ length: call.shell?.commands.length ?? 1 }, (_, j) => key(i % 5 === 0 && j === 0 ? 7 : 1000 + i * 3 + j)));
    const samples: number[] = [];
    let sink = 0;
    let hits = 0;
    for (let round = 0; round <= rounds; round++) {
      const t0 = performance.now();
      for (let i = 0; i < calls.length; i++) {
        if (policies.decide(calls[i]!).verdict === 'deny') {
          sink++;
          continue;
        }
        if (approvals.size === 0) continue;
        for (const k of keys[i]!) {
          if (!approvals.has(k)) break;
          hits++;
        }
      }
      if (round > 0) samples.push(((performance.now() - t0) * 1000) / calls.length);
    }
    if (sink === 0) throw new Error('the bench calls were never denied: the rules did not load');
    if (hits === 0) throw new Error('no saved approval was ever found: the approvals did not load');
    samples.sort((a, b) => a - b);
    return { medianUs: samples[samples.length >> 1]!, rules: 50, calls: calls.length };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The bench's line for this case. */
export function policyBenchLine(): string {
  const { medianUs, rules, calls } = benchPolicy();
  return `policy decision:            ${medianUs.toFixed(2)} µs  (target <= 50 µs; median of rounds of ${calls} mixed calls, ${rules} rules, stat of both files and the saved-approval lookups included)\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(policyBenchLine());
