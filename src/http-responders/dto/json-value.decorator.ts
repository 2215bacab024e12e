import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';

/**
 * A property that holds any JSON value: a string, a number, a boolean, null, an object or a list (a
 * workflow's output, the offending input of a 422, an evaluation item). Reflected, `unknown` would be
 * documented `type: object`, and a generated client would refuse `"value": "Plan for …"`.
 * nestjs/swagger drops the reflected type only beside a declared combinator, so this declares the
 * one-branch union `anyOf: [{}]`, which every value fits (generators read it as their any type).
 */
export const ApiJsonValueProperty = (options: ApiPropertyOptions = {}): PropertyDecorator =>
  ApiProperty({ ...options, anyOf: [{}] } as ApiPropertyOptions);

export const ApiJsonValuePropertyOptional = (options: ApiPropertyOptions = {}): PropertyDecorator =>
  ApiJsonValueProperty({ ...options, required: false } as ApiPropertyOptions);
