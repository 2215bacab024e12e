import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { validatePlain } from './validation-issues';

class Maker {
  @IsDefined() @IsString() name!: string;
}

/** A nested class (built by class-transformer) beside a free-form object (copied by it). */
class Order {
  @IsDefined() @ValidateNested() @Type(() => Maker) maker!: Maker;
  @IsOptional() @IsObject() details?: Record<string, unknown>;
}

/** No nested class: validated on a shallow copy. */
class Flat {
  @IsDefined() @IsString() name!: string;
}

describe('validatePlain: a "constructor" key is data', () => {
  it('in a free-form object, at any depth, the input fits and is left as sent', () => {
    const input = JSON.parse(
      '{"maker": {"name": "m"}, "details": {"constructor": "ACME", "parts": [{"constructor": {"prototype": {"polluted": true}}}]}}',
    ) as Record<string, unknown>;
    const sent = structuredClone(input);
    const checked = validatePlain(Order, input, ['body']);
    expect(checked.ok).toBe(true);
    expect(input).toEqual(sent);
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('beside the fields of a nested or flat class, their rules still apply', () => {
    const nested = validatePlain(Order, { maker: { name: 1, constructor: 1 } }, ['body']);
    expect(nested).toMatchObject({ ok: false, issues: [{ loc: ['body', 'maker', 'name'] }] });
    const flat = validatePlain(Flat, { name: 1, constructor: { name: 'x' } }, ['body']);
    expect(flat).toMatchObject({ ok: false, issues: [{ loc: ['body', 'name'] }] });
  });

  it('under a "__proto__" key, which stays a key', () => {
    const input = JSON.parse(
      '{"maker": {"name": "m"}, "details": {"__proto__": {"constructor": 1, "x": 2}}}',
    ) as Record<string, unknown>;
    expect(validatePlain(Order, input, ['body']).ok).toBe(true);
    expect(Object.keys(input.details as object)).toEqual(['__proto__']);
    expect((Object.prototype as Record<string, unknown>).x).toBeUndefined();
  });
});
