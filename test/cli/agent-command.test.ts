/**
 * `toolgate agent` against the scripted OpenAI-compatible fixture: in process (no terminal, or
 * a fake terminal for confirmations and questions), and spawned as a child process where the
 * process is the point (the bin end to end, the environment a command inherits).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { runCli } from '../../src/cli/main.js';
import { BWRAP_ENV, bubblewrapAvailable } from '../../src/internal.js';
import { cliInProcess } from './in-process.js';
import { runCli as spawnCli, tempWorkspace } from '../helpers.js';
import { onEachPrompt } from '../wait.js';
import { startOpenAIFixture, turn, type OpenAIFixture, type ScriptStep } from '../openai-fixture.js';

/** The environment without any model endpoint variables, plus `extra`. */
function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_MODEL', 'TOOLGATE_MODEL']) delete env[key];
  return { ...env, ...extra };
}

async function withFixture(script: ScriptStep[], body: (fixture: OpenAIFixture) => Promise<void>): Promise<void> {
  const fixture = await startOpenAIFixture(script);
  try {
    await body(fixture);
  } finally {
    await fixture.close();
  }
}

const writeTurn = turn('Saving the greeting.', [{ id: 'call_w', name: 'write_file', arguments: '{"filepath":"hello.txt","content":"hi"}' }]);

