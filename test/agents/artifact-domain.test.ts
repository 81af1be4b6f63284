/**
 * The artifact domain through GeneralAgent with a scripted model and lazy domains: the model
 * requests `artifact`, prepares a staging path, writes the file, registers it and sees its id;
 * the artifact is bound to the run's turn (its record and the ledger's call say so), listed by
 * the cockpit and fetched by id; a symbolic link, a folder, a missing file and a path outside
 * get a clear error and change nothing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GeneralAgent, Ledger, ToolSystem } from 'toolgate';
import { startCockpit } from '../../src/cockpit/server.js';
import { ARTIFACT_DIR, listArtifacts, MAX_ARTIFACT_BYTES, readArtifact } from '../../src/workspace/artifact-store.js';
import { tempWorkspace } from '../helpers.js';
import { finalAnswer, offeredTools, ScriptedModel, toolCalls, toolMessages } from './scripted-model.js';

/** Every path under `dir` with its kind, for "nothing changed" checks. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      out.push(`${path.relative(dir, p)}:${e.isSymbolicLink() ? 'link' : e.isDirectory() ? 'dir' : 'file'}`);
      if (e.isDirectory() && !e.isSymbolicLink()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

describe('the artifact domain in an agent run', () => {
  const t = tempWorkspace();
  const state = path.join(t.root, 'state');
  let tools: ToolSystem;
  let ledger: Ledger;
  before(async () => {
    ledger = Ledger.open({ dir: state, workspace: t.ws });
    tools = new ToolSystem({ workspace: t.ws, executor: { ledger } });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    await ledger.close();
    t.cleanup();
  });

  it('is requested, used, seen by the model, bound to the turn, listed by the cockpit and fetched by id', async () => {
    let staged = '';
    const model = new ScriptedModel([
      toolCalls(['r', 'request_tools', { domains: ['artifact'], reason: 'hand the user a report' }]),
      toolCalls(['p', 'artifact_prepare', { name: 'report.csv' }]),
      (request) => {
        staged = /Write the file at (\S+)/.exec(toolMessages(request).get('p')!)![1]!;
        return toolCalls(['w', 'write_file', { filepath: staged, content: 'name,total\nalpha,3\n' }]);
      },
      () => toolCalls(['g', 'artifact_register', { path: staged, title: 'Totals' }]),
      finalAnswer('done'),
    ]);
    const run = await new GeneralAgent({ tools, model, lazyDomains: true, autoConfirmTools: true }).run('make the report', { turnId: 'turn-artifacts-1' });
    assert.equal(run.stopReason, 'final');
    assert.ok(!offeredTools(model.requests[0]).includes('artifact_register'), 'hidden before request_tools');
    assert.ok(offeredTools(model.requests[1]).includes('artifact_prepare'));
    for (const r of run.results) assert.equal(r.success, true, `${r.tool}: ${r.output}`);
    assert.match(staged, /^\.artifacts\/staging\/[0-9a-f]{12}\/report\.csv$/);
    const seen = toolMessages(model.requests[4]!).get('g')!;
    const id = /artifact (art_[0-9a-f]{16})/.exec(seen)?.[1];
    assert.ok(id, seen);
    assert.equal(fs.existsSync(path.join(t.ws, staged)), false, 'moved, not copied');

    const [record] = await listArtifacts(t.ws, { turn: 'turn-artifacts-1' });
    assert.equal(record?.id, id);
    assert.equal(record?.title, 'Totals');
    const recorded = (await ledger.list({})).find((c) => c.tool === 'artifact_register');
    assert.equal(recorded?.turn, 'turn-artifacts-1', 'the ledger records the call in its turn');

    const cockpit = await startCockpit({ ledger, port: 0, workspace: t.ws });
    try {
      const auth = { authorization: `Bearer ${cockpit.token}` };
      const list = await (await fetch(`${cockpit.url}api/artifacts`, { headers: auth })).json() as { artifacts: Array<{ id: string; name: string; turn: string }> };
      assert.deepEqual(list.artifacts.map((a) => [a.id, a.name, a.turn]), [[id, 'report.csv', 'turn-artifacts-1']]);
      const file = await fetch(`${cockpit.url}api/artifacts/${id}`, { headers: auth });
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('content-type'), 'application/octet-stream');
      assert.equal(await file.text(), 'name,total\nalpha,3\n');
      assert.equal((await fetch(`${cockpit.url}api/artifacts/art_0000000000000000`, { headers: auth })).status, 404);
      assert.equal((await fetch(`${cockpit.url}api/artifacts/${id}`)).status, 401, 'needs the key');
    } finally {
      await cockpit.close();
    }
  });

  it('refuses a symbolic link, a folder, a missing file and a path outside, changing nothing (even approved)', async () => {
    fs.writeFileSync(path.join(t.ws, 'real.txt'), 'real\n');
    fs.symlinkSync('real.txt', path.join(t.ws, 'link.txt'));
    fs.symlinkSync(t.sentinel, path.join(t.ws, 'outside-link.txt'));
    fs.mkdirSync(path.join(t.ws, 'folder'));
    fs.writeFileSync(path.join(t.ws, 'huge.bin'), '');
    fs.truncateSync(path.join(t.ws, 'huge.bin'), MAX_ARTIFACT_BYTES + 1); // sparse: no disk used
    fs.writeFileSync(path.join(t.ws, 'folder', 'inner.txt'), 'inner\n');
    const before = tree(t.ws);
    const count = (await listArtifacts(t.ws)).length;
    const cases: Array<[string, RegExp]> = [
      ['link.txt', /symbolic link/],
      ['outside-link.txt', /PATH_TRAVERSAL|symbolic link/],
      ['folder', /is a folder/],
      ['missing.txt', /does not exist/],
      ['huge.bin', /more than the 67108864 bytes/],
      ['../outside/sentinel.txt', /outside|escape|workspace/i],
      [`${ARTIFACT_DIR}`, /already in the artifact store/],
    ];
    for (const [p, message] of cases) {
      // A path that leads outside is refused before any tool runs (execute rejects with PATH_TRAVERSAL).
      // approved by a person (a protected path's question, `.toolgate/artifacts`, is not answered by confirm: true alone)
      const result = await tools.execute({ name: 'artifact_register', arguments: { path: p }, callId: `bad-${p}` }, { confirm: true, confirmationHandler: () => 'allow_once' })
        .catch((error: Error & { code?: string }) => ({ success: false, error: `${error.code}: ${error.message}`, output: '' }));
      assert.equal(result.success, false, p);
      assert.match(result.error ?? result.output, message, p);
    }
    const bad = await tools.execute({ name: 'artifact_prepare', arguments: { name: '../escape.txt' }, callId: 'bad-name' }, { confirm: true });
    assert.equal(bad.success, false);
    assert.match(bad.error ?? bad.output, /not a plain file name/);
    assert.deepEqual(tree(t.ws), before, 'nothing changed');
    assert.equal((await listArtifacts(t.ws)).length, count);
    assert.equal(fs.readFileSync(t.sentinel, 'utf8'), 'SENTINEL CONTENT\n');
    assert.equal(await readArtifact(t.ws, 'not-an-id'), undefined);
  });
});
