import { registerDecorator, type ValidationArguments } from 'class-validator';

/** A field that takes one string or a list of them, as corporate configs write either (`audience: my-api`). */
export function IsStringOrList(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isStringOrList',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string')),
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'value'} must be a string or a list of strings`,
      },
    });
}
