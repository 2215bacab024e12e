import { parse as parseYamlScalar, type Document } from 'yaml';

/** `--override KEY VALUE` (as `nat serve` takes it): a dotted path (list items by index) and a YAML scalar. */
export type ConfigOverride = [path: string, value: string];

/** Sets each override in the parsed file, before interpolation and validation see it. */
export function applyOverrides(doc: Document, overrides: ConfigOverride[]): void {
  for (const [path, value] of overrides) {
    const keys = path.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k));
    doc.setIn(keys, doc.createNode(parseYamlScalar(value)));
  }
}
