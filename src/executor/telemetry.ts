/**
 * OpenTelemetry for tool calls, following the GenAI semantic conventions: one span per call,
 * `execute_tool {tool name}` (kind `INTERNAL`), with `gen_ai.operation.name` = `execute_tool`,
 * `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type` = `function`, and on failure
 * `error.type` (the result's error code, `PATH_TRAVERSAL` for a workspace escape) and the
 * status `ERROR`; each decision of the pipeline is a `toolgate.decision` event, a cut output a
 * `toolgate.output.truncated` event. The `gen_ai.execute_tool.duration` histogram (seconds)
 * gets one value per call.
 *
 * Only `@opentelemetry/api` is imported: the application registers its SDK (a tracer provider,
 * a meter provider, a context manager) and toolgate's calls appear in its traces. Without
 * one, {@link observeCall} returns `undefined` after one lookup of the API's global (no span
 * is made, and the API is not even loaded until an SDK registers something) and the executor
 * takes its usual path: no wrapper, no promise turn.
 *
 * The API is an optional peer dependency (as OpenTelemetry asks of instrumented libraries: the
 * application that registers an SDK has it). When an SDK registered something but toolgate
 * cannot load the API (not installed where toolgate finds it), calls run untraced and the
 * process is warned once (`TOOLGATE_PACKAGE_UNAVAILABLE`): "unavailable: tracing tool calls
 * needs the package `@opentelemetry/api` ... npm install @opentelemetry/api".
 *
 * The only module that imports `@opentelemetry/api`.
 *
 * @module
 */
import type { Histogram, MeterProvider, Span } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import { PackageUnavailableError, PathTraversalError } from '../errors/errors.js';
import { requireOptional } from '../util/optional-package.js';
import type { ToolCallRequest, ToolExecutionResult } from '../types/result.js';
import { clip } from '../util/values.js';

/** Instrumentation scope of toolgate's spans and metrics. */
const INSTRUMENTATION_SCOPE = 'toolgate';
/** Name of the duration histogram (seconds). */
const DURATION_METRIC = 'gen_ai.execute_tool.duration';

/**
 * Where every copy of the API (major version 1) keeps what an SDK registered: absent until a
 * tracer provider, meter provider, context manager or propagator is registered
 * (`@opentelemetry/api`, `internal/global-utils`).
 */
const API_GLOBALS = Symbol.for('opentelemetry.js.api.1');

type Api = typeof import('@opentelemetry/api');
/** The API and what this module keeps of it, loaded on the first call after an SDK registered anything. */
interface Loaded {
  api: Api;
  /** A proxy tracer: it follows a provider registered after the API loaded. */
  tracer: ReturnType<Api['trace']['getTracer']>;
  /** The API's no-op tracer provider: the delegate of a proxy nobody registered a provider with. */
  noopTracerProvider: ReturnType<InstanceType<Api['ProxyTracerProvider']>['getDelegate']>;
  /** The histogram the API hands out when no meter provider is registered (a shared no-op). */
  noopHistogram: Histogram;
}
let loaded: Loaded | undefined;
/** The API could not be loaded (the process was warned): calls run untraced. */
let unavailable = false;

/** What needs the API, in the warning when it is missing. */
const FEATURE = 'tracing tool calls (OpenTelemetry)';

/**
 * The API, loaded now (a CommonJS package: required, so that a call needs no promise turn);
 * `undefined` when it is not installed (the process is warned once).
 */
function loadOtel(): Loaded | undefined {
  if (loaded === undefined && !unavailable) {
    let api: Api;
    try {
      api = requireOptional<Api>('@opentelemetry/api', FEATURE);
    } catch (error) {
      if (!(error instanceof PackageUnavailableError)) throw error;
      unavailable = true;
      process.emitWarning(`toolgate: an OpenTelemetry SDK is registered, but tool calls are not traced: ${error.message}`, { code: 'TOOLGATE_PACKAGE_UNAVAILABLE' });
      return undefined;
    }
    loaded = {
      api,
      tracer: api.trace.getTracer(INSTRUMENTATION_SCOPE),
      noopTracerProvider: new api.ProxyTracerProvider().getDelegate(),
      noopHistogram: api.createNoopMeter().createHistogram(DURATION_METRIC),
    };
  }
  return loaded;
}

