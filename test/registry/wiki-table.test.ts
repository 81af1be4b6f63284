/**
 * The wiki's tool table: rendered from a registry, written between markers with the text
 * around them kept, and stale as soon as a tool's description changes.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadBuiltinTools, loadPortedTools } from 'toolgate';
import { argumentTable, categoryOf, firstSentence, renderToolsTable, replaceBetweenMarkers } from '../../src/registry/wiki-table.js';
import { fixtureRegistry, REPO_ROOT } from '../helpers.js';

describe('wiki tool table', () => {
  test('one overview row per tool version, then a section with its arguments', async () => {
    const registry = await fixtureRegistry();
    const table = renderToolsTable(registry);
    assert.match(table, new RegExp(`^${registry.size} tool versions\\.`));
    for (const version of ['1.0.0', '1.2.0', '2.0.0']) assert.match(table, new RegExp(`\\| \\[\`greet\`\\]\\(#greet-${version.replace(/\./g, '')}\\) \\| ${version.replace(/\./g, '\\.')} \\|`));
    assert.match(table, /### read_file 1\.0\.0\n\nRead a UTF-8 text file/);
    const readFile = registry.get('read_file')!;
    assert.match(argumentTable(readFile), /\| `filepath` \| string \(workspace path\) \| yes \| {2}\| Path of the file/);
    assert.match(argumentTable(readFile), /\| `max_lines` \| integer \| no \|/);
    assert.equal(renderToolsTable(registry), table, 'deterministic');
  });

  test('categories, first sentences and markers', async () => {
    const { registry } = await loadBuiltinTools();
    await loadPortedTools(registry);
    assert.equal(categoryOf(registry.get('read_file')!), 'builtin');
    assert.equal(categoryOf(registry.get('replace_in_file')!), 'edit');
    assert.equal(firstSentence('Do this. Then that.'), 'Do this.');
    assert.equal(firstSentence('No end'), 'No end');
    const text = 'before\n<!-- AUTO:tools -->\nold\n<!-- /AUTO:tools -->\nafter\n';
    assert.equal(replaceBetweenMarkers(text, 'tools', 'new'), 'before\n<!-- AUTO:tools -->\nnew\n<!-- /AUTO:tools -->\nafter\n');
    assert.throws(() => replaceBetweenMarkers('no markers', 'tools', 'x'), /markers/);
  });

  test('the committed wiki/Tools.md is what the live registry renders (npm run wiki)', async () => {
    const { registry } = await loadBuiltinTools();
    await loadPortedTools(registry);
    const committed = fs.readFileSync(path.join(REPO_ROOT, 'wiki/Tools.md'), 'utf8');
    assert.equal(replaceBetweenMarkers(committed, 'tools', renderToolsTable(registry)), committed);
    assert.ok(registry.list({ allVersions: true }).every((tool) => committed.includes(`### ${tool.name} ${tool.version}`)));
  });
});
