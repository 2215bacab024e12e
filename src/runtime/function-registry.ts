import type { FunctionType } from './function-type';

/** The `_type`s a config may name, built-ins first; later issues register LLM agents and tools here. */
export class FunctionRegistry {
  private readonly types = new Map<string, FunctionType>();

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
}
