/**
 * A queued call's reply key (the secret its worker signs the caller's reply with, kept only in
 * the store) is shown nowhere: not by `toolgate trace` (text and `--json`) or `toolgate
 * result --json`, not in a worker's log (at `debug`), not in the cockpit's API or event feed,
 * not in a call record printed as JSON; the worker still reads it and the caller still takes
 * the signed reply.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type { CallStore } from '../../src/ledger/call-store.js';
import { openCallStore } from '../../src/ledger/open-store.js';
import { startCockpit } from '../../src/cockpit/server.js';
import { QueueCaller } from '../../src/distributed/queue-caller.js';
import { runCli } from '../helpers.js';
import { Cluster, type WorkerProcess } from './cluster.js';
import { redisMissing } from './redis-server.js';

const skip = redisMissing();

describe('the reply key of a queued call', { skip, concurrency: false }, () => {
  let cluster: Cluster;
  let worker: WorkerProcess;
  let store: CallStore;
  let caller: QueueCaller;
  let key: string;

  before(async () => {
    cluster = await Cluster.start();
    worker = await cluster.worker('default', ['--log-level', 'debug']);
    store = await openCallStore(cluster.store);
    caller = await QueueCaller.open({ queue: cluster.redis.url, store, workspace: cluster.workspace });
    const result = await caller.call({ name: 'append_call_id', arguments: { file: 'rk.txt' }, callId: 'rk-1' }, { session: 'rk' });
    assert.equal(result.success, true, result.output);
    // The key as stored (read from the file itself): what must be shown nowhere.
    const db = new Database(cluster.store, { readonly: true });
    try {
      const row = db.prepare('SELECT options FROM calls WHERE call_id = ?').get('rk-1') as { options: string };
      key = (JSON.parse(row.options) as { replyKey: string }).replyKey;
    } finally {
      db.close();
    }
    assert.match(key, /^[\w-]{22}$/);
  });
  after(async () => {
    await caller?.close();
    await store?.close();
    await cluster?.stop();
  });

  it('is readable by name from the stored call, but not in its JSON or a copy', async () => {
    const record = (await store.get('rk-1', 'rk'))!;
    assert.equal(record.options.replyKey, key, 'the worker reads it');
    assert.ok(!JSON.stringify(record).includes(key));
    assert.ok(!JSON.stringify({ ...record, options: { ...record.options } }).includes(key));
    assert.ok(!JSON.stringify(await store.list({ limit: 10 })).includes(key));
  });

  it('is not in `toolgate trace` (text, --json), `toolgate result --json`, nor the worker log', async () => {
    for (const args of [['trace'], ['trace', '--json'], ['result', 'rk-1', '--session', 'rk', '--json']]) {
      const run = await runCli([...args, '--store', cluster.store, '--workspace', cluster.workspace]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /rk-1|appended/, args.join(' '));
      assert.ok(!run.stdout.includes(key) && !run.stderr.includes(key), args.join(' '));
    }
    assert.ok(!worker.stderr.includes(key));
  });

  it('is not in the cockpit API or its event feed', async () => {
    const cockpit = await startCockpit({ ledger: store, port: 0 });
    try {
      const auth = { authorization: `Bearer ${cockpit.token}` };
      for (const route of ['api/sessions', 'api/questions']) {
        const text = await (await fetch(`${cockpit.url}${route}`, { headers: auth })).text();
        assert.ok(!text.includes(key), route);
      }
      const controller = new AbortController();
      const stream = await fetch(`${cockpit.url}api/events?key=${cockpit.token}&after=0`, { signal: controller.signal });
      const reader = stream.body!.getReader();
      let feed = '';
      while (!feed.includes('"kind":"done"')) {
        const { value, done } = await reader.read();
        if (done) break;
        feed += Buffer.from(value).toString();
      }
      controller.abort();
      assert.match(feed, /rk-1/);
      assert.ok(!feed.includes(key));
    } finally {
      await cockpit.close();
    }
  });
});
