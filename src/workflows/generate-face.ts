import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { FaceRenderers } from '../executions/rendering/face-renderers';
import { ExecutionUrls } from '../http-responders/execution-urls';
import type { SseFaceRenderer } from '../http-responders/sse-face';
import type { StreamErrorStyle } from '../http-responders/stream-error';
import { StepAdaptor } from '../runtime/step-adaptor';
import { generateBody } from './generate-output';
import { generateStreamRenderer } from './generate-sse.renderer';

export const GENERATE_FACE = 'generate';

/** What the generate face keeps on a record to render it again (plain data). */
export interface GenerateFaceOptions {
  /** `/stream`: adapted steps; `/full`: raw ones, all, none or the listed types. */
  steps: 'adapted' | { raw: string[] | 'all' | 'none' };
  errors: StreamErrorStyle;
  /** Interactive routes send prompts and OAuth as typed events. */
  interactive: boolean;
}

/** Registers NAT's generate rendering (`/v1/workflow`, `/generate`, the configured endpoints). */
@Injectable()
export class GenerateFace implements OnModuleInit {
  constructor(
    private readonly renderers: FaceRenderers,
    private readonly config: ServerConfig,
  ) {}

  onModuleInit(): void {
    const urls = new ExecutionUrls(this.config.frontEnd.root_path);
    const { mode, custom_event_types } = this.config.frontEnd.step_adaptor;
    const renderer: SseFaceRenderer<GenerateFaceOptions> = {
      result: (raw) => generateBody(raw),
      stream: (writer, options, executionId) =>
        generateStreamRenderer(writer, {
          steps:
            options.steps === 'adapted'
              ? { adaptor: new StepAdaptor(mode, custom_event_types) }
              : {
                  raw: true,
                  filter: Array.isArray(options.steps.raw) ? new Set(options.steps.raw) : options.steps.raw,
                },
          errors: options.errors,
          interactive: options.interactive ? { executionId, urls } : undefined,
        }),
    };
    this.renderers.register(GENERATE_FACE, renderer);
  }
}
