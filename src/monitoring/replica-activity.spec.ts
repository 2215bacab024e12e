import { mergeActivity, type ReplicaUser } from './replica-activity';

const aUser = (userId: string, over: Partial<ReplicaUser> = {}): ReplicaUser => ({
  userId,
  createdAt: 1000,
  lastActivity: 2000,
  activeRequests: 0,
  totalRequests: 1,
  totalLatencyMs: 10,
  errorCount: 0,
  functions: 0,
  ...over,
});

describe('mergeActivity: one user seen by several replicas', () => {
  it('sums the counts, keeps the earliest start and the latest activity', () => {
    const merged = mergeActivity([
      [aUser('x', { createdAt: 500, activeRequests: 1, totalRequests: 3, errorCount: 1, functions: 1 })],
      [aUser('x', { lastActivity: 9000, totalRequests: 2, totalLatencyMs: 30 }), aUser('y')],
    ]);
    expect(merged).toEqual([
      aUser('x', {
        createdAt: 500,
        lastActivity: 9000,
        activeRequests: 1,
        totalRequests: 5,
        totalLatencyMs: 40,
        errorCount: 1,
        functions: 1,
      }),
      aUser('y'),
    ]);
  });

  it('does not change the snapshots it merges', () => {
    const mine = [aUser('x')];
    mergeActivity([mine, [aUser('x', { totalRequests: 4 })]]);
    expect(mine).toEqual([aUser('x')]);
  });
});
