import type { EventEmitter2 } from '@nestjs/event-emitter';
import {
  ExecutionPaused,
  ExecutionResumed,
  ExecutionStarted,
  ExecutionTakenOver,
  type PersonWait,
} from '../../core/events/execution-events';
import type { Identity } from '../../core/identity/identity';
import type { InteractionWait } from '../../interactions/interaction-record';
import type { OAuthFlowWait } from '../../oauth/oauth-wait';
import type { TransitionOutcome } from '../model/execution-state';

/** Announces an execution this process starts (core/events). */
export function announceStarted(
  bus: EventEmitter2,
  record: { id: string; traceId: string },
  workflow: string,
  identity: Identity,
): void {
  bus.emit(ExecutionStarted.event, new ExecutionStarted(record.id, record.traceId, workflow, identity));
}

/** Announces a run this process takes over, before it runs again here. */
export function announceTakenOver(bus: EventEmitter2, executionId: string): void {
  bus.emit(ExecutionTakenOver.event, new ExecutionTakenOver(executionId));
}

/** Announces that a person's answer closed a prompt (recorded by `ExecutionService.respond`). */
export function announceAnswered(bus: EventEmitter2, executionId: string, interactionId: string): void {
  bus.emit(ExecutionResumed.event, new ExecutionResumed(executionId, { kind: 'interaction', interactionId }));
}

type RecordWait = (id: string, wait: InteractionWait | OAuthFlowWait) => Promise<TransitionOutcome>;

/**
 * The engine's writer of waits (`record`), announcing each wait it records: paused when a prompt opens
 * or an authorization is awaited, resumed when it closes. Announced once the record holds it, and not
 * for an execution already ended here (its prompts and flows are closed as it is cancelled).
 */
export function announcingWaits(
  record: RecordWait,
  entries: { get(id: string): { ended: boolean } | undefined },
  bus: EventEmitter2,
): RecordWait {
  return async (id, wait) => {
    const outcome = await record(id, wait);
    if (outcome === 'applied' && entries.get(id)?.ended !== true) announceWait(bus, id, wait);
    return outcome;
  };
}

function announceWait(bus: EventEmitter2, id: string, wait: InteractionWait | OAuthFlowWait): void {
  const what: PersonWait =
    wait.kind === 'oauth_pending' || wait.kind === 'oauth_resolved'
      ? { kind: 'oauth' }
      : { kind: 'interaction', interactionId: wait.interactionId };
  if (wait.kind === 'interaction_opened' || wait.kind === 'oauth_pending') {
    bus.emit(ExecutionPaused.event, new ExecutionPaused(id, what));
  } else {
    bus.emit(ExecutionResumed.event, new ExecutionResumed(id, what));
  }
}