/** The API, loaded by {@link observeCall} before any {@link CallObservation} exists. */
function otel(): Loaded {
  return loaded!;
}

/** Is a tracer provider registered? (A proxy of another copy of the API counts as yes: its spans then decide.) */
function tracing({ api, noopTracerProvider }: Loaded): boolean {
  const provider = api.trace.getTracerProvider();
  return !(provider instanceof api.ProxyTracerProvider) || provider.getDelegate() !== noopTracerProvider;
}
let meterProvider: MeterProvider | undefined;
let histogram: Histogram | undefined;

/** The duration histogram of the registered meter provider, or `undefined` when there is none. */
function durationHistogram({ api, noopHistogram }: Loaded): Histogram | undefined {
  const provider = api.metrics.getMeterProvider();
  if (provider !== meterProvider) {
    meterProvider = provider;
    const made = provider.getMeter(INSTRUMENTATION_SCOPE).createHistogram(DURATION_METRIC, {
      description: 'Duration of tool calls, gates and queueing included.',
      unit: 's',
      advice: { explicitBucketBoundaries: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300] },
    });
    histogram = made === noopHistogram ? undefined : made;
  }
  return histogram;
}

/** The W3C `traceparent` of a span (`00-{trace id}-{span id}-{flags}`), or `undefined` for an invalid one. */
function traceparentOf(span: Span): string | undefined {
  const { traceId, spanId, traceFlags } = span.spanContext();
  if (!/^[0-9a-f]{32}$/.test(traceId) || /^0+$/.test(traceId) || !/^[0-9a-f]{16}$/.test(spanId) || /^0+$/.test(spanId)) return undefined;
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * One call being observed: its span (when a tracer provider records it) and the histogram
 * (when a meter provider is registered).
 */
export class CallObservation {
  private readonly started = performance.now();

  constructor(
    private readonly span: Span | undefined,
    private readonly histogram: Histogram | undefined,
    private readonly toolName: string,
    private readonly callId: string | undefined,
  ) {}

  /**
   * Run `execute` with the call's span as the active span (a main-runner tool, and a bridged
   * MCP call, see it in `context.active()`), handing it the span's `traceparent` for tools that
   * run in another thread or process; end the span when the call ends.
   */
  run(execute: (traceparent: string | undefined) => Promise<ToolExecutionResult>): Promise<ToolExecutionResult> {
    const span = this.span;
    const traceparent = span === undefined ? undefined : traceparentOf(span);
    const { context, trace } = otel().api;
    const active = span === undefined ? context.active() : trace.setSpan(context.active(), span);
    let pending: Promise<ToolExecutionResult>;
    try {
      pending = context.with(active, execute, undefined, traceparent);
    } catch (error) {
      pending = Promise.reject(error);
    }
    return pending.then(
      (result) => {
        this.end(result);
        return result;
      },
      (error: unknown) => {
        this.escape(error);
        throw error;
      },
    );
  }

  /** Close out a call that produced a result. */
  private end(result: ToolExecutionResult): void {
    const errorType = result.success ? undefined : result.errorCode ?? 'TOOL_ERROR';
    this.histogram?.record(result.durationMs / 1000, this.metricAttributes(result.tool, errorType));
    const span = this.span;
    if (span === undefined) return;
    span.setAttribute('gen_ai.tool.call.id', result.callId);
    if (result.version !== undefined) span.setAttribute('toolgate.tool.version', result.version);
    span.setAttribute('toolgate.stop_reason', result.stopReason);
    for (const d of result.decisions ?? []) {
      const attributes: Record<string, string | number> = { 'toolgate.decision.decider': d.decider, 'toolgate.decision.verdict': d.verdict, 'toolgate.decision.reason': d.reason };
      if (d.rule !== undefined) attributes['toolgate.decision.rule'] = d.rule;
      if (d.file !== undefined) attributes['toolgate.decision.file'] = d.file;
      if (d.line !== undefined) attributes['toolgate.decision.line'] = d.line;
      span.addEvent('toolgate.decision', attributes);
    }
    const cut = result.fullOutput !== undefined || TRUNCATION_NOTE.test(result.output);
    if (cut) {
      const attributes: Record<string, number> = { 'toolgate.output.shown_characters': result.output.length };
      if (result.fullOutput !== undefined) attributes['toolgate.output.characters'] = result.fullOutput.characters;
      span.addEvent('toolgate.output.truncated', attributes);
    }
    if (errorType !== undefined) {
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: otel().api.SpanStatusCode.ERROR, message: (result.error ?? result.output).slice(0, 500) });
    }
    span.end();
  }

  /** Close out a call that threw (a workspace escape, by contract). */
  private escape(error: unknown): void {
    const errorType = error instanceof PathTraversalError ? 'PATH_TRAVERSAL' : (error as Error)?.name ?? 'Error';
    this.histogram?.record((performance.now() - this.started) / 1000, this.metricAttributes(this.toolName, errorType));
    const span = this.span;
    if (span === undefined) return;
    if (this.callId !== undefined) span.setAttribute('gen_ai.tool.call.id', this.callId);
    span.setAttribute('error.type', errorType);
    span.setStatus({ code: otel().api.SpanStatusCode.ERROR, message: String((error as Error)?.message ?? error).slice(0, 500) });
    span.end();
  }

  private metricAttributes(tool: string, errorType: string | undefined): Record<string, string> {
    const attributes: Record<string, string> = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool };
    if (errorType !== undefined) attributes['error.type'] = errorType;
    return attributes;
  }
}

