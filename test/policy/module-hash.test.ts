/**
 * The hash of a tool's built code (issue 30, item 3): a remembered answer is keyed by it, so a
 * changed tool module, or a changed helper it imports, does not inherit the answers of the old.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { moduleHash } from '../../src/policy/module-hash.js';
import { RememberedApprovals } from '../../src/policy/remembered-approvals.js';
import type { PreparedCall } from '../../src/decisions/decision.js';

test('M1 family: the hash changes with the module and with a helper it imports, not with toolgate\'s own core', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-hash-'));
  try {
    const tool = path.join(dir, 'tool.js');
    fs.writeFileSync(tool, "import { helper } from './helper.js';\nimport x from 'some-package';\nexport const run = () => helper();\n");
    fs.writeFileSync(path.join(dir, 'helper.js'), 'export const helper = () => 1;\n');
    const url = (v: number) => `${pathToFileURL(tool).href}?v=${v}`;
    const one = moduleHash(url(1));
    assert.match(one, /^[0-9a-f]{64}$/);
    assert.equal(moduleHash(url(1)), one, 'computed once per module');
    fs.writeFileSync(path.join(dir, 'helper.js'), 'export const helper = () => 2;\n');
    const two = moduleHash(url(2));
    assert.notEqual(two, one, 'a changed helper changes the hash');
    fs.appendFileSync(tool, '// changed\n');
    assert.notEqual(moduleHash(url(3)), two, 'a changed module changes the hash');
    assert.equal(moduleHash(undefined), '', 'a tool without a module has none');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an answer remembered for one build of a tool is not recalled for another build with the same name, version and schemas', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-hash-'));
  try {
    const keys = new Set<string>();
    const memory = new RememberedApprovals({ get size() { return keys.size; }, has: (k) => keys.has(k), save: (k) => void keys.add(k) });
    const file = path.join(dir, 'tool.js');
    fs.writeFileSync(file, 'export const v = 1;\n');
    const callWith = (moduleUrl: string) => ({
      tool: { name: 'fixture_tool', revision: 'same-revision', moduleUrl, commandArguments: [] },
      args: { a: 1 }, workspace: { realRoot: dir }, paths: [], commands: [], turnId: 'other-turn',
    }) as unknown as PreparedCall;
    const first = callWith(`${pathToFileURL(file).href}?build=1`);
    memory.noteQuestions(first, []);
    memory.remember(first, 'always');
    const same = callWith(`${pathToFileURL(file).href}?build=1`);
    memory.noteQuestions(same, []);
    assert.equal(memory.recall(same)?.verdict, 'allow');
    fs.writeFileSync(file, 'export const v = 2; // rebuilt\n');
    const rebuilt = callWith(`${pathToFileURL(file).href}?build=2`);
    memory.noteQuestions(rebuilt, []);
    assert.equal(memory.recall(rebuilt), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
