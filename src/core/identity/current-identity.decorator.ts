import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ANONYMOUS, type Identity } from './identity';

/** The caller's identity, as resolved for this request (anonymous until a resolver sets one). */
export const CurrentIdentity = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): Identity =>
    ctx.switchToHttp().getRequest<{ identity?: Identity }>().identity ?? ANONYMOUS,
);
