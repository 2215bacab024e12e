import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { parse } from 'yaml';
import { AppModule } from '../../src/app.module';
import {
  EvaluationRunner,
  type EvaluationOutcome,
  type EvaluationRequest,
} from '../../src/jobs/evaluation/evaluation-runner';
import { ownerFolder } from '../../src/jobs/evaluation/output-folder';
import { configFrom } from './test-app';

/**
 * TEST DOUBLE of the evaluation library (which lands from another branch): it reads the evaluation
 * config's `test_double` section (`fail: message`, `wait_for_cancel: true`) and writes a real output
 * file under `outputRoot/<owner folder>/<job_id>` (the real runner's layout), so the job routes can be tested end to end without it.
 */
export class EvaluationRunnerTestDouble extends EvaluationRunner {
  readonly requests: Omit<EvaluationRequest, 'signal'>[] = [];

  constructor(private readonly outputRoot: string) {
    super();
  }

  async run(request: EvaluationRequest): Promise<EvaluationOutcome> {
    const { signal, ...seen } = request;
    this.requests.push(seen);
    const config = (parse(readFileSync(request.configFile, 'utf8')) ?? {}) as {
      test_double?: { fail?: string; wait_for_cancel?: boolean };
    };
    if (config.test_double?.fail) throw new Error(config.test_double.fail);
    if (config.test_double?.wait_for_cancel) {
      await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    }
    const outputPath = join(ownerFolder(request.identity.userId), request.jobId);
    mkdirSync(join(this.outputRoot, outputPath), { recursive: true });
    const result = { config_file: request.configFile, reps: request.reps, user: request.identity.userId };
    writeFileSync(join(this.outputRoot, outputPath, 'exact_match_output.json'), JSON.stringify(result));
    return { outputPath, averages: { exact_match: 1 } };
  }
}

@Global()
@Module({})
class EvaluationDoubleModule {
  static with(runner: EvaluationRunner): DynamicModule {
    return {
      module: EvaluationDoubleModule,
      providers: [{ provide: EvaluationRunner, useValue: runner }],
      exports: [EvaluationRunner],
    };
  }
}

/**
 * The whole AppModule with the evaluation test double bound to the EvaluationRunner token, on an
 * ephemeral port (its modules apply their own middleware: JSON bodies, identity).
 */
export async function startAppWithEvaluationDouble(
  yaml: string,
  runner: EvaluationRunner,
): Promise<{ url: string; close(): Promise<void> }> {
  const config = configFrom(yaml);
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot(config), EvaluationDoubleModule.with(runner)],
  })
    .overrideProvider(EvaluationRunner)
    .useValue(runner)
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
  app.set('query parser', 'simple');
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { url, close: () => app.close() };
}
