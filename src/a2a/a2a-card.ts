import { Injectable } from '@nestjs/common';
import type { AgentCard } from '@a2a-js/sdk';
import { IdentityResolver } from '../core/identity/identity.resolver';
import { ServerConfig } from '../config/server-config';
import { agentCardOf } from './agent-card';

/** The agent card, its JSON-RPC URL on `public_base_url` when configured, else on the request's origin. */
@Injectable()
export class A2aCard {
  constructor(
    private readonly config: ServerConfig,
    private readonly identity: IdentityResolver,
  ) {}

  forOrigin(origin: string | undefined): AgentCard {
    const frontEnd = this.config.frontEnd;
    const base = frontEnd.public_base_url ?? origin ?? `http://${frontEnd.host}:${frontEnd.port}`;
    return agentCardOf({
      workflow: this.config.workflow,
      auth: this.config.general.auth,
      sources: this.identity.sources,
      endpoint: `${base}${frontEnd.a2a_path ?? ''}`,
      pushNotifications: true,
    });
  }
}
