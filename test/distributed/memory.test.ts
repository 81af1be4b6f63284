/**
 * The memory tools on several machines: callers send memory calls to workers (a queue on
 * Redis, a PostgreSQL store); the workers keep the notes in the store. Two workers in
 * different workspace folders (as on two machines) that name one workspace identity
 * (`--memory-workspace`) share the notes: a note remembered through one pool is found through
 * the other, and is in the store under that identity.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ToolSystem } from 'toolgate';
import { PostgresStore } from '../../src/ledger/postgres/store.js';
import { postgresForTests, type PgTestServer } from '../ledger/postgres-server.js';
import { Cluster } from './cluster.js';
import { redisMissing } from './redis-server.js';

const missing = redisMissing();
const pg = missing === undefined ? await postgresForTests(import.meta.url) : { skip: missing };

describe('memory through workers on a PostgreSQL store', { skip: 'skip' in pg ? pg.skip : undefined }, () => {
  let cluster: Cluster;
  let url: string;
  const identity = 'team-project';

  before(async () => {
    url = (pg as PgTestServer).url;
    cluster = await Cluster.start(url);
    const elsewhere = path.join(cluster.root, 'another-machine-ws');
    fs.mkdirSync(elsewhere);
    await Promise.all([
      cluster.worker('mem-a', ['--memory-workspace', identity]),
      cluster.worker('mem-b', ['--memory-workspace', identity], elsewhere),
    ]);
  });
  after(async () => {
    await cluster?.stop();
    if (!('skip' in pg)) await pg.stop();
  });

  it('a note remembered through one pool is found through the other, kept in the store under the identity', async () => {
    const callerA = new ToolSystem({ workspace: cluster.workspace, builtins: false, store: url, queue: { url: cluster.redis.url, pool: 'mem-a' } });
    const callerB = new ToolSystem({ workspace: cluster.workspace, builtins: false, store: url, queue: { url: cluster.redis.url, pool: 'mem-b' } });
    try {
      await Promise.all([callerA.start(), callerB.start()]);
      const kept = await callerA.execute({ name: 'memory_remember', arguments: { text: 'The build cache lives on the NAS.', tags: ['build'] }, callId: 'mem-1' }, { session: 'a' });
      assert.equal(kept.success, true, kept.output);
      const found = await callerB.execute({ name: 'memory_search', arguments: { query: 'build cache' }, callId: 'mem-2' }, { session: 'b' });
      assert.equal(found.success, true, found.output);
      assert.match(found.output, /lives on the NAS/);
    } finally {
      await callerA.close();
      await callerB.close();
    }
    const store = await PostgresStore.open({ url });
    try {
      const notes = await store.openMemory(identity).search('workspace', 'NAS', 10);
      assert.deepEqual(notes.map((n) => n.text), ['The build cache lives on the NAS.']);
      assert.deepEqual(await store.openMemory(fs.realpathSync(cluster.workspace)).search('workspace', 'NAS', 10), [], 'not under the path');
    } finally {
      await store.close();
    }
  });
});
