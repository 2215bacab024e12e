import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsRoutePath } from './route-path';
import { IsDuration } from '../core/validation/duration';
import { IfPresent } from '../core/validation/if-present.decorator';
import { IsDatabaseUrl } from './database-url';
import { ExecutionsConfig } from './executions.schema';
import { NatFrontEndFields, NatTelemetryConfig } from './nat-front-end.schema';
import { AuthConfig } from '../core/identity/auth.config';
import { CorsConfig } from '../core/http/cors.config';
import { SandboxConfig } from '../core/workers/sandbox.config';
import { IsHostPatterns } from '../core/http/known-hosts';
import { STEP_ADAPTOR_MODES, type StepAdaptorMode } from '../runtime/step-adaptor';
import { OutboundConfig } from './outbound.schema';
import { AsyncConfig, EvaluationConfig } from './async.schema';
import { PageConfig } from './page.schema';
import { AttachmentsConfig } from './attachments.schema';
import { McpServerConfig } from './mcp-server.schema';

const nullable = (o: object, key: string) => (o as Record<string, unknown>)[key] !== null;
// The type check sits nearest the field so a wrong type is reported as such, not as out of range
// (the first constraint listed is the one reported, and decorators apply bottom-up).

/** Route paths; each may be set to null to remove that route. */
export class WorkflowRoutesConfig {
  @IfPresent() @IsIn(['POST']) method = 'POST';
  @ValidateIf((o: object) => nullable(o, 'path')) @IsString() @IsRoutePath() path: string | null =
    '/v1/workflow';
  @ValidateIf((o: object) => nullable(o, 'websocket_path'))
  @IsString()
  @IsRoutePath()
  websocket_path: string | null = '/websocket';
  @ValidateIf((o: object) => nullable(o, 'openai_api_path'))
  @IsString()
  @IsRoutePath()
  openai_api_path: string | null = '/v1/chat';
  @ValidateIf((o: object) => nullable(o, 'openai_api_v1_path'))
  @IsString()
  @IsRoutePath()
  openai_api_v1_path: string | null = '/v1/chat/completions';
  @ValidateIf((o: object) => nullable(o, 'legacy_path'))
  @IsString()
  @IsRoutePath()
  legacy_path: string | null = '/generate';
  @ValidateIf((o: object) => nullable(o, 'legacy_openai_api_path'))
  @IsString()
  @IsRoutePath()
  legacy_openai_api_path: string | null = '/chat';
  @IfPresent() @IsString() description?: string;
}

export class StepAdaptorConfig {
  @IfPresent() @IsIn(STEP_ADAPTOR_MODES as unknown as string[]) mode: StepAdaptorMode = 'default';
  @IfPresent() @IsArray() @IsString({ each: true }) custom_event_types: string[] = [];
}

export const FRONT_END_TYPES = ['http', 'fastapi'];

