import type { FeedbackItem } from './feedback.service';

/** A feedback was stored (and may be shown on its trace). */
export class FeedbackRecorded {
  static readonly event = 'feedback.recorded';

  constructor(readonly item: FeedbackItem) {}
}