/** The notes close-out writes where it cut an output, `head` or `head-tail` (`src/closeout/closeout.ts`). */
const TRUNCATION_NOTE = /\n\[output truncated: \d+ of \d+ characters|\n\[\.\.\. \d+ characters \([^)]*\) omitted from the middle of \d+;/;

/**
 * Start observing one call: a span `execute_tool {name}` child of the active span, and the
 * duration histogram. `undefined` when neither is recorded (no SDK registered, or the call
 * not sampled and no meter provider): the caller then runs the call as if this module did not
 * exist. Without a registered SDK this costs two lookups of the API's globals, no span.
 * @param call - the call as given (its name and call id, when they are strings, name the span).
 */
export function observeCall(call: ToolCallRequest): CallObservation | undefined {
  // Nothing registered by any SDK: no span, no metric, and the API need not even load.
  if ((globalThis as Record<symbol, unknown>)[API_GLOBALS] === undefined) return undefined;
  const api = loadOtel();
  if (api === undefined) return undefined;
  const metric = durationHistogram(api);
  if (metric === undefined && !tracing(api)) return undefined;
  const given = call !== null && typeof call === 'object';
  const name = given && typeof call.name === 'string' ? clip(call.name, 200) : '?';
  const callId = given && typeof call.callId === 'string' && call.callId !== '' ? clip(call.callId, 200) : undefined;
  const span = api.tracer.startSpan(`execute_tool ${name}`, { kind: api.api.SpanKind.INTERNAL });
  const recording = span.isRecording();
  if (!recording && metric === undefined) return undefined;
  if (recording) {
    span.setAttribute('gen_ai.operation.name', 'execute_tool');
    span.setAttribute('gen_ai.tool.name', name);
    span.setAttribute('gen_ai.tool.type', 'function');
    if (callId !== undefined) span.setAttribute('gen_ai.tool.call.id', callId);
  }
  return new CallObservation(recording ? span : undefined, metric, name, callId);
}
