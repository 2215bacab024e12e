import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { context, propagation, trace } from '@opentelemetry/api';
import type { NodeSDK } from '@opentelemetry/sdk-node';

/**
 * OpenTelemetry export, on only when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `…_TRACES_ENDPOINT`) is set: the
 * SDK is not even loaded otherwise. Everything else (protocol, headers, sampler, service name, batch
 * delays) comes from the standard `OTEL_*` variables the SDK reads itself.
 *
 * Nest 12's own instrumentation needs an ESM loader hook, so what is traced is `http` (server and
 * client spans), `fetch` (undici: the model calls of the openai SDK, tools and webhooks, which then send
 * `traceparent`) plus the spans we make by hand: one per execution and one per workflow step.
 */
let sdk: NodeSDK | undefined;
let instrumentations: { disable(): void }[] = [];
/** The trace id the next root span must carry (an execution whose trace id a client chose). */
let nextRootTraceId: string | undefined;

export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** True while the SDK runs: spans are recorded and exported. */
export function tracingActive(): boolean {
  return sdk !== undefined;
}

/** Starts the SDK when the environment asks for it; returns whether it runs. Idempotent. */
export function startTracing(env: NodeJS.ProcessEnv = process.env): boolean {
  if (sdk) return true;
  if (!tracingEnabled(env) || env.OTEL_SDK_DISABLED === 'true') return false;
  // Loaded here, not at import time: a server without an OTLP endpoint pays nothing for it.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const http = new HttpInstrumentation({
    ignoreIncomingRequestHook: (req) => /^\/health(\/|\?|$)/.test(req.url ?? ''),
  });
  // A request that already names its trace (`traceparent`, or NAT's `workflow-trace-id`, set by a client
  // in this very process or a tool's config) keeps it: an added `traceparent` would override its choice.
  const undici = new UndiciInstrumentation({ ignoreRequestHook: (request) => namesTrace(request.headers) });
  instrumentations = [http, undici];
  sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ? undefined : 'interlude',
    instrumentations: [http, undici],
    idGenerator: {
      generateTraceId: () => {
        const id = nextRootTraceId ?? randomBytes(16).toString('hex');
        nextRootTraceId = undefined;
        return id;
      },
      generateSpanId: () => randomBytes(8).toString('hex'),
    },
    // Traces only, unless metrics or OTel logs are asked for by name (the SDK would default them to OTLP).
    ...(env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
  });
  sdk.start();
  // The instrumentation patches `http` when it is next required through Node's loader: require it now,
  // even if it is loaded already (Express and Nest load it first), so the server's requests get spans.
  const nodeRequire = createRequire(__filename);
  nodeRequire('http');
  nodeRequire('https');
  return true;
}

const TRACE_HEADERS = new Set(['traceparent', 'workflow-trace-id']);

function namesTrace(headers: string | (string | string[])[]): boolean {
  const names =
    typeof headers === 'string'
      ? headers.split('\r\n').map((line) => line.slice(0, line.indexOf(':')))
      : headers.filter((_h, i) => i % 2 === 0);
  return names.some((name) => typeof name === 'string' && TRACE_HEADERS.has(name.toLowerCase()));
}

/** Flushes pending spans and stops the SDK (the process may start it again later). */
export async function shutdownTracing(): Promise<void> {
  const running = sdk;
  if (!running) return;
  sdk = undefined;
  try {
    await running.shutdown();
  } finally {
    // The SDK leaves its patches and globals in place; without this a second start could not register again.
    for (const instrumentation of instrumentations) instrumentation.disable();
    instrumentations = [];
    trace.disable();
    context.disable();
    propagation.disable();
  }
}

/** Runs `start` so that a root span it starts gets `traceId` (32 hex) instead of a random one. */
export function withRootTraceId<T>(traceId: string, start: () => T): T {
  nextRootTraceId = traceId;
  try {
    return start();
  } finally {
    nextRootTraceId = undefined;
  }
}

/** The trace id of the active span (the HTTP server span), when tracing runs. */
export function activeOtelTraceId(): string | undefined {
  if (!sdk) return undefined;
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}
