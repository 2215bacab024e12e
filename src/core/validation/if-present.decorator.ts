import { ValidateIf } from 'class-validator';

/**
 * Like IsOptional, but only an absent key is skipped: a YAML `key:` with no value (null) is reported
 * instead of silently replacing the default.
 */
export const IfPresent = (): PropertyDecorator =>
  ValidateIf((_o: object, value: unknown) => value !== undefined);
