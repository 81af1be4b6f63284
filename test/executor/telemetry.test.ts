/**
 * OpenTelemetry: the executor's spans and duration metric, seen through the OTel SDK's
 * in-memory exporters with an AsyncLocalStorage context manager, as an application that
 * registered its SDK would see them.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { context, metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpBridge, PathTraversalError, ToolExecutor, type ToolRegistry } from 'toolgate';
import { fixtureRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const meterProvider = new MeterProvider({ readers: [reader] });
const contextManager = new AsyncLocalStorageContextManager();

let registry: ToolRegistry;
let tmp: TempWorkspace;
let executor: ToolExecutor;

/** The `execute_tool` spans exported so far. */
function toolSpans(): ReadableSpan[] {
  return spans.getFinishedSpans().filter((s) => s.name.startsWith('execute_tool '));
}

describe('OpenTelemetry: one span per call', () => {
  before(async () => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(meterProvider);
    registry = await fixtureRegistry();
    tmp = tempWorkspace();
    executor = new ToolExecutor(registry, {
      workspaceRoot: tmp.ws,
      policyHook: (call) => (call.tool === 'fail_always' && call.arguments.message === 'vetoed' ? 'fail_always may not say "vetoed"' : undefined),
    });
  });

  after(async () => {
    await executor.close();
    tmp.cleanup();
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
    trace.disable();
    metrics.disable();
    context.disable();
  });

  beforeEach(() => spans.reset());

  it('gives each call one execute_tool span with the GenAI attributes, and error.type on failure', async () => {
    const ok = await executor.execute({ name: 'count_calls', arguments: {}, callId: 'call_ok' });
    const failed = await executor.execute({ name: 'fail_always', arguments: { message: 'broken' }, callId: 'call_failed' });
    assert.equal(ok.success, true);
    assert.equal(failed.errorCode, 'TOOL_ERROR');
    const [first, second, ...rest] = toolSpans();
    assert.equal(rest.length, 0, 'exactly one span per call');
    assert.equal(first!.name, 'execute_tool count_calls');
    assert.equal(first!.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.equal(first!.attributes['gen_ai.tool.name'], 'count_calls');
    assert.equal(first!.attributes['gen_ai.tool.call.id'], 'call_ok');
    assert.equal(first!.attributes['error.type'], undefined);
    assert.notEqual(first!.status.code, SpanStatusCode.ERROR);
    assert.equal(second!.name, 'execute_tool fail_always');
    assert.equal(second!.attributes['gen_ai.tool.call.id'], 'call_failed');
    assert.equal(second!.attributes['error.type'], 'TOOL_ERROR');
    assert.equal(second!.status.code, SpanStatusCode.ERROR);
  });

  it('records each call in the gen_ai.execute_tool.duration histogram, in seconds', async () => {
    await executor.execute({ name: 'count_calls', arguments: {} });
    await reader.forceFlush();
    const exported = metricExporter.getMetrics().at(-1)!;
    const metric = exported.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'gen_ai.execute_tool.duration') as HistogramMetricData | undefined;
    assert.ok(metric, 'the histogram is exported');
    assert.equal(metric.descriptor.unit, 's');
    const point = metric.dataPoints.find((p) => p.attributes['gen_ai.tool.name'] === 'count_calls' && p.attributes['error.type'] === undefined)!;
    assert.ok(point.value.count >= 1);
    assert.ok(point.value.sum! > 0 && point.value.sum! < 60, `a duration in seconds: ${point.value.sum}`);
    const failedPoint = metric.dataPoints.find((p) => p.attributes['error.type'] === 'TOOL_ERROR');
    assert.equal(failedPoint?.attributes['gen_ai.tool.name'], 'fail_always');
  });

  it('puts a denied call\'s decision on its span as an event', async () => {
    const result = await executor.execute({ name: 'fail_always', arguments: { message: 'vetoed' }, callId: 'call_denied' });
    assert.equal(result.errorCode, 'POLICY_DENIED');
    const [span, ...rest] = toolSpans();
    assert.equal(rest.length, 0);
    assert.equal(span!.attributes['error.type'], 'POLICY_DENIED');
    const decisions = span!.events.filter((e) => e.name === 'toolgate.decision');
    const veto = decisions.find((e) => e.attributes?.['toolgate.decision.verdict'] === 'deny');
    assert.ok(veto, `a deny decision event among ${JSON.stringify(span!.events)}`);
    assert.equal(veto.attributes!['toolgate.decision.decider'], 'policy-hook');
    assert.match(String(veto.attributes!['toolgate.decision.reason']), /vetoed/);
  });

  it('marks a cut output with a truncation event', async () => {
    await executor.execute({ name: 'print_long_output', arguments: { chars: 5000 } });
    const [span] = toolSpans();
    const cut = span!.events.find((e) => e.name === 'toolgate.output.truncated');
    assert.ok(cut, 'the truncation event is there');
    assert.ok(Number(cut.attributes!['toolgate.output.shown_characters']) < 5000);
  });

  it('ends the span of a workspace escape with error.type PATH_TRAVERSAL (the error still throws)', async () => {
    await assert.rejects(executor.execute({ name: 'escape_from_worker', arguments: { raw: '../outside/sentinel.txt' }, callId: 'call_escape' }), PathTraversalError);
    const [span] = toolSpans();
    assert.equal(span!.attributes['error.type'], 'PATH_TRAVERSAL');
    assert.equal(span!.attributes['gen_ai.tool.call.id'], 'call_escape');
  });

  for (const [tool, where] of [['report_trace_context', 'a pool worker thread'], ['report_trace_context_process', 'a child process']] as const) {
    it(`parents a call run in ${where} to the caller's span, and hands the worker its trace context`, async () => {
      const tracer = trace.getTracer('test');
      const { parentId, traceId, result } = await tracer.startActiveSpan('agent turn', async (parent) => {
        const answer = await executor.execute({ name: tool, arguments: {} });
        parent.end();
        return { parentId: parent.spanContext().spanId, traceId: parent.spanContext().traceId, result: answer };
      });
      assert.equal(result.success, true, result.output);
      const [span] = toolSpans();
      assert.equal(span!.spanContext().traceId, traceId);
      assert.equal(span!.parentSpanContext?.spanId, parentId);
      // What the tool saw where it ran: the call's own span, in the W3C traceparent form.
      assert.equal(result.output, `00-${traceId}-${span!.spanContext().spanId}-01`);
    });
  }
  it('passes the call span on to a bridged MCP server as _meta.traceparent', async () => {
    // An MCP server on loopback whose one tool answers with the _meta its request carried.
    const upstream = new McpServer({ name: 'meta-echo', version: '1.0.0' });
    upstream.registerTool('echo_meta', { description: 'Return the request _meta.', annotations: { readOnlyHint: true } }, async (extra) => ({
      content: [{ type: 'text', text: JSON.stringify(extra._meta ?? {}) }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await upstream.connect(transport);
    const server = http.createServer((req, res) => void transport.handleRequest(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const bridge = await McpBridge.connect(registry, { up: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, trusted: true } });
    try {
      const tracer = trace.getTracer('test');
      const result = await tracer.startActiveSpan('agent turn', async (parent) => {
        const answer = await executor.execute({ name: 'up__echo_meta', arguments: {} });
        parent.end();
        return answer;
      });
      assert.equal(result.success, true, result.output);
      const span = toolSpans().find((s) => s.attributes['gen_ai.tool.name'] === 'up__echo_meta');
      assert.ok(span);
      const meta = JSON.parse(result.output) as { traceparent?: string };
      assert.equal(meta.traceparent, `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    } finally {
      await bridge.close();
      await upstream.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('OpenTelemetry without an SDK', () => {
  it('a call neither loads @opentelemetry/api nor makes a span when nothing is registered', async () => {
    const { execFileSync } = await import('node:child_process');
    // A fresh process: this file registers an SDK in its own.
    const script = `
      import { createRequire } from 'node:module';
      const { ToolSystem } = await import('toolgate');
      const system = new ToolSystem({ workspace: process.argv[1], ledger: false });
      await system.start();
      const result = await system.execute({ name: 'current_time', arguments: {} });
      await system.close();
      const cache = Object.keys(createRequire(import.meta.url).cache);
      process.stdout.write(JSON.stringify({ success: result.success, otel: cache.filter((f) => f.includes('@opentelemetry')).length }));
    `;
    const tmp = tempWorkspace();
    try {
      const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, tmp.ws], { encoding: 'utf8' })) as { success: boolean; otel: number };
      assert.deepEqual(out, { success: true, otel: 0 });
    } finally {
      tmp.cleanup();
    }
  });
});
