import { IsArray, IsBoolean, IsIn, IsNumber, IsString, Matches, Min } from 'class-validator';
import { IfPresent } from '../../../core/validation/if-present.decorator';
import { GROUP_SEPARATOR, type BuiltFunction, type FunctionGroupType } from '../../function-type';
import { FUNCTION_BASE_FIELDS } from '../../nat-fields';
import { defineTool, ToolConfig } from '../define-tool';
import type { JsonSchema } from '../json-schema';
import { webJson } from './web-json';

const strings = { type: 'array', items: { type: 'string' } };
/** Tavily's plugin takes a list the model wrote as JSON text too (`'["https://a"]'`). */
const urlList = { anyOf: [strings, { type: 'string' }] };

/** The Tavily API's endpoints offered as tools, with their parameters and the plugin's descriptions. */
const TOOLS: Record<string, { description: string; parameters: JsonSchema }> = {
  search: {
    description:
      'Search the web with Tavily for up-to-date information. Returns ranked source documents ' +
      '(URL, title, content snippet, score) and optionally a synthesized answer.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        search_depth: { enum: ['basic', 'advanced', 'fast', 'ultra-fast'] },
        topic: { enum: ['general', 'news', 'finance'] },
        time_range: { enum: ['day', 'week', 'month', 'year'] },
        days: { type: 'integer', minimum: 1 },
        max_results: { type: 'integer', minimum: 0, maximum: 20 },
        include_domains: strings,
        exclude_domains: strings,
        include_answer: { anyOf: [{ type: 'boolean' }, { enum: ['basic', 'advanced'] }] },
        include_raw_content: { anyOf: [{ type: 'boolean' }, { enum: ['markdown', 'text'] }] },
        include_images: { type: 'boolean' },
        country: { type: 'string' },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  extract: {
    description:
      'Extract clean text or markdown content from one or more URLs. Use this when you already ' +
      'have URLs (e.g. from a prior search) and need their full contents.',
    parameters: {
      type: 'object',
      properties: {
        urls: urlList,
        extract_depth: { enum: ['basic', 'advanced'] },
        include_images: { type: 'boolean' },
        format: { enum: ['markdown', 'text'] },
      },
      required: ['urls'],
      additionalProperties: false,
    },
  },
  crawl: {
    description:
      'Crawl a website starting from a URL, following links to a configurable depth and breadth. ' +
      'Returns extracted content from each visited page. Use for bulk content retrieval from a single domain.',
    parameters: {
      type: 'object',
      properties: {
        url: { type: 'string' },
        max_depth: { type: 'integer', minimum: 1 },
        max_breadth: { type: 'integer', minimum: 1 },
        limit: { type: 'integer', minimum: 1 },
        instructions: { type: 'string' },
        select_paths: strings,
        exclude_paths: strings,
        allow_external: { type: 'boolean' },
        extract_depth: { enum: ['basic', 'advanced'] },
        format: { enum: ['markdown', 'text'] },
      },
      required: ['url'],
      additionalProperties: false,
    },
  },
  map: {
    description:
      'Discover and list URLs reachable from a starting URL on a domain, without extracting page ' +
      'content. Faster than crawl. Use to find specific pages on a known site.',
    parameters: {
      type: 'object',
      properties: {
        url: { type: 'string' },
        max_depth: { type: 'integer', minimum: 1 },
        max_breadth: { type: 'integer', minimum: 1 },
        limit: { type: 'integer', minimum: 1 },
        instructions: { type: 'string' },
        select_paths: strings,
        allow_external: { type: 'boolean' },
      },
      required: ['url'],
      additionalProperties: false,
    },
  },
};
const NAMES = Object.keys(TOOLS);
/** The plugin's fifth tool: its long-running streamed research task is not offered here. */
const NOT_OFFERED = ['research'];

export class TavilyGroupConfig {
  @IsString() _type!: string;
  /** Falls back to the TAVILY_API_KEY environment variable. */
  @IfPresent() @IsString() api_key = '';
  @IfPresent() @IsArray() @IsIn([...NAMES, ...NOT_OFFERED], { each: true }) include: string[] = [];
  @IfPresent() @IsArray() @IsIn([...NAMES, ...NOT_OFFERED], { each: true }) exclude: string[] = [];
  @IfPresent() @IsNumber() @Min(0) research_timeout_seconds = 900;
  @IfPresent() @IsBoolean() research_include_trace = false;
  /** The Tavily API (Interlude's field): a proxy or a stand-in in tests. */
  @IfPresent()
  @Matches(/^https?:\/\/\S+$/, { message: 'base_url must be an http(s) URL' })
  base_url = 'https://api.tavily.com';
}

/** A list the model sent as JSON text becomes the list (as Tavily's plugin reads it). */
function listFromText(value: unknown): unknown {
  if (typeof value !== 'string' || !value.trim().startsWith('[')) return value;
  try {
    const parsed = JSON.parse(value) as unknown;
    return Array.isArray(parsed) ? parsed : value;
  } catch {
    return value;
  }
}

/**
 * `function_groups.<g>: {_type: tavily}` (Tavily's NAT plugin, nemo-agent-toolkit-tavily): the Tavily
 * API's search, extract, crawl and map endpoints as `<g>__search` …; the model's arguments are posted
 * as they are, and Tavily's JSON answer is the tool's.
 */
export const tavilyGroupType: FunctionGroupType<TavilyGroupConfig> = {
  type: 'tavily',
  description: 'Web search, extraction, crawling and site maps through the Tavily API',
  config: TavilyGroupConfig,
  natFields: { ignored: { middleware: FUNCTION_BASE_FIELDS.middleware } },
  check: (config) =>
    config.include.includes('research')
      ? [
          {
            loc: ['include'],
            message: "Tavily's research tool is not offered here (search, extract, crawl and map are)",
          },
        ]
      : [],
  build(config, context) {
    const key = config.api_key.trim() || context.env.TAVILY_API_KEY?.trim() || '';
    const offered = (config.include.length ? config.include : NAMES).filter(
      (n) => NAMES.includes(n) && !config.exclude.includes(n),
    );
    const tools = new Map<string, BuiltFunction>();
    for (const name of offered) {
      const full = `${context.name}${GROUP_SEPARATOR}${name}`;
      const tool = defineTool<ToolConfig, Record<string, unknown>>({
        type: full,
        description: TOOLS[name].description,
        parameters: TOOLS[name].parameters,
        run: (args, ctx) => {
          const body = 'urls' in args ? { ...args, urls: listFromText(args.urls) } : args;
          return webJson(
            'Tavily',
            context.outbound,
            new URL(`${config.base_url.replace(/\/+$/, '')}/${name}`),
            ctx.signal,
            {
              method: 'POST',
              headers: { Authorization: `Bearer ${key}` },
              body,
            },
          );
        },
      });
      tools.set(full, tool.build({ _type: full }, context));
    }
    return {
      type: 'tavily',
      // As NAT's plugin does when it is built: a missing key stops start-up, naming the group.
      connect: () =>
        key
          ? Promise.resolve()
          : Promise.reject(
              new Error(
                `function_groups.${context.name}: Tavily API key not provided. Set the \`api_key\` config field or the TAVILY_API_KEY env var.`,
              ),
            ),
      functions: () => tools,
      close: () => Promise.resolve(),
    };
  },
};
