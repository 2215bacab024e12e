import { IsInt, Max, Min } from 'class-validator';
import { IfPresent } from '../validation/if-present.decorator';

/**
 * `general.sandbox`: the worker threads that run what may not run on the event loop (the calculator's
 * expressions, the regex evaluator's matches). Each sandbox has its own pool of this size. Callers (a
 * user, or an anonymous caller's address) take turns, one never holds every worker while another
 * waits, and the queues are short: past them a task is refused at once (429, or a tool result that
 * says so) rather than delayed behind someone else's.
 */
export class SandboxConfig {
  /** Worker threads per sandbox; a caller may use all but one of them at a time. */
  @IfPresent() @Min(1) @Max(64) @IsInt() workers = 2;
  /** Tasks waiting for a worker, all callers together. */
  @IfPresent() @Min(0) @IsInt() max_queue = 8;
  /** Tasks one caller may have waiting (besides the one running). */
  @IfPresent() @Min(0) @IsInt() max_queued_per_caller = 1;
}
