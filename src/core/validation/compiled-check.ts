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
 * class-validator's own metadata and constraint instances (so it decides exactly as class-validator
 * does), without the error objects class-validator builds for every property on every call. Only for
 * what it can decide synchronously: classes with groups, `each`, nested, promise or async rules get
 * null and are always validated by class-validator. A failing instance is validated again by
 * class-validator, which then describes the problems as before.
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
}

function compile(cls: Ctor<object>): Check | null {
  const storage = getMetadataStorage();
  const all = storage.getTargetValidationMetadatas(cls, '', false, false, undefined);
  const byName = new Map<string, PropertyRules>();
  for (const m of all) {
    if ((m.groups && m.groups.length > 0) || m.each || m.always) return null;
    let property = byName.get(m.propertyName);
    if (!property)
      byName.set(m.propertyName, (property = { name: m.propertyName, conditions: [], rules: [] }));
    if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      property.conditions.push(m.constraints[0] as (object: object, value: unknown) => boolean);
    } else if (m.type === ValidationTypes.CUSTOM_VALIDATION || m.type === ValidationTypes.IS_DEFINED) {
      const constraints = storage.getTargetValidatorConstraints(m.constraintCls);
      if (constraints.length === 0 || constraints.some((c) => c.async)) return null;
      property.rules.push(m);
    } else {
      return null;
    }
  }
  const properties = [...byName.values()];
  const targetName = cls.name;
  return (instance) => {
    for (const { name, conditions, rules } of properties) {
      const value = instance[name];
      if (!conditions.every((condition) => condition(instance, value))) continue;
      for (const rule of rules) {
        if (rule.validateIf && !rule.validateIf(instance, value)) continue;
        const args: ValidationArguments = {
          targetName,
          property: name,
          object: instance,
          value,
          constraints: rule.constraints,
        };
        for (const constraint of storage.getTargetValidatorConstraints(rule.constraintCls)) {
          if (constraint.instance.validate(value, args) !== true) return false;
        }
      }
    }
    return true;
  };
}
