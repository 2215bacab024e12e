import type { Provider } from '@nestjs/common';
import type { Response } from 'express';
import { ExecutionResponder } from '../../src/http-executions/execution-responder';

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

/** The provider that puts an EchoResponder where the faces expect the engine's responder. */
export function echoResponder(): {
  responder: EchoResponder;
  provider: Provider;
} {
  const responder = new EchoResponder();
  return { responder, provider: { provide: ExecutionResponder, useValue: responder } };
}
