import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closeOut, NO_OUTPUT, truncate } from '../../src/closeout/closeout.js';
import { parseArguments } from '../../src/executor/arguments.js';
import { redactSecrets } from '../../src/logging/logger.js';
import { DeadlineTimers } from '../../src/runner/deadlines.js';

describe('close-out', () => {
  it('never returns empty output, and keeps notes outside the window', () => {
    assert.equal(closeOut('', [], 10, 'head'), NO_OUTPUT);
    assert.equal(closeOut(undefined, ['[exit 0]'], 10, 'head'), `${NO_OUTPUT}\n[exit 0]`);
    assert.equal(closeOut('abc', [], 10, 'head'), 'abc');
    assert.equal(closeOut({ a: 1 }, [], 100, 'head'), '{\n  "a": 1\n}');
  });

  it('T7: counts what was cut in characters and lines', () => {
    const text = `${'line\n'.repeat(1000)}end`;
    const cut = truncate(text, 100);
    assert.ok(cut.startsWith('line\n'.repeat(20)));
    assert.match(cut, /\[output truncated: 4903 of 5003 characters \(981 lines\) omitted; limit 100 characters\]$/);
    assert.equal(truncate(text, 0), text, '<= 0 disables truncation');
    assert.equal(truncate('short', 100), 'short');
  });

  it('does not split a surrogate pair', () => {
    const cut = truncate(`a${'😀'.repeat(10)}`, 4);
    assert.ok(!/[\ud800-\udbff]\n/.test(cut), 'no lone high surrogate before the note');
  });

  it('head-tail keeps both ends', () => {
    const cut = truncate(`HEAD${'x'.repeat(1000)}TAIL`, 20, 'head-tail');
    assert.ok(cut.startsWith('HEAD'));
    assert.ok(cut.endsWith('TAIL'));
    assert.match(cut, /988 characters \(1 line\) omitted from the middle of 1008/);
  });
});

describe('arguments parsing', () => {
  it('accepts objects and JSON objects; names what else it got', () => {
    assert.deepEqual(parseArguments('{"a":1}'), { ok: true, value: { a: 1 }, repairs: [] });
    assert.deepEqual(parseArguments(undefined), { ok: true, value: {}, repairs: [] });
    assert.deepEqual(parseArguments('  '), { ok: true, value: {}, repairs: [] });
    assert.equal(parseArguments('"\\"{\\\\\\"a\\\\\\":1}\\""').ok, false, 'triple encoding is not repaired');
    const proto = parseArguments('{"__proto__":{"x":1}}');
    assert.ok(proto.ok && Object.prototype.hasOwnProperty.call(proto.value, '__proto__'), '__proto__ stays an own key for the schema to reject');
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });
});

describe('log redaction', () => {
  it('redacts secret-looking keys at any depth', () => {
    const out = redactSecrets({ filepath: 'a', api_key: 'sk-1', headers: { Authorization: 'Bearer x', accept: '*/*' }, list: [{ password: 'p' }] });
    assert.deepEqual(out, { filepath: 'a', api_key: '[redacted]', headers: { Authorization: '[redacted]', accept: '*/*' }, list: [{ password: '[redacted]' }] });
  });
});

describe('deadline lists', () => {
  it('fires in order, skips cancelled deadlines, and supports several durations', async () => {
    const timers = new DeadlineTimers();
    const fired: string[] = [];
    const a = timers.add(60, () => fired.push('a'));
    timers.add(60, () => fired.push('b'));
    timers.add(20, () => fired.push('short'));
    a.cancel();
    a.cancel();
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.deepEqual(fired, ['short', 'b']);
  });
});

describe('secret keys', () => {
  it('match by word, not by substring', async () => {
    const { isSecretKey } = await import('toolgate/internal');
    for (const k of ['api_key', 'apiKey', 'GITHUB_TOKEN', 'npm_config__authToken', 'password', 'client_secret', 'AWS_SECRET_ACCESS_KEY', 'Authorization', 'session_id']) {
      assert.equal(isSecretKey(k), true, k);
    }
    for (const k of ['author', 'bypass', 'tokenizer_model', 'filepath', 'passage', 'compass']) assert.equal(isSecretKey(k), false, k);
  });
});
