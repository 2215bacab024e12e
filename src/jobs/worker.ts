import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import type { AppConfig } from '../config/config.loader';
import { JobsWorkerModule } from './jobs-worker.module';

/** Starts a job worker for the config (`general.async.queue: redis | postgres`); stops on SIGTERM/SIGINT. */
export async function createWorker(config: AppConfig): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(JobsWorkerModule.forRoot(config), {
    logger: ['error', 'warn', 'log'],
  });
  app.enableShutdownHooks();
  return app;
}
