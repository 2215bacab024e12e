import type { SseWriter } from '../core/http/sse-writer';
import type { FaceRenderer, FaceRenderers } from '../executions/rendering/face-renderers';

/** An HTTP face's renderer: bodies for results, and SSE streams written to the response's writer. */
export type SseFaceRenderer<Options> = FaceRenderer<SseWriter, Options>;

/** The SSE renderer of a face; the HTTP faces all register theirs with an `SseWriter` target. */
export function sseRendererOf(renderers: FaceRenderers, face: string): SseFaceRenderer<unknown> | undefined {
  return renderers.get<SseWriter, unknown>(face);
}
