import { JobSlots, type Slot } from './job-slots';

/** Takes a slot for `owner`; records when it is granted and what it was told while held. */
function take(slots: JobSlots, owner: string | null, signal?: AbortSignal) {
  const job = {
    granted: false,
    told: [] as string[],
    slot: undefined as Slot | undefined,
    error: undefined as unknown,
  };
  const taken = slots.take(owner, signal, (reason) => job.told.push(reason));
  taken.then(
    (slot) => {
      job.granted = true;
      job.slot = slot;
    },
    (err: unknown) => (job.error = err),
  );
  return job;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('JobSlots', () => {
  it('runs at most `concurrency` jobs at once; the next in line starts when one ends', async () => {
    const slots = new JobSlots({ concurrency: 2, perUser: 10, anonymous: 10 });
    const jobs = ['a', 'b', 'c'].map((owner) => take(slots, owner));
    await settle();
    expect(jobs.map((j) => j.granted)).toEqual([true, true, false]);
    expect(slots.queued).toBe(1);
    jobs[0].slot!.end();
    await settle();
    expect(jobs[2].granted).toBe(true);
    expect(slots.active).toBe(2);
  });

  it("a user at their share is passed over, told why once, and keeps their place; another user's job runs", async () => {
    const slots = new JobSlots({ concurrency: 3, perUser: 1, anonymous: 1 });
    const first = take(slots, 'alice');
    const second = take(slots, 'alice');
    const bobs = take(slots, 'bob');
    const third = take(slots, 'alice');
    await settle();
    expect([first, second, bobs, third].map((j) => j.granted)).toEqual([true, false, true, false]);
    expect(second.told).toEqual([
      'You run 1 jobs at once (general.async.max_running_jobs_per_user); this one starts when one of them ends or waits for a person',
    ]);
    bobs.slot!.end();
    await settle();
    expect(second.told).toHaveLength(1);
    first.slot!.end();
    await settle();
    expect([second.granted, third.granted]).toEqual([true, false]);
  });

  it('anonymous callers share one share', async () => {
    const slots = new JobSlots({ concurrency: 3, perUser: 2, anonymous: 1 });
    const jobs = [take(slots, null), take(slots, null), take(slots, 'carol')];
    await settle();
    expect(jobs.map((j) => j.granted)).toEqual([true, false, true]);
    expect(jobs[1].told[0]).toMatch(
      /^Anonymous callers run 1 jobs at once \(general\.async\.max_running_anonymous_jobs\)/,
    );
  });

  it('a job waiting for a person gives its slot to the next; its answer takes the next free slot, before jobs not started', async () => {
    const slots = new JobSlots({ concurrency: 1, perUser: 5, anonymous: 5 });
    const asks = take(slots, 'alice');
    const next = take(slots, 'bob');
    const later = take(slots, 'carol');
    await settle();
    asks.slot!.release();
    await settle();
    expect([next.granted, later.granted]).toEqual([true, false]);
    let resumed = false;
    void asks.slot!.again().then(() => (resumed = true));
    await settle();
    expect(resumed).toBe(false);
    next.slot!.end();
    await settle();
    expect([resumed, later.granted]).toEqual([true, false]);
    asks.slot!.end();
    await settle();
    expect(later.granted).toBe(true);
  });

  it('a job cancelled while it waits for a slot stops waiting; one ended while it waits to go on goes on', async () => {
    const slots = new JobSlots({ concurrency: 1, perUser: 5, anonymous: 5 });
    const running = take(slots, 'a');
    const cancel = new AbortController();
    const queued = take(slots, 'b', cancel.signal);
    await settle();
    cancel.abort(new Error('cancelled'));
    await settle();
    expect(queued.error).toEqual(new Error('cancelled'));
    expect(slots.queued).toBe(0);

    running.slot!.release();
    const other = take(slots, 'c');
    await settle();
    const resuming = running.slot!.again();
    running.slot!.end();
    await expect(resuming).resolves.toBeUndefined();
    other.slot!.end();
    expect(slots.active).toBe(0);
  });
});
