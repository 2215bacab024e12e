import type { ServerConfig } from '../config/server-config';
import { UserActivityService } from './user-activity.service';

function activity(maxUsers = 3, idleSeconds = 60) {
  const config = { general: { monitor_max_users: maxUsers, monitor_user_idle_seconds: idleSeconds } };
  return new UserActivityService(config as unknown as ServerConfig);
}

function visit(service: UserActivityService, userId: string, at: number, matched = true) {
  service.begin(userId, at);
  service.end(userId, 1, false, at, matched);
}

describe('UserActivityService', () => {
  it('forgets users idle longer than monitor_user_idle_seconds', () => {
    const service = activity(10, 60);
    visit(service, 'a', 0);
    visit(service, 'b', 30_000);
    expect(service.list(undefined, 59_000).map((u) => u.userId)).toEqual(['a', 'b']);
    expect(service.list(undefined, 61_000).map((u) => u.userId)).toEqual(['b']);
  });

  it('keeps at most monitor_max_users, dropping the least recently active first', () => {
    const service = activity(3);
    for (const [i, id] of ['a', 'b', 'c'].entries()) visit(service, id, i);
    visit(service, 'a', 3);
    visit(service, 'd', 4);
    expect(service.list(undefined, 5).map((u) => u.userId)).toEqual(['c', 'a', 'd']);
    for (let i = 0; i < 10_000; i++) visit(service, `rotating-${i}`, 10);
    expect(service.size).toBe(3);
  });

  it('never drops a user whose request is under way', () => {
    const service = activity(1);
    service.begin('streaming', 0);
    visit(service, 'other', 1);
    visit(service, 'another', 2);
    expect(service.list(undefined, 3).map((u) => u.userId)).toContain('streaming');
  });

  it('a request that matched no route leaves no record', () => {
    const service = activity();
    visit(service, 'prober', 0, false);
    expect(service.list(undefined, 1)).toEqual([]);
    visit(service, 'user', 0);
    visit(service, 'user', 1, false);
    expect(service.list('user', 2)[0]).toMatchObject({ totalRequests: 1 });
  });
});
