import {
  getMetadataStorage,
  ValidationTypes,
  type MetadataStorage,
  type ValidationArguments,
} from 'class-validator';

type Ctor<T> = new () => T;
type Check = (instance: Record<string, unknown>) => boolean;
/** One rule on one property, as class-validator's public metadata API returns it. */
type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

/**
 * A class's rules as one function that says whether an instance passes, built once per class from
 * class-validator's public metadata (`getMetadataStorage()`) and its constraint instances (so it
 * decides exactly as class-validator does), without the error objects class-validator builds for every
 * property on every call, nor its look-up of the class's rules among every class's on every call.
 * Nested objects (`@ValidateNested` with `@Type`) are checked by their own class's function. Only for
 * what it can decide synchronously: classes with groups, `always`, promise or async rules get null and
 * are always validated by class-validator. The function says false whenever it is not sure (a Set, an
 * array in an array), and a failing instance is validated again by class-validator, which then
 * describes the problems as before.
 */
export function compiledCheck(cls: Ctor<object>): Check | null {
  let check = compiled.get(cls);
  if (check === undefined) {
    check = compile(cls);
    compiled.set(cls, check);
  }
  return check;
}

const compiled = new WeakMap<Ctor<object>, Check | null>();

interface PropertyRules {
  name: string;
  conditions: ((object: object, value: unknown) => boolean)[];
  rules: ValidationMetadata[];
  /** `@ValidateNested`: the value (or each item of it) is an object that passes its own class's rules. */
  nested: boolean;
}

type Constraint = { validate(value: unknown, args: ValidationArguments): unknown };

/** A rule's constraint on a value; with `each`, on every item of an array. */
function passes(constraint: Constraint, each: boolean, value: unknown, args: ValidationArguments): boolean {
  if (each && Array.isArray(value)) return value.every((item) => constraint.validate(item, args) === true);
  if (each && (value instanceof Set || value instanceof Map)) return false;
  return constraint.validate(value, args) === true;
}

/** An object that passes its own class's compiled rules (what class-validator's nested validation runs). */
function passesOwnRules(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const ctor = (value as { constructor?: unknown }).constructor;
  if (typeof ctor !== 'function') return false;
  return compiledCheck(ctor as Ctor<object>)?.(value as Record<string, unknown>) === true;
}

function nestedPasses(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(passesOwnRules);
  if (value instanceof Set || value instanceof Map) return false;
  return passesOwnRules(value);
}

function compile(cls: Ctor<object>): Check | null {
  const storage = getMetadataStorage();
  const all = storage.getTargetValidationMetadatas(cls, '', false, false, undefined);
  const byName = new Map<string, PropertyRules>();
  for (const m of all) {
    if ((m.groups && m.groups.length > 0) || m.always) return null;
    let property = byName.get(m.propertyName);
    if (!property) {
      property = { name: m.propertyName, conditions: [], rules: [], nested: false };
      byName.set(m.propertyName, property);
    }
    if (m.type === ValidationTypes.NESTED_VALIDATION) {
      property.nested = true;
    } else if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      if (m.each) return null;
      property.conditions.push(m.constraints[0] as (object: object, value: unknown) => boolean);
    } else if (m.type === ValidationTypes.CUSTOM_VALIDATION || m.type === ValidationTypes.IS_DEFINED) {
      const constraints = storage.getTargetValidatorConstraints(m.constraintCls);
      if (constraints.length === 0 || constraints.some((c) => c.async)) return null;
      property.rules.push(m);
    } else {
      return null;
    }
  }
  // Each rule's constraint instances, looked up once: they are all registered by the time a class is used.
  const properties = [...byName.values()].map(({ rules, ...property }) => ({
    ...property,
    rules: rules.map((rule) => ({
      rule,
      each: rule.each === true,
      constraints: storage
        .getTargetValidatorConstraints(rule.constraintCls)
        .map((c) => c.instance as Constraint),
    })),
  }));
  const targetName = cls.name;
  return (instance) => {
    for (const { name, conditions, rules, nested } of properties) {
      const value = instance[name];
      if (conditions.length > 0 && !conditions.every((condition) => condition(instance, value))) continue;
      for (const { rule, each, constraints } of rules) {
        if (rule.validateIf && !rule.validateIf(instance, value)) continue;
        const args: ValidationArguments = {
          targetName,
          property: name,
          object: instance,
          value,
          constraints: rule.constraints,
        };
        for (const constraint of constraints) if (!passes(constraint, each, value, args)) return false;
      }
      if (nested && value !== undefined && !nestedPasses(value)) return false;
    }
    return true;
  };
}
