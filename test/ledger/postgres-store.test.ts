/**
 * What the PostgreSQL call store promises beyond the contract (`call-store-postgres.test.ts`):
 * fenced claims between processes, a worker paused past its lease (its call interrupted, its
 * late end refused), NOTIFY waking a waiter in another process, the store surviving
 * `pg_ctl restart -m immediate` (the pool reconnects, the listener re-listens), and a password
 * that never shows in messages, errors or rows. On a server of its own (`postgres-server.ts`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { NewCall } from '../../src/ledger/call-store.js';
import { openCallStore } from '../../src/ledger/open-store.js';
import { PostgresStore } from '../../src/ledger/postgres/store.js';
import type { ToolExecutionResult } from '../../src/types/result.js';
import { BIN } from '../helpers.js';
import { postgresForTests } from './postgres-server.js';

const server = await postgresForTests(import.meta.url, { restarts: true });
const STORE_MODULE = fileURLToPath(new URL('../../src/ledger/postgres/store.js', import.meta.url));

function call(callId: string): NewCall {
  return { callId, session: 'pg', tool: 'write_file', version: '1.0.0', arguments: { filepath: 'a.txt' }, workspace: '/w', turn: '' };
}

function done(callId: string): { state: 'done'; decisions: undefined; result: ToolExecutionResult } {
  return {
    state: 'done', decisions: undefined,
    result: { success: true, output: 'ok', durationMs: 1, confirmed: true, tool: 'write_file', version: '1.0.0', callId, stopReason: 'completed', outcome: 'success', sideEffects: 'possible' },
  };
}

/** A child process running `body` (an async function body with `open(schema)` and `line()` reading stdin lines) against the store. */
function child(url: string, body: string): { proc: ChildProcess; lines: AsyncIterator<string>; send(line: string): void } {
  const script = `
    import { createInterface } from 'node:readline';
    const { PostgresStore } = await import(${JSON.stringify(STORE_MODULE)});
    const open = (schema, extra = {}) => PostgresStore.open({ url: ${JSON.stringify(url)}, schema, ...extra });
    const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
    const line = async () => (await input.next()).value;
    const say = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
    ${body}
    process.exit(0);
  `;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = (async function* () {
    let buffered = '';
    for await (const chunk of proc.stdout!) {
      buffered += String(chunk);
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        yield buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
      }
    }
  })();
  return { proc, lines, send: (line) => proc.stdin!.write(`${line}\n`) };
}

async function next(lines: AsyncIterator<string>): Promise<unknown> {
  const { value, done: ended } = await lines.next();
  assert.ok(!ended, 'the child ended early');
  return JSON.parse(value as string);
}

function exited(proc: ChildProcess): Promise<number | null> {
  return proc.exitCode !== null ? Promise.resolve(proc.exitCode) : new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
}

