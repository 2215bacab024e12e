import { IsString } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import { defineTool, ToolConfig } from './define-tool';

export class CurrentDatetimeConfig extends ToolConfig {
  /** An IANA time zone (`Europe/Paris`); UTC by default. */
  @IfPresent() @IsString() timezone?: string;
}

function timeZoneProblem(zone: string): string | undefined {
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
