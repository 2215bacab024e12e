import type { User } from '@a2a-js/sdk/server';
import type { Identity } from '../core/identity/identity';
import type { ObservabilityTrace } from '../core/tracing/observability-trace';
import type { RequestMetadata } from '../runtime/workflow-context';

/**
 * Who calls, as the SDK hands it to the request handler (`ServerCallContext.user`): the identity the
 * server resolved for the request, and the request as a workflow may see it.
 */
export class A2aCaller implements User {
  constructor(
    readonly identity: Identity,
    readonly request: RequestMetadata,
    readonly trace: ObservabilityTrace,
  ) {}

  get isAuthenticated(): boolean {
    return this.identity.userId !== null;
  }

  get userName(): string {
    return this.identity.userId ?? 'anonymous';
  }
}