if ('skip' in server) {
  describe('PostgreSQL call store', { skip: server.skip }, () => undefined);
} else {
  after(() => server.stop());

  describe('PostgreSQL call store', () => {
    it('fenced claims between processes: of two workers claiming the same 30 calls at once, exactly one wins each', async () => {
      const store = await PostgresStore.open({ url: server.url, schema: 'fence' });
      try {
        for (let i = 0; i < 30; i++) await store.record({ ...call(`f${i}`), pool: 'p' });
        const body = (owner: string) => `
          const store = await open('fence');
          say('open');
          await line();
          const won = [];
          await Promise.all(Array.from({ length: 30 }, async (_, i) => {
            const lease = await store.claimLease({ callId: 'f' + i, session: 'pg' }, { owner: '${owner}' });
            if (lease) won.push(i);
          }));
          say(won);
          await store.close();`;
        const a = child(server.url, body('worker-a'));
        const b = child(server.url, body('worker-b'));
        // Both have their store open (they say so), then both go: the claims race, whatever
        // time a loaded machine takes to start the two (300 ms once stood for that).
        assert.deepEqual(await Promise.all([next(a.lines), next(b.lines)]), ['open', 'open']);
        a.send('go');
        b.send('go');
        const [wonA, wonB] = (await Promise.all([next(a.lines), next(b.lines)])) as [number[], number[]];
        assert.deepEqual([...wonA, ...wonB].sort((x, y) => x - y), Array.from({ length: 30 }, (_, i) => i), 'each call claimed exactly once');
        assert.deepEqual(await Promise.all([exited(a.proc), exited(b.proc)]), [0, 0]);
        const owners = new Set((await store.list({ pool: 'p' })).map((c) => c.owner));
        assert.ok([...owners].every((o) => o === 'worker-a' || o === 'worker-b'));
      } finally {
        await store.close();
      }
    });

    it('a worker paused past its lease: its call becomes interrupted and is never run again; resumed, it can neither renew nor end it', async () => {
      const store = await PostgresStore.open({ url: server.url, schema: 'pause' });
      const worker = child(server.url, `
        const store = await open('pause');
        const lease = await store.claimLease({ ...${JSON.stringify(call('paused'))} }, { owner: 'worker-paused', leaseMs: 600 });
        say(lease);
        await line();
        say({ finished: await store.finish({ callId: 'paused', session: 'pg' }, ${JSON.stringify(done('paused'))}, { token: lease.token }), renewed: await store.renewLease({ callId: 'paused', session: 'pg' }, lease.token) ?? null });
        await store.close();`);
      try {
        const lease = (await next(worker.lines)) as { token: string; expiresAt: number };
        worker.proc.kill('SIGSTOP');
        // The heartbeat stops with the process: the lease lapses though the process lives.
        while ((await store.get('paused', 'pg'))!.leaseExpiresAt! + 100 > Date.now()) await sleep(100);
        const swept = await store.expireLeases();
        assert.deepEqual(swept.map((c) => [c.callId, c.owner]), [['paused', 'worker-paused']]);
        assert.equal((await store.record(call('paused'))).kind, 'ended', 'a retry gets the interrupted result');
        assert.equal(await store.claimLease(call('paused'), { owner: 'redelivered' }), undefined, 'a redelivered job cannot claim it');
        worker.proc.kill('SIGCONT');
        worker.send('finish');
        assert.deepEqual(await next(worker.lines), { finished: false, renewed: null });
        assert.equal(await exited(worker.proc), 0);
        const ended = (await store.get('paused', 'pg'))!;
        assert.equal(ended.state, 'interrupted');
        assert.equal((await store.result('paused', 'pg'))?.result.errorCode, 'INTERRUPTED');
        assert.ok(lease.token.length > 0);
      } finally {
        worker.proc.kill('SIGKILL');
        await store.close();
      }
    });

    it('NOTIFY wakes a waiter in another process: an end, an answer and a cancel given here reach it without polling', async () => {
      const store = await PostgresStore.open({ url: server.url, schema: 'notify' });
      try {
        await store.record(call('n1'));
        const question = await store.ask(call('n1'), { tool: 'write_file' });
        // The waiter's pollMs is an hour: only a notification can wake it in time for the test.
        const waiter = child(server.url, `
          const store = await open('notify', { pollMs: 3600000 });
          const key = { callId: 'n1', session: 'pg' };
          const answer = store.waitForAnswer(${question});
          const cancel = store.waitForCancel(key);
          const end = store.waitForEnd(key);
          await new Promise((r) => setTimeout(r, 300));
          say('waiting');
          say({ answer: await answer, cancel: await cancel, end: (await end).state });
          await store.close();`);
        assert.equal(await next(waiter.lines), 'waiting');
        await store.answer(question, 'allow_once', 'cli:test');
        await store.requestCancel('n1', 'pg');
        await store.finish(call('n1'), done('n1'));
        assert.deepEqual(await next(waiter.lines), { answer: 'allow_once', cancel: true, end: 'done' });
        assert.equal(await exited(waiter.proc), 0);
      } finally {
        await store.close();
      }
    });

    it('pg_ctl restart -m immediate mid-run: the store reconnects, the running call ends once, and the waiter is woken after the listener re-listens', { skip: server.own ? false : 'the server is not this file\'s: it cannot be restarted' }, async () => {
      const store = await PostgresStore.open({ url: server.url, schema: 'restart' });
      const watcher = await PostgresStore.open({ url: server.url, schema: 'restart' });
      try {
        assert.ok(await store.claim(call('r1')));
        let woken = false;
        const end = watcher.waitForEnd(call('r1')).then((record) => {
          woken = true;
          return record;
        });
        // The watcher's LISTEN is set up off this path and says nothing when it is: 300 ms lets
        // it be in place before the restart. Were it not yet, the test still passes (the waiter
        // re-reads the state on its new connection), so a slow machine makes it check less, never fail.
        await sleep(300);
        await server.restartImmediate();
        assert.equal(woken, false);
        assert.equal(await store.finish(call('r1'), done('r1')), true, 'the end is written on a new connection');
        assert.equal((await end)?.state, 'done', 'the waiter saw it');
        assert.equal(await store.finish(call('r1'), done('r1')), false, 'once');
        assert.ok(await store.claim(call('r2')), 'claims go on');
        // A waiter that began after the restart is woken by NOTIFY on the re-made listener.
        const later = watcher.waitForEnd(call('r2'));
        await sleep(300);
        await store.finish(call('r2'), done('r2'));
        assert.equal((await later)?.state, 'done');
      } finally {
        await watcher.close();
        await store.close();
      }
    });

    it('the password never shows: not in the store\'s name, its errors, a warning, or a row', async () => {
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(String(warning.message));
      process.on('warning', onWarning);
      try {
        const store = await openCallStore(server.url, { schema: 'secret' });
        try {
          assert.ok(!store.file.includes(server.password), store.file);
          assert.match(store.file, /\*\*\*/);
          await store.claim(call('s1'));
          await store.finish(call('s1'), done('s1'));
        } finally {
          await store.close();
        }
        const wrong = new URL(server.url);
        wrong.password = 'not-the-password-123';
        await assert.rejects(PostgresStore.open({ url: wrong.toString(), schema: 'secret', retryMs: 1 }), (error: Error) => {
          assert.ok(!error.message.includes('not-the-password-123') && !error.message.includes(server.password), error.message);
          return true;
        });
        const closed = new URL(server.url);
        closed.port = '1';
        await assert.rejects(PostgresStore.open({ url: closed.toString(), schema: 'secret', retryMs: 1 }), (error: Error) => {
          assert.ok(!`${error.message}${error.stack}`.includes(server.password), error.message);
          return true;
        });
        assert.ok(warnings.every((w) => !w.includes(server.password)));
        const admin = new pg.Client({ connectionString: server.url });
        await admin.connect();
        try {
          const { rows } = await admin.query(`SELECT string_agg(c::text, ' ') AS text FROM secret.calls c`);
          const { rows: events } = await admin.query(`SELECT string_agg(e::text, ' ') AS text FROM secret.events e`);
          assert.ok(!String(rows[0].text).includes(server.password) && !String(events[0].text).includes(server.password));
        } finally {
          await admin.end();
        }
      } finally {
        process.off('warning', onWarning);
      }
    });

    it('a question asked in this process is answered by toolgate approvals allow --store in another (the password from PGPASSWORD)', async () => {
      const store = await PostgresStore.open({ url: server.url, schema: 'toolgate' });
      try {
        const question = await store.ask(call('ap1'), { tool: 'write_file', arguments: { filepath: 'a.txt' } });
        const answered = store.waitForAnswer(question);
        const bare = new URL(server.url);
        bare.password = '';
        const env = { ...process.env, PGPASSWORD: server.password };
        const cli = (args: string[]) => new Promise<{ code: number | null; out: string }>((resolve) => {
          const proc = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          proc.stdout.on('data', (d) => (out += String(d)));
          proc.stderr.on('data', (d) => (out += String(d)));
          proc.on('exit', (code) => resolve({ code, out }));
        });
        const listed = await cli(['approvals', 'list', '--json', '--store', bare.toString()]);
        assert.equal(listed.code, 0, listed.out);
        assert.deepEqual((JSON.parse(listed.out) as Array<{ id: number }>).map((q) => q.id), [question]);
        const allowed = await cli(['approvals', 'allow', String(question), '--store', bare.toString()]);
        assert.equal(allowed.code, 0, allowed.out);
        assert.match(allowed.out, /resumes the call/);
        assert.ok(!allowed.out.includes(server.password));
        assert.equal(await answered, 'allow_once', 'the asker is woken with the answer');
        assert.equal((await store.approval(question))?.answeredBy?.startsWith('cli:'), true);
        // A call queued for a pool no worker took: trace says where it waits.
        await store.record({ ...call('tr1'), pool: 'gpu' });
        const traced = await cli(['trace', '--store', bare.toString()]);
        assert.equal(traced.code, 0, traced.out);
        assert.match(traced.out, /tr1 .*pending \(waiting for a worker of pool gpu\)/);
      } finally {
        await store.close();
      }
    });

    it('openCallStore: a postgres:// URL opens this store; without pg it would name the package', async () => {
      const store = await openCallStore(server.url.replace(/^postgres:/, 'postgresql:'), { schema: 'factory' });
      try {
        assert.ok(store instanceof PostgresStore);
      } finally {
        await store.close();
      }
    });
  });
}
