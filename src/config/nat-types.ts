import NAT_TYPES from './nat-types.json';

/**
 * What an unknown `_type` is, from NeMo Agent Toolkit's own registrations (`nat-types.json`: kind,
 * Python package, and whether it ships only with one of NAT's examples; regenerate it with
 * `node scripts/nat-coverage.js <nat-checkout> --types`).
 */
const TYPES = NAT_TYPES as unknown as Record<string, [kind: string, pkg: string, example?: string][]>;

export const MIGRATION_GUIDE = 'docs/from-nemo-agent-toolkit.md';

/** The sections a config names components in, and what each holds (NAT's words). */
export type ComponentSection = 'functions' | 'function_groups' | 'workflow' | 'llms' | 'authentication';

const SECTION_OF_KIND: Record<string, string> = {
  function: 'functions',
  'function group': 'function_groups',
  LLM: 'llms',
  'authentication provider': 'authentication',
  embedder: 'embedders',
  retriever: 'retrievers',
  'memory backend': 'memory',
  'object store': 'object_stores',
  evaluator: 'eval.evaluators',
  'telemetry exporter': 'general.telemetry.tracing',
  'logging exporter': 'general.telemetry.logging',
  'front end': 'general.front_end',
  middleware: 'middleware',
  'test-time compute strategy': 'ttc_strategies',
  'eval dataset': 'eval.general.dataset',
};

/**
 * The NAT component a type names, if NAT has one, preferring the kind `section` holds (`nim` is an LLM
 * and an embedder); `pkg/name` types (NAT's full names) are looked up by name.
 */
export function natType(
  type: string,
  section?: ComponentSection,
): { kind: string; pkg: string; example: boolean } | undefined {
  const entries = Object.hasOwn(TYPES, type) ? TYPES[type] : TYPES[type.slice(type.lastIndexOf('/') + 1)];
  if (!entries?.length) return undefined;
  const wanted = section === 'workflow' ? 'functions' : section;
  const entry = entries.find(([kind]) => SECTION_OF_KIND[kind] === wanted) ?? entries[0];
  return { kind: entry[0], pkg: entry[1], example: entry[2] === 'example' };
}

/**
 * The problem to report for a `_type` Interlude does not build in `section`: a type of another section
 * says where it belongs; a NAT component says which, from which package, that Interlude lacks it and
 * the way across; anything else reads as a typo, with the types that section has.
 */
export function unknownTypeMessage(
  section: ComponentSection,
  type: string,
  known: string[],
  /** The section that does have it, when another section does (functions ↔ function_groups). */
  elsewhere?: ComponentSection,
): string {
  if (elsewhere)
    return `"${type}" is a ${elsewhere === 'function_groups' ? 'function group' : 'function'} type: declare it under ${elsewhere}: (it is under ${section}:)`;
  const nat = natType(type, section);
  if (!nat) {
    const what = section === 'function_groups' ? 'function group _type' : '_type';
    return `unknown ${what} "${type}"; known types: ${known.join(', ')}`;
  }
  const expected = section === 'workflow' ? 'functions' : section;
  const belongs = SECTION_OF_KIND[nat.kind];
  if (belongs && belongs !== expected) {
    return `"${type}" is a NeMo Agent Toolkit ${nat.kind}: it belongs under ${belongs}: (it is under ${section}:)`;
  }
  const from = nat.example ? `package ${nat.pkg}, one of NAT's examples` : `package ${nat.pkg}`;
  const what = `"${type}" is a NeMo Agent Toolkit Python ${nat.kind} (${from}); Interlude runs TypeScript components and does not have it.`;
  switch (section) {
    case 'llms':
      return `${what} An OpenAI-compatible endpoint runs as _type: openai with its base_url (known types: ${known.join(', ')}); see ${MIGRATION_GUIDE}`;
    case 'authentication':
      return `${what} Known types: ${known.join(', ')}; see ${MIGRATION_GUIDE}`;
    case 'workflow':
      return `${what} Serve it with \`nat mcp serve\`; here an agent (react_agent, tool_calling_agent) calls it through an mcp_client group: see ${MIGRATION_GUIDE}`;
    default:
      return `${what} Serve it with \`nat mcp serve\` and list it as an mcp_client group: see ${MIGRATION_GUIDE}`;
  }
}
