import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { runCli } from '../../src/cli/main.js';
import { confirmationPrompt } from '../../src/cli/terminal.js';
import { tempWorkspace } from '../helpers.js';
import { onEachPrompt } from '../wait.js';

/** Run the CLI in process with a fake terminal on stdin that answers `answer`. */
async function runWithTty(args: string[], answer: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  onEachPrompt(stderr, '[N]o ', () => stdin.write(`${answer}\n`));
  const code = await runCli(args, { stdin, stdout, stderr });
  return { code, stdout: out, stderr: err };
}

describe('CLI confirmation on a terminal', () => {
  const t = tempWorkspace();
  after(t.cleanup);

  it('asks on the terminal and writes on yes', async () => {
    const r = await runWithTty(['call', 'write_file', '{"filepath":"yes.txt","content":"ok"}', '--workspace', t.ws], 'y');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /write_file 1\.0\.0 asks to run: write_file declares that it needs the user's approval before it runs\.\n  target: yes\.txt\n  filepath: yes\.txt\n  content: ok\nQuestion \d+: answer here, or from another terminal with toolgate approvals allow \d+ --workspace \S+ \(deny likewise\), or in the cockpit\.\nAllow\? \[y\]es once \/ \[t\]his turn \/ \[a\]lways \/ \[N\]o /);
    assert.equal(fs.readFileSync(path.join(t.ws, 'yes.txt'), 'utf8'), 'ok');
  });

  it('the target path is shown first and whole, whatever the argument order and size', async () => {
    const content = 'Harmless planning notes. '.repeat(40);
    fs.mkdirSync(path.join(t.ws, 'notes'), { recursive: true });
    const r = await runWithTty(['call', 'write_file', JSON.stringify({ content, filepath: 'notes/./../README.md' }), '--workspace', t.ws], 'n');
    assert.equal(r.code, 1);
    const lines = r.stderr.split('\n');
    assert.equal(lines[1], '  target: README.md');
    assert.match(r.stderr, /content: Harmless.* \.\.\. \[\d+ characters omitted\] \.\.\. .*notes\. \n/);
  });

  it('escapes terminal control and bidi characters in the prompt', async () => {
    const r = await runWithTty(['call', 'write_file', JSON.stringify({ filepath: 'plan/\u202edm.txt', content: '\u001b]0;PWNED\u0007' }), '--workspace', t.ws], 'n');
    assert.match(r.stderr, /target: plan\/\\u\{202e\}dm\.txt/);
    assert.ok(!r.stderr.includes('\u001b]0;PWNED'), 'the argument escape sequence is not sent raw');
    assert.match(r.stderr, /content: \\u\{1b\}\]0;PWNED\\u\{7\}/);
    assert.ok(!r.stderr.includes('\u202e'));
  });

  it('denies on no, and writes nothing', async () => {
    const r = await runWithTty(['call', 'write_file', '{"filepath":"no.txt","content":"x"}', '--workspace', t.ws], 'n');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Confirmation denied/);
    assert.equal(fs.existsSync(path.join(t.ws, 'no.txt')), false);
  });
});

describe('the confirmation prompt', () => {
  const request = {
    tool: 'write_file', version: '1.0.0', callId: 'c1', description: '', paths: ['a.txt'], offers: ['allow_once', 'deny'] as const,
    ask: { decider: 'confirmation', reason: 'it asks' },
  };

  it('shows a text\'s lines as lines, indented under the value, with control characters escaped', () => {
    const shown = confirmationPrompt({ ...request, arguments: { filepath: 'a.txt', content: 'one\r\ntwo\n\tthree \u001b[31mred\nAllow? [y]es' } });
    assert.match(shown, /  content: one\n    \| two\n    \| \\u\{9\}three \\u\{1b\}\[31mred\n    \| Allow\? \[y\]es\n/);
    assert.ok(!shown.includes('\u001b'), 'no raw escape sequence');
    assert.ok(!shown.includes('\\u{a}'), 'newlines are not shown as \\u{a}');
  });

  it('shows a value of many lines as its first and last lines, the omitted ones counted, and offers the whole view', () => {
    const shown = confirmationPrompt({ ...request, arguments: { content: Array.from({ length: 40 }, (_, i) => `l${i}`).join('\n') } });
    assert.match(shown, /\| l10\n    \| \.\.\. \[24 lines omitted\] \.\.\.\n    \| l35\n/);
    assert.match(shown, /\| l39\n/, 'the last line is in sight');
    assert.ok(!shown.includes('l11') && !shown.includes('l34'));
    assert.match(shown, /\[v\]iew whole \/ \[N\]o $/);
  });

  it('names the stored question and how to answer it elsewhere', () => {
    const shown = confirmationPrompt({ ...request, arguments: {} }, { questionId: 7 }, { command: (id) => `toolgate approvals allow ${id}` });
    assert.match(shown, /Question 7: answer here, or from another terminal with toolgate approvals allow 7 \(deny likewise\), or in the cockpit\.\nAllow\? /);
  });
});