export class FrontEndConfig extends NatFrontEndFields {
  @IfPresent()
  @IsIn(FRONT_END_TYPES, { message: `_type must be one of: ${FRONT_END_TYPES.join(', ')}` })
  _type = 'http';
  @IfPresent() @IsString() host = 'localhost';
  /** How browsers reach this server (OAuth redirect URIs); default `http://<host>:<port>`. */
  @IfPresent()
  @IsString()
  @Matches(/^https?:\/\/[^\s]+[^/]$/, {
    message: 'public_base_url must be an http(s) URL without a trailing slash',
  })
  public_base_url?: string;
  @IfPresent() @Min(0) @Max(65535) @IsInt() port = 8000;
  /**
   * Host names clients reach this server by, besides localhost, IP addresses, `host` and
   * `public_base_url`'s; any other `Host` gets 421 (DNS rebinding). `.example.com` names a domain and
   * its subdomains; `*` accepts any. Bound to every interface (0.0.0.0) with none listed: any is served,
   * and start-up warns.
   */
  @IfPresent() @IsHostPatterns() @IsArray() allowed_hosts: string[] = [];
  @IfPresent()
  @IsString()
  @ValidateIf((o: FrontEndConfig) => o.root_path !== '')
  @IsRoutePath()
  root_path = '';
  @IfPresent() @ValidateNested() @Type(() => WorkflowRoutesConfig) workflow = new WorkflowRoutesConfig();
  @IfPresent() @IsBoolean() disable_legacy_routes = false;
  @IfPresent() @IsBoolean() enable_interactive_extensions = false;
  @IfPresent() @IsString() @IsRoutePath() oauth2_callback_path = '/auth/redirect';
  /** Where the built-in page (chat, prompts, approvals inbox) is served; null turns it off. */
  @ValidateIf((o: object) => nullable(o, 'ui_path')) @IsString() @IsRoutePath() ui_path: string | null = '/';
  @IfPresent() @ValidateNested() @Type(() => PageConfig) ui = new PageConfig();
  /** Images a chat may carry when the workflow reads them (attachments.schema.ts). */
  @IfPresent() @ValidateNested() @Type(() => AttachmentsConfig) attachments = new AttachmentsConfig();
  @IfPresent() @ValidateNested() @Type(() => CorsConfig) cors = new CorsConfig();
  @IfPresent() @Min(1) @IsInt() max_body_bytes = 10 * 1024 * 1024;
  /** The body limit of streaming routes (`/stream`, `/full`, streamed chat completions). */
  @IfPresent() @Min(1) @IsInt() max_stream_body_bytes = 1024 * 1024;
  @IfPresent() @ValidateNested() @Type(() => StepAdaptorConfig) step_adaptor = new StepAdaptorConfig();
  /**
   * Seconds an idle keep-alive connection stays open. Above a gateway's own idle timeout (60 s for most
   * load balancers), so the gateway closes first and never sends a request on a connection this server
   * has just closed (a 502 for its client). Node's default is 5.
   */
  @IfPresent() @Min(1) @IsInt() keep_alive_seconds = 65;
  /** Seconds of silence on an SSE stream before a `: keep-alive` comment. */
  @IfPresent() @Min(1) @IsInt() sse_keepalive_seconds = 15;
  /**
   * What a dropped interactive stream does to its execution: `continue` (the client can re-attach with
   * Last-Event-ID) or `cancel` (NeMo Agent Toolkit's behaviour). Non-interactive streams always cancel.
   */
  @IfPresent() @IsIn(['continue', 'cancel']) on_disconnect: 'continue' | 'cancel' = 'continue';
  /** The largest WebSocket message accepted; a bigger one closes the socket with 1009. */
  @IfPresent() @Min(1024) @IsInt() websocket_max_message_bytes = 1024 * 1024;
  /** Seconds between WebSocket pings; a socket that has not answered the previous ping is closed. */
  @IfPresent() @Min(1) @IsInt() websocket_ping_seconds = 30;
  /** Open WebSocket connections one address may hold; more are refused at the handshake (429). */
  @IfPresent() @Min(1) @IsInt() websocket_max_connections_per_address = 1000;
  /**
   * Bytes of messages not yet complete that one address may have sent over all its WebSockets; the
   * socket that passes it is closed with 1009. Never below one websocket_max_message_bytes message.
   */
  @IfPresent() @Min(1024) @IsInt() websocket_max_buffered_bytes_per_address = 16 * 1024 * 1024;
  /** Open SSE streams one address may hold; more get 429. */
  @IfPresent() @Min(1) @IsInt() max_streams_per_address = 100;
  /** Streams re-attached to one execution (`GET /executions/{id}/stream`) at a time; more get 429. */
  @IfPresent() @Min(1) @IsInt() max_reattached_streams_per_execution = 10;
  /**
   * Proxies whose X-Forwarded-For names the client (addresses, CIDR ranges, `loopback`, `linklocal`,
   * `uniquelocal`). Empty: the socket's peer is the client, whatever the header says.
   */
  @IfPresent() @IsArray() @IsString({ each: true }) trust_proxy: string[] = [];
  /** The AG-UI endpoint (`POST`, and `GET …/capabilities`); null removes it. */
  @ValidateIf((o: object) => nullable(o, 'ag_ui_path'))
  @IsString()
  @IsRoutePath()
  ag_ui_path: string | null = '/v1/ag-ui';
  /** The A2A face's JSON-RPC endpoint (and the agent card at `/.well-known/agent-card.json`); null removes both. */
  @ValidateIf((o: object) => nullable(o, 'a2a_path'))
  @IsString()
  @IsRoutePath()
  a2a_path: string | null = '/a2a';
  /** AG-UI threads one identity may hold at once; the least recently used idle one goes first. */
  @IfPresent() @Min(1) @IsInt() ag_ui_max_threads_per_user = 1000;
  /** Seconds an AG-UI thread is remembered after its last run (its pending interrupts with it). */
  @IfPresent() @Min(1) @IsInt() ag_ui_thread_ttl_seconds = 3600;
  /** OpenAI's Responses API (`POST`, `GET/DELETE …/{id}`, `…/input_items`, `…/cancel`); null removes it. */
  @ValidateIf((o: object) => nullable(o, 'responses_path'))
  @IsString()
  @IsRoutePath()
  responses_path: string | null = '/v1/responses';
  /** Seconds a stored response stays retrievable (and continuable with `previous_response_id`). */
  @IfPresent() @Min(1) @IsInt() responses_ttl_seconds = 7 * 24 * 3600;
  /** The MCP server face (Streamable HTTP: `POST`, `GET`, `DELETE`); null removes it. */
  @ValidateIf((o: object) => nullable(o, 'mcp_path'))
  @IsString()
  @IsRoutePath()
  mcp_path: string | null = '/mcp';
  @IfPresent() @ValidateNested() @Type(() => McpServerConfig) mcp = new McpServerConfig();
}

