/**
 * Picks a port's adapter by the driver validated config names. Config validation already refuses
 * unknown drivers; this guards a port whose adapter for a known driver is missing.
 */
export function pickAdapter<T>(configPath: string, driver: string, adapters: Record<string, () => T>): T {
  const make = Object.hasOwn(adapters, driver) ? adapters[driver] : undefined;
  if (!make) {
    throw new Error(`${configPath}: no adapter for "${driver}" (known: ${Object.keys(adapters).join(', ')})`);
  }
  return make();
}
