import type { default as Ajv, SchemaValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';

// Schemas come from MCP servers (untrusted), operators and workflow authors; the data checked against
// them from models and callers. A check runs on the event loop, so none may take more than linear time
// in the data: Ajv's defaults are replaced where they do not (`pattern` with a backtracking RegExp,
// `uniqueItems` comparing every pair of object items).

/** Why a pattern is refused, for the operator or the server's author to read. */
export class UnsupportedPatternError extends Error {
  constructor(pattern: string, reason: string) {
    super(
      `pattern ${JSON.stringify(pattern)} is not supported (${reason}): patterns are matched by RE2, ` +
        'in linear time, which has no backreferences and no lookahead or lookbehind',
    );
    this.name = 'UnsupportedPatternError';
  }
}

/**
 * Ajv's `code.regExp`: `pattern`, `patternProperties` and `propertyNames` patterns compiled by RE2JS
 * (a port of RE2: no backtracking, so `^(a+)+$` costs the same as `^a+$`). A pattern RE2 cannot compile
 * throws, so the schema fails to compile rather than being checked loosely.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    /* eslint-disable-next-line @typescript-eslint/no-require-imports */
    const { RE2JS } = require('re2js') as typeof import('re2js');
    let compiled: import('re2js').RE2JS;
    try {
      compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
    } catch (err) {
      throw new UnsupportedPatternError(pattern, (err as Error).message);
    }
    return {
      test: (text: string) => compiled.test(text),
      // Ajv keeps one compiled pattern per distinct `toString()`: it must differ per pattern.
      toString: () => `/${pattern}/${flags}`,
    };
  },
  { code: 'linearRegExp' },
);

/** `uniqueItems` in linear time: each item's canonical JSON (keys sorted) goes into a set once. */
const uniqueItems: SchemaValidateFunction = (unique: boolean, data: unknown[]): boolean => {
  if (!unique || data.length < 2) return true;
  /* eslint-disable-next-line @typescript-eslint/no-require-imports */
  const { stringify } = require('safe-stable-stringify') as typeof import('safe-stable-stringify');
  const seen = new Map<string | undefined, number>();
  for (let i = 0; i < data.length; i++) {
    const key = stringify(data[i]);
    const j = seen.get(key);
    if (j !== undefined) {
      uniqueItems.errors = [
        {
          keyword: 'uniqueItems',
          message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
          params: { i, j },
        },
      ];
      return false;
    }
    seen.set(key, i);
  }
  return true;
};

let ajv: Ajv | undefined;

/**
 * The one Ajv of the server, made at the first schema compiled (a config without tools never loads
 * it): every error listed, `format` checked (ajv-formats), patterns and `uniqueItems` in linear time.
 */
export function schemaCompiler(): Ajv {
  if (ajv) return ajv;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { default: AjvClass } = require('ajv') as typeof import('ajv');
  const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const made = new AjvClass({ allErrors: true, strict: false, code: { regExp: linearRegExp } });
  // Without it `format` is ignored, and a tool declared to take an email or a date would take anything.
  addFormats(made);
  made.removeKeyword('uniqueItems');
  made.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', validate: uniqueItems });
  ajv = made;
  return made;
}