/** What happens to each feedback besides being stored. */
export class FeedbackConfig {
  /** Each feedback is also POSTed here as JSON (fire and forget; failures are logged). Empty: none. */
  @IsOptional()
  @ValidateIf((o: FeedbackConfig) => o.webhook_url !== '')
  @IsString()
  @Matches(/^https?:\/\//, { message: 'webhook_url must be an http(s) URL' })
  webhook_url?: string | null;
  /** Extra headers for the webhook call (e.g. Authorization); string values. */
  @IfPresent() @IsObject() webhook_headers: Record<string, string> = {};
  /** Signs each delivery as `general.async.webhook_secret` does (Standard Webhooks). */
  @IsOptional() @IsString() webhook_secret?: string;
  @IfPresent() @Min(1) @IsInt() webhook_timeout_seconds = 5;
  /**
   * Days the owner of an identified trace is kept (0: forever). Feedback may come long after the
   * answer; past this the trace is unknown and, like an anonymous one, takes anyone's feedback.
   */
  @IfPresent() @Min(0) @IsInt() trace_owner_retention_days = 90;
}

export class GeneralConfig {
  @IfPresent() @ValidateNested() @Type(() => AuthConfig) auth = new AuthConfig();
  /** Idle time after which a user's per-user workflow instance is dropped (seconds, "30m", "PT30M"…). */
  @IfPresent() @IsDuration() per_user_workflow_timeout: number | string = 1800;
  /** How often idle per-user workflow instances are looked for. */
  @IfPresent() @IsDuration() per_user_workflow_cleanup_interval: number | string = 300;
  @IfPresent() @ValidateNested() @Type(() => FrontEndConfig) front_end = new FrontEndConfig();
  @IfPresent() @IsBoolean() enable_per_user_monitoring = false;
  /** /monitor/users forgets a user idle this long (seconds)… */
  @IfPresent() @Min(1) @IsInt() monitor_user_idle_seconds = 3600;
  /** …and lists at most this many (the least recently active idle ones are dropped first). */
  @IfPresent() @Min(1) @IsInt() monitor_max_users = 10_000;
  @IfPresent() @ValidateNested() @Type(() => ExecutionsConfig) executions = new ExecutionsConfig();
  /** Seconds a finished execution stays readable before it is evicted. */
  @IfPresent() @Min(1) @IsInt() execution_ttl_seconds = 600;
  /** Bytes of events one execution keeps for re-attaching clients (text chunks merged; older dropped). */
  @IfPresent() @Min(1024) @IsInt() max_event_log_bytes_per_execution = 1024 * 1024;
  /**
   * Bytes of events all executions keep together; past it the oldest executions' oldest go first (in
   * memory, a run's end is kept as long as its record, outside this bound and the one per execution).
   */
  @IfPresent() @Min(1024) @IsInt() max_event_log_bytes = 64 * 1024 * 1024;
  /** Beyond these, new interactive requests get 429 with Retry-After. */
  @IfPresent() @Min(1) @IsInt() max_waiting_executions = 10_000;
  @IfPresent() @Min(1) @IsInt() max_waiting_executions_per_user = 100;
  /** Anonymous callers together wait on at most this many; the rest stays for identified users. */
  @IfPresent() @Min(0) @IsInt() max_anonymous_waiting_executions = 1000;
  /** Waiting executions started from one client address, whoever the caller claims to be. */
  @IfPresent() @Min(1) @IsInt() max_waiting_executions_per_address = 100;
  /** How long a prompt written without a timeout waits for its answer (seconds). */
  @IfPresent() @Min(1) @IsInt() default_prompt_timeout_seconds = 3600;
  /**
   * On SIGTERM, how long the server may take to stop: streams are ended, durable executions handed to
   * another replica, connections drained (seconds; keep it under Kubernetes' terminationGracePeriodSeconds).
   */
  @IfPresent() @Min(1) @Max(3600) @IsInt() shutdown_grace_seconds = 25;
  /**
   * `sqlite:<file>`, `sqlite::memory:` or `postgres://…[?schema=name]`. Only this decides: DATABASE_URL
   * is used when the file says so (`db_url: ${DATABASE_URL:-sqlite:./data/interlude.db}`).
   */
  @IfPresent() @IsDatabaseUrl() db_url = 'sqlite::memory:';
  @IfPresent() @ValidateNested() @Type(() => FeedbackConfig) feedback = new FeedbackConfig();
  @IfPresent() @ValidateNested() @Type(() => OutboundConfig) outbound = new OutboundConfig();
  @IfPresent() @ValidateNested() @Type(() => AsyncConfig) async = new AsyncConfig();
  @IfPresent() @ValidateNested() @Type(() => EvaluationConfig) evaluation = new EvaluationConfig();
  @IfPresent() @ValidateNested() @Type(() => SandboxConfig) sandbox = new SandboxConfig();
  // Accepted for NeMo Agent Toolkit config compatibility; they configure nothing here yet.
  @IsOptional() @IsBoolean() use_uvloop?: boolean;
  @IfPresent() @ValidateNested() @Type(() => NatTelemetryConfig) telemetry = new NatTelemetryConfig();
}

/** A named component (`llms`, `functions`, `authentication`, `workflow`): `_type` picks its schema. */
export class ComponentConfig {
  @IsDefined({ message: '_type is required' }) @IsString() _type!: string;
  [field: string]: unknown;
}

/** The YAML file, as NeMo Agent Toolkit lays it out. */
export class ConfigFile {
  @IfPresent() @ValidateNested() @Type(() => GeneralConfig) general = new GeneralConfig();
  @IsOptional() @IsObject() llms: Record<string, ComponentConfig> = {};
  @IsOptional() @IsObject() functions: Record<string, ComponentConfig> = {};
  @IsOptional() @IsObject() authentication: Record<string, ComponentConfig> = {};
  @IsOptional() @IsObject() function_groups?: Record<string, unknown>;
  @IsOptional() @IsObject() embedders?: Record<string, unknown>;
  @IsOptional() @IsObject() memory?: Record<string, unknown>;
  @IsOptional() @IsObject() retrievers?: Record<string, unknown>;
  /** NAT's evaluation section (`eval.general`, `eval.evaluators`), checked by `checkEvalSection`. */
  @IsOptional() @IsObject() eval?: Record<string, unknown>;
  @IsDefined({ message: 'a workflow section with a _type is required' })
  @IsObject()
  workflow!: ComponentConfig;
}
