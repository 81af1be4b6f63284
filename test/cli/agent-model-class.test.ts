/**
 * `toolgate agent --model-class` (or TOOLGATE_MODEL_CLASS) against the scripted
 * OpenAI-compatible fixture, in process: which image tool the model is offered, and a usage
 * error for a class that does not exist.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { cliInProcess } from './in-process.js';
import { tempWorkspace } from '../helpers.js';
import { startOpenAIFixture, turn } from '../openai-fixture.js';

function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_MODEL', 'TOOLGATE_MODEL', 'TOOLGATE_MODEL_CLASS']) delete env[key];
  return { ...env, ...extra };
}

/** The tool names the fixture was offered on the first request of one `toolgate agent` run. */
async function offeredTools(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const fixture = await startOpenAIFixture([turn('Nothing to do.')]);
  try {
    const r = await cliInProcess(['agent', 'Look at the picture', ...args, '--base-url', fixture.baseUrl, '--model', 'm', '--no-ledger'], { env: envWith(env) });
    assert.equal(r.code, 0, r.stderr);
    return (fixture.requests[0]!.tools ?? []).map((s) => s.function.name);
  } finally {
    await fixture.close();
  }
}

describe('toolgate agent --model-class', () => {
  const t = tempWorkspace();
  after(t.cleanup);

  it('text-only offers describe_image and not read_image; vision and the default the reverse; the environment variable counts', async () => {
    const text = await offeredTools(['--workspace', t.ws, '--model-class', 'text-only']);
    assert.ok(text.includes('describe_image') && !text.includes('read_image'), text.join(','));
    const fromEnv = await offeredTools(['--workspace', t.ws], { TOOLGATE_MODEL_CLASS: 'text-only' });
    assert.deepEqual(fromEnv, text);
    const vision = await offeredTools(['--workspace', t.ws, '--model-class', 'vision']);
    assert.ok(vision.includes('read_image') && !vision.includes('describe_image'), vision.join(','));
    assert.deepEqual(await offeredTools(['--workspace', t.ws]), vision);
  });

  it('an unknown class is a usage error before the model is asked', async () => {
    const r = await cliInProcess(['agent', 'x', '--workspace', t.ws, '--model-class', 'audio', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'], { env: envWith({}) });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--model-class \(or TOOLGATE_MODEL_CLASS\) must be vision or text-only; got audio/);
  });
});
