import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
  validateSync,
} from 'class-validator';
import { compiledCheck } from './compiled-check';
import { validatePlain } from './validation-issues';

class Message {
  @IsDefined() @IsString() @MaxLength(10) input_message!: string;
  @IsOptional() @IsInt() @Min(1) count?: number;
  @IsOptional() @IsBoolean() stream?: boolean;
  @ValidateIf((o: Message) => o.stream === true) @IsIn(['a', 'b']) mode?: string;
}

class Grouped {
  @IsString({ groups: ['x'] }) name!: string;
}

class Nested {
  @IsOptional() @ValidateNested() @Type(() => Message) inner?: Message;
  @IsDefined() @IsArray() @ValidateNested({ each: true }) @Type(() => Message) list!: Message[];
  @IsOptional() @IsArray() @IsObject({ each: true }) objects?: object[];
  @IsOptional() @ValidateNested() untyped?: object;
}

/** What the compiled rules leave to class-validator (a list in a list): they say false, never a wrong true. */
const deferred: unknown[] = [{ list: [[{ input_message: 'hi' }]] }];

const nestedInputs: unknown[] = [
  { list: [] },
  { list: [{ input_message: 'hi' }, { input_message: 'ho', count: 3 }] },
  { list: [{ input_message: 'hi' }, { input_message: 3 }] },
  { list: [{ input_message: 'hi' }, 'text'] },
  { list: [{ input_message: 'hi' }, null] },
  { list: {} },
  { list: 'text' },
  {},
  { list: [], inner: { input_message: 'hi' } },
  { list: [], inner: { input_message: 'far too long a message' } },
  { list: [], inner: null },
  { list: [], inner: 'text' },
  { list: [], inner: [{ input_message: 'hi' }] },
  { list: [], objects: [{}, { a: 1 }] },
  { list: [], objects: [{}, 'text'] },
  { list: [], objects: {} },
  { list: [], untyped: { anything: 1 } },
  { list: [], untyped: 3 },
];

const inputs: unknown[] = [
  { input_message: 'hi' },
  { input_message: 'hi', count: 2 },
  { input_message: 'hi', count: 0 },
  { input_message: 'hi', count: 1.5 },
  { input_message: 'hi', count: null },
  { input_message: 'far too long a message' },
  { input_message: 3 },
  {},
  { input_message: null },
  { input_message: 'hi', stream: true },
  { input_message: 'hi', stream: true, mode: 'a' },
  { input_message: 'hi', stream: 'yes' },
  { input_message: 'hi', extra: { anything: 1 } },
];

function instanceOf(input: object): Message {
  return Object.assign(new Message(), input);
}

describe('compiled validation rules', () => {
  it('pass exactly the bodies class-validator passes', () => {
    const check = compiledCheck(Message)!;
    for (const input of inputs) {
      const instance = instanceOf(input as object);
      const classValidator = validateSync(instance, { forbidUnknownValues: false }).length === 0;
      expect({ input, passes: check(instance as unknown as Record<string, unknown>) }).toEqual({
        input,
        passes: classValidator,
      });
    }
  });

  it('are not compiled for groups (class-validator decides those)', () => {
    expect(compiledCheck(Grouped)).toBeNull();
  });

  it('pass exactly the nested objects and lists class-validator passes, or defer to it', () => {
    const check = compiledCheck(Nested)!;
    for (const input of [...nestedInputs, ...deferred]) {
      const instance = plainToInstance(Nested, input);
      const classValidator = validateSync(instance, { forbidUnknownValues: false }).length === 0;
      expect({ input, passes: check(instance as unknown as Record<string, unknown>) }).toEqual({
        input,
        passes: deferred.includes(input) ? false : classValidator,
      });
    }
  });

  it('leave the 422 issues of a body that does not fit as class-validator describes them', () => {
    expect(validatePlain(Message, { input_message: 3, count: 0 }, ['body'])).toEqual({
      ok: false,
      issues: [
        expect.objectContaining({ loc: ['body', 'input_message'], type: 'string_type' }),
        expect.objectContaining({ loc: ['body', 'count'] }),
      ],
    });
    expect(validatePlain(Message, { input_message: 'ok' }, ['body'])).toMatchObject({ ok: true });
  });
});
