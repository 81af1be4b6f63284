/**
 * OpenTelemetry without `@opentelemetry/api` where toolgate finds it (an optional peer
 * dependency): an application registered an SDK, but toolgate cannot load the API. Calls run
 * as usual, untraced, and the process is warned once, naming the package and the command.
 * The package is hidden with TOOLGATE_HIDE_PACKAGES (src/util/optional-package.ts), which
 * answers as a missing package; telemetry.test.ts is the installed case.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ToolExecutor, type ToolRegistry } from 'toolgate';
import { HIDE_PACKAGES_ENV } from '../../src/util/optional-package.js';
import { fixtureRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });

describe('OpenTelemetry: @opentelemetry/api unavailable to toolgate', () => {
  let registry: ToolRegistry;
  let tmp: TempWorkspace;
  let executor: ToolExecutor;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  before(async () => {
    process.env[HIDE_PACKAGES_ENV] = '@opentelemetry/api';
    process.on('warning', onWarning);
    trace.setGlobalTracerProvider(tracerProvider);
    registry = await fixtureRegistry();
    tmp = tempWorkspace();
    executor = new ToolExecutor(registry, { workspaceRoot: tmp.ws });
  });

  after(async () => {
    await executor.close();
    tmp.cleanup();
    await tracerProvider.shutdown();
    trace.disable();
    process.off('warning', onWarning);
    delete process.env[HIDE_PACKAGES_ENV];
  });

  it('runs calls untraced and warns once, naming the package and how to install it', async () => {
    const first = await executor.execute({ name: 'count_calls', arguments: {}, callId: 'call_1' });
    const second = await executor.execute({ name: 'fail_always', arguments: { message: 'broken' }, callId: 'call_2' });
    assert.equal(first.success, true, first.output);
    assert.equal(second.errorCode, 'TOOL_ERROR');
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(spans.getFinishedSpans().map((s) => s.name), [], 'no span without the API');
    const ours = warnings.filter((w) => (w as Error & { code?: string }).code === 'TOOLGATE_PACKAGE_UNAVAILABLE');
    assert.equal(ours.length, 1, ours.map((w) => w.message).join('\n'));
    assert.match(ours[0]!.message, /unavailable: tracing tool calls \(OpenTelemetry\) needs the package `@opentelemetry\/api`.*npm install @opentelemetry\/api/);
  });
});