describe('toolgate agent without a terminal (in process; the bin and R4 spawned)', () => {
  const t = tempWorkspace();
  after(t.cleanup);

  it('with --yes runs the loop: tool calls and results on stderr, the final answer on stdout', async () => {
    await withFixture([writeTurn, turn('All done.')], async (fixture) => {
      const r = await spawnCli(['agent', 'Write hi into hello.txt', '--workspace', t.ws, '--yes'], { env: envWith({ OPENAI_BASE_URL: fixture.baseUrl, OPENAI_MODEL: 'fixture-model' }) });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'All done.\n');
      assert.match(r.stderr, /\[model\] Saving the greeting\.\n\[tool\] write_file \{"filepath":"hello\.txt","content":"hi"\}\n {2}ok: Wrote 2 bytes to hello\.txt\n/);
      assert.equal(fs.readFileSync(path.join(t.ws, 'hello.txt'), 'utf8'), 'hi');
      assert.equal(fixture.requests.length, 2);
      assert.equal(fixture.requests[0]!.model, 'fixture-model');
      assert.deepEqual(fixture.requests[0]!.messages[1], { role: 'user', content: 'Write hi into hello.txt' });
      assert.deepEqual(fixture.requests[1]!.messages.at(-1), { role: 'tool', tool_call_id: 'call_w', content: 'Wrote 2 bytes to hello.txt' });
      // No terminal: nobody to ask, so ask_user is not offered.
      assert.ok(!fixture.requests[0]!.tools!.some((s) => s.function.name === 'ask_user'));
    });
  });

  it('without --yes and without a terminal, a write is refused and the model is told it needs approval', async () => {
    fs.rmSync(path.join(t.ws, 'hello.txt'), { force: true });
    await withFixture([writeTurn, turn('I need approval to write.')], async (fixture) => {
      const r = await cliInProcess(['agent', 'Write hi', '--workspace', t.ws, '--base-url', fixture.baseUrl, '--model', 'm'], { env: envWith({}) });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, / {2}CONFIRMATION_REQUIRED: Confirmation required: write_file needs the user's approval/);
      assert.equal(fs.existsSync(path.join(t.ws, 'hello.txt')), false);
      assert.match(fixture.requests[1]!.messages.at(-1)!.content as string, /^Error: Confirmation required/);
    });
  });

  it('--agent explore: the mode refuses the write; the explore addendum is in the system message', async () => {
    await withFixture([writeTurn, turn('Read-only here.')], async (fixture) => {
      const r = await cliInProcess(['agent', 'Write hi', '--agent', 'explore', '--workspace', t.ws, '--yes'], { env: envWith({ OPENAI_BASE_URL: fixture.baseUrl, TOOLGATE_MODEL: 'm' }) });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, / {2}MODE_DENIED: write_file is not allowed in explore mode/);
      assert.match(fixture.requests[0]!.messages[0]!.content as string, /You are in explore mode/);
      assert.equal(fs.existsSync(path.join(t.ws, 'hello.txt')), false);
    });
  });

  it('R4: a command the agent runs does not see the OPENAI_API_KEY the agent process holds', async () => {
    const key = 'sk-fixture-agent-5ecret-0123456789';
    const script = [turn(null, [{ id: 'call_env', name: 'run_command', arguments: '{"command":"env"}' }]), turn('Printed the environment.')];
    await withFixture(script, async (fixture) => {
      // A small environment: run_command starts a login shell, and this machine's profile can
      // spend a minute in pyenv when PYENV_ROOT is set. Without bubblewrap the command runs
      // only with the sandbox disabled explicitly; the environment is filtered either way.
      const sandbox = bubblewrapAvailable() ? [] : ['--dangerously-disable-sandbox'];
      const bwrap = process.env[BWRAP_ENV] === undefined ? {} : { [BWRAP_ENV]: process.env[BWRAP_ENV] };
      const r = await spawnCli(['agent', 'print env', '--workspace', t.ws, '--yes', ...sandbox], {
        env: { PATH: process.env.PATH, XDG_STATE_HOME: process.env.XDG_STATE_HOME, OPENAI_BASE_URL: fixture.baseUrl, OPENAI_API_KEY: key, OPENAI_MODEL: 'm', npm_config__authToken: 'npm-5ecret', ...bwrap },
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(fixture.authorizations[0], `Bearer ${key}`, 'the key reaches the model endpoint');
      const output = fixture.requests[1]!.messages.at(-1)!.content as string;
      assert.match(output, /^PATH=/m, 'env ran');
      assert.ok(!output.includes(key) && !output.includes('npm-5ecret'), 'no secret in the command environment');
      assert.ok(!r.stderr.includes(key));
    });
  });

  it('--lazy-domains: the first request offers request_tools and no git tool; after request_tools the next offers git', async () => {
    const ask = turn(null, [{ id: 'call_r', name: 'request_tools', arguments: '{"domains":["git"],"reason":"see the history"}' }]);
    await withFixture([ask, turn('Looked.')], async (fixture) => {
      const r = await cliInProcess(['agent', 'Look at the history', '--workspace', t.ws, '--lazy-domains', '--base-url', fixture.baseUrl, '--model', 'm'], { env: envWith({}) });
      assert.equal(r.code, 0, r.stderr);
      const offered = (i: number) => fixture.requests[i]!.tools!.map((s) => s.function.name);
      assert.ok(offered(0).includes('request_tools'));
      assert.ok(!offered(0).includes('git_log'));
      assert.ok(offered(1).includes('git_log'));
    });
  });

  it('without a model endpoint it says what to set and exits 2', async () => {
    const r = await cliInProcess(['agent', 'anything', '--workspace', t.ws], { env: envWith({}) });
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /no model endpoint configured/);
    assert.match(r.stderr, /OPENAI_BASE_URL/);
    assert.match(r.stderr, /OPENAI_MODEL/);
    const noModel = await cliInProcess(['agent', 'anything', '--workspace', t.ws], { env: envWith({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }) });
    assert.equal(noModel.code, 2);
    assert.match(noModel.stderr, /a model name: set --model or OPENAI_MODEL/);
    assert.doesNotMatch(noModel.stderr, /a model endpoint/);
  });

  it('usage errors exit 2', async () => {
    const r = await cliInProcess(['agent', '--workspace', t.ws], { env: envWith({}) });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /give the TASK/);
    const bad = await cliInProcess(['agent', 'x', '--agent', 'wizard'], { env: envWith({}) });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--agent must be general, explore or plan/);
  });
});

