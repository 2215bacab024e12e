import { parse as parseYamlScalar } from 'yaml';

type Loc = (string | number)[];

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${VAR}` and `${VAR:-default}` in string scalars; a scalar that is only a placeholder takes the value's YAML type. */
export function interpolate(
  value: unknown,
  env: NodeJS.ProcessEnv,
  loc: Loc,
  problems: { loc: Loc; message: string }[],
): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    const whole = new RegExp(`^${PLACEHOLDER.source}$`).test(value);
    const replaced = value.replace(PLACEHOLDER, (_m, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      problems.push({
        loc,
        message: `environment variable ${name} is not set and has no default (\${${name}:-default})`,
      });
      return '';
    });
    if (!whole) return replaced;
    try {
      const typed: unknown = parseYamlScalar(replaced);
      return typed === null || typeof typed !== 'object' ? (typed ?? replaced) : replaced;
    } catch {
      return replaced;
    }
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, env, [...loc, i], problems));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = interpolate(v, env, [...loc, k], problems);
    return out;
  }
  return value;
}

/** Every `${VAR}` placeholder in `value`'s strings, with its path, in document order. */
export function placeholdersIn(value: unknown, loc: Loc = []): { loc: Loc; placeholder: string }[] {
  if (typeof value === 'string') {
    return [...value.matchAll(PLACEHOLDER)].map((m) => ({ loc, placeholder: m[0] }));
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholdersIn(v, [...loc, i]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => placeholdersIn(v, [...loc, k]));
  }
  return [];
}
