import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { SseWriter } from '../core/http/sse-writer';
import { FaceRenderers } from '../executions/rendering/face-renderers';
import type { SseFaceRenderer } from '../http-responders/sse-face';
import type { ResponseBase } from './response-object';
import { ResponseRender } from './response-render';

export const RESPONSES_FACE = 'responses';

/** What the record of an execution started by `POST /v1/responses` keeps for its renderer (plain data). */
export interface ResponsesFaceOptions {
  /** The response that started the execution. */
  base: ResponseBase;
  /** Its input's text, for the usage estimate. */
  prompt: string;
}

/**
 * Registers the Responses rendering, so that a status poll or a re-attached stream
 * (`/executions/{id}[/stream]`) of an execution started here shows the response that started it, on
 * any replica.
 */
@Injectable()
export class ResponsesFace implements OnModuleInit {
  constructor(private readonly renderers: FaceRenderers) {}

  onModuleInit(): void {
    const renderer: SseFaceRenderer<ResponsesFaceOptions> = {
      result: (raw, options) => {
        const render = new ResponseRender(options.base, undefined, options.prompt);
        render.render({ kind: 'completed', result: raw, streamed: false, seq: 0 });
        return render.response;
      },
      stream: (writer: SseWriter, options) => {
        const render = new ResponseRender(options.base, (e) => writer.event(e.type, e), options.prompt);
        render.open();
        let ended = false;
        return (event) => {
          if (ended) return;
          ended = render.render(event);
          if (ended) writer.end();
        };
      },
    };
    this.renderers.register(RESPONSES_FACE, renderer);
  }
}
