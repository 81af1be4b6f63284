/**
 * The shell analysis checked against bash itself (issue 30, item 9): generated command lines
 * (`differential-lines.ts`) are judged by the policy under the allow rules a user would write
 * for the programs each names (`differential-check.ts`); every line the policy allows runs
 * inside the sandbox under strace (`differential-trace.ts`), and a program executed or a file
 * written that the analysis did not report is a failure. Lines the policy asks about or denies
 * need no comparison.
 *
 * `npm test` runs {@link DEFAULT_LINES} lines; `TOOLGATE_DIFF=1` runs {@link FLAGGED_LINES}
 * (`.ci/run` does), `TOOLGATE_DIFF_LINES=N` any number. The generator is seeded: every run
 * sees the same lines. The counts (lines generated, allowed, compared, failures) and one
 * shortest line per failing family are printed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../src/policy/shell/analyze.js';
import { decide, unreported, type Unreported } from './differential-check.js';
import { generateCases, generateLines } from './differential-lines.js';
import { makeTemplate, traceAvailable, traceLine } from './differential-trace.js';

const DEFAULT_LINES = 300;
const FLAGGED_LINES = 5000;
/** Lines traced at once (the machine has 2 cores). */
const CONCURRENCY = 2;

const wanted = Number(process.env.TOOLGATE_DIFF_LINES ?? (process.env.TOOLGATE_DIFF === '1' ? FLAGGED_LINES : DEFAULT_LINES));
const unavailable = traceAvailable();

let root: string;
let template: string;
let analyze: ShellAnalyzer;

before(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-diff-')));
  analyze = await loadShellAnalyzer();
  if (unavailable === undefined) template = makeTemplate(root);
});

after(() => {
  if (root !== undefined) fs.rmSync(root, { recursive: true, force: true });
});

/** One failing line. */
interface Failure extends Unreported {
  readonly line: string;
}

/** A family: what went unreported, by the program of the form the line was made from. */
function familyOf(failure: Failure, base: string): string {
  const program = base.split(' ')[0]!;
  if (failure.programs.length === 0) return `${program}: writes files it does not name`;
  const executed = failure.programs[0]!.split(' ')[0]!;
  return executed === program ? `${program}: runs, but the analysis does not see it` : `${program}: executes ${executed}`;
}

describe('the shell analysis against bash under strace (issue 30, item 9)', () => {
  test('the generator is deterministic and gives distinct lines', () => {
    const a = generateLines(400);
    assert.deepEqual(a, generateLines(400));
    assert.equal(new Set(a).size, a.length);
    assert.ok(a.length >= 400, `${a.length} lines`);
    assert.notDeepEqual(generateLines(400, 1), a);
  });

  test('the comparison sees what bash really did (the harness itself)', { skip: unavailable }, async () => {
    const work = path.join(root, 'self-check');
    const traced = await traceLine("touch pwn; sed -n '1w w2' notes.txt; true | xargs", template, work);
    const analysis = analyze("touch pwn; sed -n '1w w2' notes.txt; true | xargs");
    assert.equal(traced.ran, true, JSON.stringify(traced));
    const found = unreported(analysis, traced, path.join(work, 'ws'));
    assert.deepEqual(found.files, ['w2'], JSON.stringify(traced));
    assert.ok(found.programs.some((p) => p.startsWith('echo ')), JSON.stringify(found));
    assert.ok(traced.executed.some((e) => e.file.endsWith('/touch')));
    assert.ok(traced.changed.includes('pwn'));
  });

  test(`${wanted} generated lines: nothing executed or written that the analysis did not report, for a line an allow rule allows`, { skip: unavailable, timeout: 3_600_000 }, async (t) => {
    const lines = generateCases(wanted);
    let allowed = 0;
    let compared = 0;
    const verdicts: Record<string, number> = {};
    const failures: Array<Failure & { family: string }> = [];
    const notRun: string[] = [];
    const queue = lines.map(({ line, base }) => ({ line, base, judged: decide(analyze, line) }));
    for (const { judged } of queue) verdicts[judged.verdict] = (verdicts[judged.verdict] ?? 0) + 1;
    const toRun = queue.filter((q) => q.judged.verdict === 'allow');
    allowed = toRun.length;
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async (_, worker) => {
      const work = path.join(root, `worker-${worker}`);
      while (next < toRun.length) {
        const { line, base, judged } = toRun[next++]!;
        const traced = await traceLine(line, template, work);
        if (!traced.ran) {
          notRun.push(line);
          continue;
        }
        compared++;
        const found = unreported(judged.analysis, traced, path.join(work, 'ws'));
        if (found.programs.length !== 0 || found.files.length !== 0) {
          const failure = { line, ...found };
          failures.push({ ...failure, family: familyOf(failure, base) });
        }
      }
    }));
    const families = new Map<string, Failure & { family: string }>();
    for (const f of failures) {
      const known = families.get(f.family);
      if (known === undefined || f.line.length < known.line.length) families.set(f.family, f);
    }
    const summary = [
      `lines generated: ${lines.length}; allowed: ${allowed}; compared: ${compared}; failures: ${failures.length} in ${families.size} families`,
      `verdicts: ${Object.entries(verdicts).map(([k, v]) => `${k} ${v}`).join(', ')}`,
      ...[...families.values()].sort((a, b) => a.family.localeCompare(b.family)).map((f) => `  ${f.family} (${failures.filter((x) => x.family === f.family).length}): ${f.line}   [programs: ${f.programs.join('; ') || '-'}; files: ${f.files.join(', ') || '-'}]`),
    ];
    for (const s of summary) t.diagnostic(s);
    console.log(summary.join('\n'));
    assert.deepEqual(notRun, [], 'every allowed line runs under the tracer');
    assert.equal(compared, allowed);
    assert.equal(failures.length, 0, `the analysis missed what bash did on ${failures.length} allowed lines:\n${summary.join('\n')}`);
  });
});
