import type { FunctionGroupType, FunctionType } from './function-type';

/** The `_type`s a config may name, built-ins first; later issues register LLM agents and tools here. */
export class FunctionRegistry {
  private readonly types = new Map<string, FunctionType>();
  private readonly groupTypes = new Map<string, FunctionGroupType>();

  register<C extends object>(type: FunctionType<C>): this {
    for (const name of [type.type, ...(type.aliases ?? [])]) {
      if (this.types.has(name)) throw new Error(`Function type "${name}" is registered twice`);
      this.types.set(name, type as unknown as FunctionType);
    }
    return this;
  }

  get(name: string): FunctionType | undefined {
    return this.types.get(name);
  }

  known(): string[] {
    return [...this.types.keys()].sort();
  }

  /** A `_type` of `function_groups:`. */
  registerGroup<C extends object>(type: FunctionGroupType<C>): this {
    if (this.groupTypes.has(type.type))
      throw new Error(`Function group type "${type.type}" is registered twice`);
    this.groupTypes.set(type.type, type as unknown as FunctionGroupType);
    return this;
  }

  getGroup(name: string): FunctionGroupType | undefined {
    return this.groupTypes.get(name);
  }

  knownGroups(): string[] {
    return [...this.groupTypes.keys()].sort();
  }
}
