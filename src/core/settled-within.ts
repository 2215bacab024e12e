/**
 * What `promise` resolves to, or `otherwise` once `ms` have passed without it: for a wait that may go
 * on without an answer. The timer is cleared either way; a late answer is dropped.
 */
export function settledWithin<T>(promise: Promise<T>, ms: number, otherwise: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(resolve, ms, otherwise)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
