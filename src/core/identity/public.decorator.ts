import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'interlude:public';

/**
 * A route that answers whoever asks, even when `general.auth.require_identity` is on (liveness,
 * readiness, the API description). A credential that is sent and fails is still refused.
 */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
