/** A mistyped command or flag is answered with the nearest one there is. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nearName } from '../../src/cli/near-name.js';
import { runCli } from '../helpers.js';

describe('did you mean', () => {
  it('finds the nearest name within two edits, swaps counted as one', () => {
    assert.equal(nearName('cal', ['call', 'schema', 'schemas']), 'call');
    assert.equal(nearName('worksapce', ['workspace', 'yes', 'json']), 'workspace');
    assert.equal(nearName('shcemas', ['schema', 'schemas']), 'schemas');
    assert.equal(nearName('frobnicate', ['call', 'list']), undefined);
  });

  it('names them in the command line messages', async () => {
    const command = await runCli(['cal', 'read_file']);
    assert.equal(command.code, 2);
    assert.match(command.stderr, /unknown command "cal" \(did you mean call\?\)/);
    const flag = await runCli(['list', '--jsno']);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /unknown flag --jsno \(did you mean --json\?\)/);
  });
});
