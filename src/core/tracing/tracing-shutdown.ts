import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { shutdownTracing } from './otel';

/** Flushes the spans still in the exporter's batch when the app closes (SIGTERM included). */
@Injectable()
export class TracingShutdown implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await shutdownTracing();
  }
}
