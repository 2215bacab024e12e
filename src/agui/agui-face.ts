import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { SseWriter } from '../core/http/sse-writer';
import { FaceRenderers } from '../executions/rendering/face-renderers';
import type { SseFaceRenderer } from '../http-responders/sse-face';
import { answerText } from '../runtime/output-text';
import { RunRenderer } from './run-renderer';

export const AGUI_FACE = 'agui';

/** What the record of an AG-UI execution keeps for its renderer (plain data). */
export interface AguiFaceOptions {
  threadId: string;
}

/**
 * Registers the AG-UI rendering, so that a status poll or a re-attached stream
 * (`/executions/{id}[/stream]`) of an execution started here is shown as AG-UI shows it.
 */
@Injectable()
export class AguiFace implements OnModuleInit {
  constructor(private readonly renderers: FaceRenderers) {}

  onModuleInit(): void {
    const renderer: SseFaceRenderer<AguiFaceOptions> = {
      result: (raw) => ({ text: answerText(raw) }),
      stream: (writer: SseWriter, options, executionId) => {
        const run = new RunRenderer(
          { threadId: options.threadId, runId: executionId, executionId, v1: true, messages: [], state: {} },
          (event) => writer.data({ ...event, timestamp: event.timestamp ?? Date.now() }),
        );
        run.started();
        return (event) => {
          const stop = run.render(event);
          // The AG-UI run that raised it recorded the interrupt: here it is only shown again.
          if (stop?.kind === 'interrupted') run.interrupted(stop.interrupts);
          if (stop) writer.end();
        };
      },
    };
    this.renderers.register(AGUI_FACE, renderer);
  }
}
