import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { ExecutionFinished, ExecutionHandedOver } from '../events/execution-events';

/** Ends an execution's span when the execution ends here, with its outcome as the span's status. */
@Injectable()
export class ExecutionSpanEnds {
  @OnEvent(ExecutionFinished.event)
  finished(event: ExecutionFinished): void {
    event.span?.end(event.outcome);
  }

  @OnEvent(ExecutionHandedOver.event)
  handedOver(event: ExecutionHandedOver): void {
    event.span.end({ kind: 'cancelled', reason: 'handed over' });
  }
}