describe('toolgate agent on a terminal', () => {
  const t = tempWorkspace();
  after(t.cleanup);

  it('asks for the confirmation and the question on the terminal', async () => {
    const script = [
      writeTurn,
      turn(null, [{ id: 'call_q', name: 'ask_user', arguments: '{"question":"Which color?","choices":["red","blue"]}' }]),
      turn('Wrote hello.txt; you chose blue.'),
    ];
    await withFixture(script, async (fixture) => {
      const stdin = Object.assign(new PassThrough(), { isTTY: true });
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = '';
      let err = '';
      stdout.on('data', (d) => (out += d));
      stderr.on('data', (d) => (err += d));
      onEachPrompt(stderr, '[N]o ', () => stdin.write('y\n'));
      onEachPrompt(stderr, 'Answer (a number, or text)', () => stdin.write('2\n'));
      const code = await runCli(['agent', 'Write hi and ask me', '--workspace', t.ws, '--base-url', fixture.baseUrl, '--model', 'm'], { stdin, stdout, stderr });
      assert.equal(code, 0, err);
      assert.equal(out, 'Wrote hello.txt; you chose blue.\n');
      assert.match(err, /write_file 1\.0\.0 asks to run: write_file declares that it needs the user.s approval before it runs\.\n {2}target: hello\.txt\n/);
      assert.match(err, /The agent asks: Which color\?\n {2}1\. red\n {2}2\. blue\nAnswer/);
      assert.equal(fs.readFileSync(path.join(t.ws, 'hello.txt'), 'utf8'), 'hi');
      assert.ok(fixture.requests[0]!.tools!.some((s) => s.function.name === 'ask_user'), 'ask_user is offered when a terminal can answer');
      assert.deepEqual(fixture.requests[2]!.messages.at(-1), { role: 'tool', tool_call_id: 'call_q', content: 'blue' });
    });
  });

  it('an ask_user call runs through the executor: toolgate trace lists it with its decision, and a policy deny reaches the model', async () => {
    const ask = (id: string) => turn(null, [{ id, name: 'ask_user', arguments: '{"question":"Which color?","choices":["red","blue"]}' }]);
    const terminal = () => {
      const stdin = Object.assign(new PassThrough(), { isTTY: true });
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let err = '';
      stderr.on('data', (d) => (err += d));
      onEachPrompt(stderr, 'Answer (a number, or text)', () => stdin.write('1\n'));
      return { io: { stdin, stdout, stderr }, err: () => err };
    };
    await withFixture([ask('call_ask'), turn('You chose red.')], async (fixture) => {
      const { io, err } = terminal();
      const code = await runCli(['agent', 'Ask me', '--workspace', t.ws, '--approve', 'read-only', '--base-url', fixture.baseUrl, '--model', 'm'], io);
      assert.equal(code, 0, err());
      assert.deepEqual(fixture.requests[1]!.messages.at(-1), { role: 'tool', tool_call_id: 'call_ask', content: 'red' });
    });
    const traced = await cliInProcess(['trace', '--workspace', t.ws]);
    assert.equal(traced.code, 0, traced.stderr);
    assert.match(traced.stdout, /call_ask {2}ask_user@1\.0\.0 {2}done {2}wait \d+ ms, run \d+ ms {2}ok .*approval:allow:read-only/);

    // A workspace policy that denies ask_user: the person is never asked, the model is told why.
    fs.mkdirSync(path.join(t.ws, '.toolgate'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, '.toolgate', 'policy.toml'), '[[rules]]\ntool = "ask_user"\naction = "deny"\nreason = "decide without asking"\n');
    try {
      await withFixture([ask('call_ask_denied'), turn('I decided myself.')], async (fixture) => {
        const { io, err } = terminal();
        const code = await runCli(['agent', 'Ask me again', '--workspace', t.ws, '--base-url', fixture.baseUrl, '--model', 'm'], io);
        assert.equal(code, 0, err());
        assert.doesNotMatch(err(), /The agent asks/);
        const answer = fixture.requests[1]!.messages.at(-1) as { tool_call_id: string; content: string };
        assert.equal(answer.tool_call_id, 'call_ask_denied');
        assert.match(answer.content, /^Error: .*decide without asking/);
      });
      const json = JSON.parse((await cliInProcess(['trace', '--workspace', t.ws, '--call', 'call_ask_denied', '--json'])).stdout) as Array<{ tool: string; state: string; status: string; decisions: string[] }>;
      assert.deepEqual(json.map((c) => [c.tool, c.state, c.status]), [['ask_user', 'denied', 'POLICY_DENIED']]);
      assert.match(json[0]!.decisions.join(' '), /^policy:deny:/);
    } finally {
      fs.rmSync(path.join(t.ws, '.toolgate', 'policy.toml'), { force: true });
    }
  });
});
