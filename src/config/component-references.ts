import { validatePlain } from '../core/validation/validation-issues';
import { GROUP_SEPARATOR, type ConfigReference } from '../runtime/function-type';
import type { FunctionRegistry } from '../runtime/function-registry';
import { AUTH_PROVIDER_TYPES, OAuth2AuthCodeFlowConfig } from './authentication.schema';
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
  return references.flatMap(({ loc, section, name }) => {
    if (section === 'functions' && name === self) {
      return [{ loc, message: `"${name}" cannot be its own tool` }];
    }
    const known = Object.keys(entriesOf(section));
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

export function checkAuthProvider(
  loc: Loc,
  entry: Record<string, unknown>,
  found: { loc: Loc; message: string }[],
) {
  if (!AUTH_PROVIDER_TYPES.includes(String(entry._type))) {
    found.push({
      loc: [...loc, '_type'],
      message: `unknown _type "${String(entry._type)}"; known types: ${AUTH_PROVIDER_TYPES.join(', ')}`,
    });
    return;
  }
  const checked = validatePlain(OAuth2AuthCodeFlowConfig, entry, loc, { forbidUnknown: true });
  if (!checked.ok) found.push(...checked.issues.map((i) => ({ loc: i.loc, message: i.msg })));
  else if (
    checked.value.token_endpoint_auth_method &&
    checked.value.token_endpoint_auth_method !== 'none' &&
    !checked.value.client_secret
  ) {
    found.push({
      loc: [...loc, 'client_secret'],
      message: `${checked.value.token_endpoint_auth_method} needs a client_secret`,
    });
  }
}
