import { SetMetadata } from '@nestjs/common';

export const STREAMS = 'interlude:streams';

/** How a route streams, for the middleware that runs before routing (body limit, stream caps). */
export interface StreamingRoute {
  /** It streams only when its JSON body says `"stream": true` (OpenAI's chat completions). */
  whenBodyAsks?: boolean;
  /** The route parameter that names the execution it follows: its streams are capped per execution. */
  execution?: string;
}

/**
 * Marks a handler whose answer is a stream (SSE): it gets `general.front_end.max_stream_body_bytes`
 * and counts against `max_streams_per_address` (and, with `execution`,
 * `max_reattached_streams_per_execution`). The route table finds the marked handlers at start-up.
 */
export const Streams = (options: StreamingRoute = {}): MethodDecorator => SetMetadata(STREAMS, options);
