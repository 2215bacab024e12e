import { IsInt, Matches, Max, Min } from 'class-validator';
import { IfPresent } from '../../../core/validation/if-present.decorator';
import { defineTool, ToolConfig } from '../define-tool';
import { webJson } from './web-json';

/** LangChain's WikipediaLoader keeps the first 4,000 characters of each page (NAT's tool uses its default). */
const PAGE_CHARS = 4000;

export class WikiSearchConfig extends ToolConfig {
  /** Pages read per question (NAT's default: 2). */
  @IfPresent() @IsInt() @Min(1) @Max(20) max_results = 2;
  /** The MediaWiki Action API (Interlude's field): another language's Wikipedia, or a wiki of your own. */
  @IfPresent()
  @Matches(/^https?:\/\/\S+$/, { message: 'base_url must be an http(s) URL' })
  base_url = 'https://en.wikipedia.org/w/api.php';
}

interface SearchAnswer {
  query?: { search?: { title?: unknown }[] };
}
interface PageAnswer {
  query?: { pages?: { title?: string; extract?: string; fullurl?: string; missing?: boolean }[] };
}

function apiUrl(base: string, params: Record<string, string>): URL {
  const url = new URL(base);
  for (const [k, v] of Object.entries({ action: 'query', format: 'json', formatversion: '2', ...params }))
    url.searchParams.set(k, v);
  return url;
}

/**
 * `wiki_search` (NAT's tool, package nvidia-nat-langchain): the question searched on Wikipedia, the first
 * `max_results` pages read as plain text, each as NAT's `<Document source=… page=…/>` block, joined by
 * `---` lines. Talks to the MediaWiki Action API at `base_url`.
 */
export const wikiSearchTool = defineTool<WikiSearchConfig, { question: string }>({
  type: 'wiki_search',
  description:
    'This tool retrieves relevant contexts from wikipedia search for the given question.\n\n' +
    'Args:\n    question (str): The question to be answered.',
  parameters: {
    type: 'object',
    properties: { question: { type: 'string', description: 'The question to be answered.' } },
    required: ['question'],
  },
  config: WikiSearchConfig,
  run: async ({ question }, ctx, config, built) => {
    const call = (params: Record<string, string>) =>
      webJson('Wikipedia', built.outbound, apiUrl(config.base_url, params), ctx.signal);
    // The `wikipedia` library NAT's loader uses cuts the query at 300 characters.
    const found = (await call({
      list: 'search',
      srsearch: question.slice(0, 300),
      srlimit: String(config.max_results),
      srprop: '',
    })) as SearchAnswer;
    const titles = (found.query?.search ?? [])
      .map((hit) => hit.title)
      .filter((t): t is string => typeof t === 'string')
      .slice(0, config.max_results);
    const pages = await Promise.all(
      titles.map(async (title) => {
        const answer = (await call({
          prop: 'extracts|info',
          explaintext: '1',
          inprop: 'url',
          redirects: '1',
          titles: title,
        })) as PageAnswer;
        const page = answer.query?.pages?.[0];
        return page && !page.missing && typeof page.extract === 'string' ? page : undefined;
      }),
    );
    return pages
      .filter((p) => p !== undefined)
      .map(
        (p) =>
          `<Document source="${p.fullurl ?? ''}" page=""/>\n${p.extract!.slice(0, PAGE_CHARS)}\n</Document>`,
      )
      .join('\n\n---\n\n');
  },
});
