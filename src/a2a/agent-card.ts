import type { AgentCard, SecurityRequirement, SecurityScheme } from '@a2a-js/sdk';
import type { AuthConfig, IdentitySource } from '../core/identity/auth.config';
import type { BuiltFunction } from '../runtime/function-type';

/** A2A v1.0, the protocol the SDK's JSON-RPC handler speaks. */
const PROTOCOL_VERSION = '1.0';
const MODES = ['text/plain', 'application/json'];

export interface CardFacts {
  workflow: BuiltFunction;
  auth: AuthConfig;
  /** The identity sources that identify a caller (`IdentityResolver.sources`). */
  sources: ReadonlySet<IdentitySource>;
  /** Where clients reach the JSON-RPC endpoint (public base URL or the request's origin, and the path). */
  endpoint: string;
  /** Whether tasks can POST their updates to a client's URL. */
  pushNotifications: boolean;
}

function httpScheme(scheme: string, description: string, bearerFormat = ''): SecurityScheme {
  return { scheme: { $case: 'httpAuthSecurityScheme', value: { scheme, description, bearerFormat } } };
}

function apiKeyScheme(location: string, name: string, description: string): SecurityScheme {
  return { scheme: { $case: 'apiKeySecurityScheme', value: { location, name, description } } };
}

/** The credentials the server reads, as A2A security schemes, one per identity source in use. */
function securitySchemesOf(facts: CardFacts): Record<string, SecurityScheme> {
  const schemes: Record<string, SecurityScheme> = {};
  if (facts.sources.has('jwt')) schemes.bearer_jwt = httpScheme('Bearer', 'A JWT in Authorization', 'JWT');
  if (facts.sources.has('api_key')) {
    schemes.api_key = apiKeyScheme(
      'header',
      'X-API-Key',
      'An API key (also accepted as Authorization: Bearer)',
    );
  }
  if (facts.sources.has('basic')) schemes.basic = httpScheme('Basic', 'A configured user and password');
  const cookie = facts.auth.session_cookies[0];
  if (facts.sources.has('cookie') && cookie)
    schemes.session_cookie = apiKeyScheme('cookie', cookie, 'A session cookie');
  return schemes;
}

/**
 * The agent card (`/.well-known/agent-card.json`): the configured workflow as one agent with one
 * skill, its JSON-RPC interface, and how callers identify themselves. Anonymous callers are served
 * unless `general.auth.require_identity` is set, so only then does the card require a scheme.
 */
export function agentCardOf(facts: CardFacts): AgentCard {
  const { workflow } = facts;
  const description = workflow.description || `The ${workflow.type} workflow, served by Interlude`;
  const securitySchemes = securitySchemesOf(facts);
  // The media types of file parts the workflow reads (general.front_end.attachments), beside text and data.
  const inputModes = [
    ...new Set([...MODES, ...(workflow.images?.types ?? []), ...(workflow.files?.types ?? [])]),
  ];
  const securityRequirements: SecurityRequirement[] = facts.auth.require_identity
    ? Object.keys(securitySchemes).map((name) => ({ schemes: { [name]: { list: [] } } }))
    : [];
  return {
    name: workflow.type,
    description,
    supportedInterfaces: [
      { url: facts.endpoint, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: PROTOCOL_VERSION },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: {
      streaming: true,
      pushNotifications: facts.pushNotifications,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes,
    securityRequirements,
    defaultInputModes: inputModes,
    defaultOutputModes: MODES,
    skills: [
      {
        id: workflow.type,
        name: workflow.type,
        description,
        tags: [workflow.type],
        examples: [],
        inputModes,
        outputModes: MODES,
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
