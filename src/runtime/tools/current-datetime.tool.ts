import { IsString } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import { defineTool, ToolConfig } from './define-tool';

export class CurrentDatetimeConfig extends ToolConfig {
  /** An IANA time zone (`Europe/Paris`); UTC by default. */
  @IfPresent() @IsString() timezone?: string;
}

export function timeZoneProblem(zone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return undefined;
  } catch {
    return `unknown time zone "${zone}" (use an IANA name such as Europe/Paris)`;
  }
}

/** `2026-03-11 16:05:11` in the given zone. */
export function formatDateTime(date: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')}`;
}

/** `current_datetime`: the date and time now (NAT's tool of that name). */
export const currentDatetimeTool = defineTool<CurrentDatetimeConfig>({
  type: 'current_datetime',
  description: 'Returns the current date and time in human readable format.',
  parameters: { type: 'object', properties: {} },
  config: CurrentDatetimeConfig,
  check: (config) => {
    const problem = config.timezone === undefined ? undefined : timeZoneProblem(config.timezone);
    return problem ? [{ loc: ['timezone'], message: problem }] : [];
  },
  run: async (_args, ctx, config) => {
    const zone = config.timezone ?? 'UTC';
    return `The current date and time is ${formatDateTime(new Date(await ctx.now()), zone)} (${zone}).`;
  },
});

/**
 * `current_timezone` (NAT's tool): the caller's IANA time zone from the `X-Timezone` request header
 * when it names one, else NAT's default, Etc/UTC.
 */
export const currentTimezoneTool = defineTool({
  type: 'current_timezone',
  description:
    "Returns the user's/system timezone in IANA zone name format (e.g. America/Los_Angeles). " +
    'REQUIRED: Call this tool first whenever you need the current time or timezone. ' +
    'Do not assume or guess the timezone.',
  parameters: { type: 'object', properties: {} },
  run: (_args, ctx) => {
    const header = ctx.request.headers['x-timezone'];
    const zone = typeof header === 'string' && !timeZoneProblem(header) ? header : 'Etc/UTC';
    return `The time zone is ${zone}`;
  },
});
