import { registerDecorator, type ValidationArguments } from 'class-validator';

const UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

/**
 * Seconds from a duration as NeMo Agent Toolkit's pydantic `timedelta` fields accept them: a number
 * of seconds, `HH:MM:SS`, ISO 8601 (`PT30M`), or a short form such as `30m`, `90s`, `1h`.
 * Returns undefined when the value is not a duration.
 */
export function durationSeconds(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  let m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/i.exec(text);
  if (m) return Number(m[1]) * UNITS[m[2].toLowerCase()];
  m = /^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/.exec(text);
  if (m) return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]);
  m = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(
    text,
  );
  if (m && text.length > 1 && !/T$/i.test(text)) {
    return Number(m[1] ?? 0) * 86400 + Number(m[2] ?? 0) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
  }
  if (/^\d+(?:\.\d+)?$/.test(text)) return Number(text);
  return undefined;
}

/** A config field holding a duration (see durationSeconds). */
export function IsDuration(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isDuration',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => (durationSeconds(value) ?? 0) > 0,
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'value'} must be a positive duration: seconds, "30m", "HH:MM:SS" or "PT30M"`,
      },
    });
}
