import type { DynamicModule, Provider } from '@nestjs/common';
import type { Response } from 'express';
import { ExecutionResponder } from '../../src/http-responders/execution-responder';
import { HttpRespondersModule } from '../../src/http-responders/http-responders.module';

/**
 * Stands in for the engine behind a face: records what a route handed over and answers as the echo
 * workflow would (`{"value": message}`), so a slim-app test sees both what was refused and what got
 * through.
 */
export class EchoResponder {
  readonly received: unknown[] = [];

  reply(input: unknown): Promise<{ status: 200; body: unknown }> {
    this.received.push(input);
    return Promise.resolve({ status: 200, body: { value: (input as { message?: unknown }).message } });
  }

  stream(input: unknown, _identity: unknown, _req: unknown, res: Response): Promise<void> {
    this.received.push(input);
    res.status(200).json({ value: (input as { message?: unknown }).message });
    return Promise.resolve();
  }
}

class EchoResponderModule {}

/**
 * An EchoResponder where the faces expect the engine's responder: as a provider, and as the module
 * that replaces HttpRespondersModule (`slimApp({ replace })`) for controllers mounted under a path.
 */
export function echoResponder(): {
  responder: EchoResponder;
  provider: Provider;
  replace: [typeof HttpRespondersModule, DynamicModule];
} {
  const responder = new EchoResponder();
  const provider = { provide: ExecutionResponder, useValue: responder };
  const module = { module: EchoResponderModule, providers: [provider], exports: [ExecutionResponder] };
  return { responder, provider, replace: [HttpRespondersModule, module] };
}
