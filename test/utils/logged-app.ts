import type { AppConfig } from '../../src/config/config.loader';
import { createApp } from '../../src/main';
import type { TestApp } from './test-app';

/** Every JSON line an app logged, as pino writes them. */
export class LogCapture {
  readonly lines: string[] = [];

  write(chunk: string): void {
    this.lines.push(...chunk.split('\n').filter(Boolean));
  }

  get entries(): Record<string, unknown>[] {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** The warnings (level 40) whose message contains `text`. */
  warnings(text: string): string[] {
    return this.entries
      .filter((e) => e.level === 40 && typeof e.msg === 'string' && e.msg.includes(text))
      .map((e) => e.msg as string);
  }
}

/** The whole app on an ephemeral loopback port, logging at info into `log`. */
export async function startLoggedApp(config: AppConfig, log: LogCapture): Promise<TestApp> {
  const app = await createApp(config, { log: { level: 'info', destination: log } });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, config, close: () => app.close() };
}
