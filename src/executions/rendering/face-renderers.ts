import { Injectable } from '@nestjs/common';
import type { ExecutionEvent } from '../../runtime/execution-event';

/**
 * How one face shows an execution. `Target` is where its stream goes (an SSE face: the response's
 * writer); the engine never looks at it.
 */
export interface FaceRenderer<Target = never, Options = never> {
  /** The face's body for the raw result (a 200 answer, the `result` of a status poll). */
  result(raw: unknown, options: Options): unknown;
  /** The face's stream of an execution's events. */
  stream(target: Target, options: Options, executionId: string): (event: ExecutionEvent) => void;
}

/**
 * The faces' renderers by name, filled by the face modules at start-up. A record names its face, so
 * a poll or a re-attached stream is rendered by a lookup, in any process that has that face.
 */
@Injectable()
export class FaceRenderers {
  private readonly renderers = new Map<string, FaceRenderer<never, never>>();

  register<Target, Options>(name: string, renderer: FaceRenderer<Target, Options>): void {
    if (this.renderers.has(name)) throw new Error(`A renderer for face "${name}" is already registered`);
    this.renderers.set(name, renderer as unknown as FaceRenderer<never, never>);
  }

  /**
   * The renderer registered under `name`. The caller names the target and options types its face
   * registered with: faces and their readers agree on them by name, which the compiler cannot see.
   */
  get<Target, Options>(name: string): FaceRenderer<Target, Options> | undefined {
    return this.renderers.get(name) as unknown as FaceRenderer<Target, Options> | undefined;
  }
}
