import { validatePlain } from '../core/validation/validation-issues';
import { GROUP_SEPARATOR, type ConfigReference } from '../runtime/function-type';
import type { FunctionRegistry } from '../runtime/function-registry';
import {
  ApiKeyAuthConfig,
  checkHeaderAuth,
  McpServiceAccountConfig,
  splitScopes,
  type HeaderAuthConfig,
} from '../runtime/mcp/mcp-auth.config';
import { checkMcpOAuth2, McpOAuth2Config } from '../runtime/mcp/mcp-oauth2.config';
import { AUTH_PROVIDER_TYPES, OAuth2AuthCodeFlowConfig } from './authentication.schema';
import { takeNatFields, type NatFields } from '../runtime/nat-fields';
import { unknownTypeMessage } from './nat-types';
import type { Loc } from './config.loader';

/**
 * References to entries the file does not declare (or a function naming itself as its own tool). A
 * tool may also be a whole function group or one of its tools, `<group>__<tool>`; whether that tool
 * exists is known once the group has connected.
 */
export function referenceProblems(
  references: ConfigReference[],
  self: string,
  entriesOf: (section: string) => Record<string, unknown>,
  registry: FunctionRegistry,
): { loc: Loc; message: string }[] {
  const groups = Object.keys(entriesOf('function_groups'));
  return references.flatMap(({ loc, section, name, types }) => {
    if (section === 'functions' && name === self) {
      return [{ loc, message: `"${name}" cannot be its own tool` }];
    }
    const known = Object.keys(entriesOf(section));
    const type = (entriesOf(section)[name] as { _type?: unknown } | undefined)?._type;
    if (known.includes(name) && types && typeof type === 'string' && !types.includes(type))
      return [{ loc, message: `"${name}" is ${type}; this field takes ${types.join(' or ')}` }];
    if (known.includes(name)) return [];
    if (section === 'functions') {
      const group = name.includes(GROUP_SEPARATOR) ? name.slice(0, name.indexOf(GROUP_SEPARATOR)) : name;
      if (groups.includes(group)) return [];
      if (registry.getGroup(name)) {
        return [
          {
            loc,
            message: `"${name}" is a function group type: declare it under function_groups and name that entry`,
          },
        ];
      }
      if (groups.length) {
        const listed = [
          known.length ? `functions: ${known.join(', ')}` : '',
          `function_groups: ${groups.join(', ')}`,
        ];
        return [
          {
            loc,
            message: `no entry "${name}" in functions or function_groups; ${listed.filter(Boolean).join('; ')}`,
          },
        ];
      }
    }
    const listed = known.length ? `; ${section}: ${known.join(', ')}` : `, and ${section}: declares none`;
    return [{ loc, message: `no entry "${name}" in ${section}${listed}` }];
  });
}

/** What every NAT auth provider accepts (AuthProviderBaseConfig) and configures nothing here. */
const AUTH_BASE_FIELDS: NatFields = {
  ignored: {
    preflight_auth:
      "a user is asked for consent when a tool first needs the provider's token, not when a session opens",
  },
};

export function checkAuthProvider(
  loc: Loc,
  given: Record<string, unknown>,
  found: { loc: Loc; message: string }[],
  ignored: { loc: Loc; message: string }[],
): object | undefined {
  const { settings: entry, notes } = takeNatFields(given, AUTH_BASE_FIELDS);
  ignored.push(...notes.map((n) => ({ loc: [...loc, ...n.loc], message: n.message })));
  if (!AUTH_PROVIDER_TYPES.includes(String(entry._type))) {
    found.push({
      loc: [...loc, '_type'],
      message: unknownTypeMessage('authentication', String(entry._type), AUTH_PROVIDER_TYPES),
    });
    return undefined;
  }
  if (entry._type === 'api_key' || entry._type === 'mcp_service_account') {
    const cls = entry._type === 'api_key' ? ApiKeyAuthConfig : McpServiceAccountConfig;
    const checked = validatePlain<HeaderAuthConfig>(cls, splitScopes(entry), loc, { forbidUnknown: true });
    if (!checked.ok) {
      found.push(...checked.issues.map((i) => ({ loc: i.loc, message: i.msg })));
      return undefined;
    }
    const { problems, notes } = checkHeaderAuth(checked.value);
    found.push(...problems.map((p) => ({ loc: [...loc, ...p.loc], message: p.message })));
    ignored.push(...notes.map((n) => ({ loc: [...loc, ...n.loc], message: n.message })));
    return problems.length ? undefined : checked.value;
  }
  if (entry._type === 'mcp_oauth2') {
    const checked = validatePlain(McpOAuth2Config, splitScopes(entry), loc, { forbidUnknown: true });
    if (!checked.ok) {
      found.push(...checked.issues.map((i) => ({ loc: i.loc, message: i.msg })));
      return undefined;
    }
    const { problems, notes } = checkMcpOAuth2(checked.value);
    found.push(...problems.map((p) => ({ loc: [...loc, ...p.loc], message: p.message })));
    ignored.push(...notes.map((n) => ({ loc: [...loc, ...n.loc], message: n.message })));
    return problems.length ? undefined : checked.value;
  }
  const checked = validatePlain(OAuth2AuthCodeFlowConfig, entry, loc, { forbidUnknown: true });
  if (!checked.ok) {
    found.push(...checked.issues.map((i) => ({ loc: i.loc, message: i.msg })));
    return undefined;
  }
  const method = checked.value.token_endpoint_auth_method;
  if (method && method !== 'none' && !checked.value.client_secret) {
    found.push({ loc: [...loc, 'client_secret'], message: `${method} needs a client_secret` });
    return undefined;
  }
  return checked.value;
}
