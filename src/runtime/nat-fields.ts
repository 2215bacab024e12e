/**
 * NeMo Agent Toolkit fields of a component that Interlude's own config class does not name: each is
 * either read under Interlude's name for it (NAT's aliases and synonyms) or accepted and reported once
 * at start-up as ignored, with why. A name NAT does not have either stays an error (a typo).
 */
export interface NatFields {
  /** NAT field → Interlude field it sets, when the config does not set that one itself. */
  renamed?: Record<string, string>;
  /** NAT field → a boolean that, when false, sets Interlude fields (NAT's on/off switches). */
  switches?: Record<string, { whenFalse: Record<string, unknown> }>;
  /** NAT field → why it configures nothing here. */
  ignored?: Record<string, string>;
}

/** A NAT field accepted and ignored: where (relative to the component) and why. */
export interface NatFieldNote {
  loc: string[];
  message: string;
}

export const OPTIMIZER_FIELDS: Record<string, string> = {
  optimizable_params: "NAT's optimizer (`nat optimize`) does not run here",
  search_space: "NAT's optimizer (`nat optimize`) does not run here",
};

/** What every NAT function accepts (FunctionBaseConfig). */
export const FUNCTION_BASE_FIELDS: Record<string, string> = {
  name: 'steps and traces are named by the config key',
  middleware: "NAT's function middleware does not run here; the function runs without it",
};

/** What every NAT agent accepts beyond its own fields (AgentBaseConfig). */
export const AGENT_FIELDS: NatFields = {
  ignored: {
    ...FUNCTION_BASE_FIELDS,
    ...OPTIMIZER_FIELDS,
    workflow_alias: 'the workflow is served under its routes; an alias renames nothing here',
    log_response_max_chars: 'agent steps are reported as intermediate steps, not logged',
    max_history: 'the whole conversation of the request is sent to the model',
    recursion_limit: 'the loop is bounded by max_iterations (max_tool_calls)',
  },
};

/**
 * Moves a component's NAT-only fields out of `entry`: renamed ones under Interlude's names (the
 * Interlude name wins when both are set), ignored ones into notes. What is left is validated as usual.
 */
export function takeNatFields(
  entry: Record<string, unknown>,
  ...tables: (NatFields | undefined)[]
): { settings: Record<string, unknown>; notes: NatFieldNote[] } {
  const settings = { ...entry };
  const notes: NatFieldNote[] = [];
  for (const table of tables) {
    for (const [nat, ours] of Object.entries(table?.renamed ?? {})) {
      if (!Object.hasOwn(settings, nat)) continue;
      if (!Object.hasOwn(settings, ours)) settings[ours] = settings[nat];
      delete settings[nat];
    }
    for (const [nat, { whenFalse }] of Object.entries(table?.switches ?? {})) {
      if (!Object.hasOwn(settings, nat)) continue;
      if (settings[nat] === false) {
        Object.assign(settings, whenFalse);
      }
      delete settings[nat];
    }
    for (const [nat, why] of Object.entries(table?.ignored ?? {})) {
      if (!Object.hasOwn(settings, nat)) continue;
      notes.push({ loc: [nat], message: why });
      delete settings[nat];
    }
  }
  return { settings, notes };
}

/**
 * The same for fields nested in a section (`general.output.job_management`): `paths` maps a dotted
 * path to why it is ignored. Returns a copy without them.
 */
export function takeNatPaths(
  section: unknown,
  paths: Record<string, string>,
): { settings: unknown; notes: NatFieldNote[] } {
  if (section === null || typeof section !== 'object' || Array.isArray(section)) {
    return { settings: section, notes: [] };
  }
  const settings = structuredClone(section) as Record<string, unknown>;
  const notes: NatFieldNote[] = [];
  for (const [path, why] of Object.entries(paths)) {
    const parts = path.split('.');
    let node: unknown = settings;
    for (const part of parts.slice(0, -1)) node = (node as Record<string, unknown> | null)?.[part];
    const last = parts[parts.length - 1];
    if (node !== null && typeof node === 'object' && Object.hasOwn(node, last)) {
      delete (node as Record<string, unknown>)[last];
      notes.push({ loc: parts, message: why });
    }
  }
  return { settings, notes };
}
