import { oauthTokensContract } from './oauth-tokens.contract';
import { MemoryOAuthTokens } from './oauth-tokens';
import { oauthWakeupsContract } from './oauth-wakeups.contract';
import { MemoryOAuthWakeups } from './oauth-wakeups';
import { pendingOAuthFlowsContract } from './pending-oauth-flows.contract';
import { MemoryPendingOAuthFlows } from './pending-oauth-flows';

pendingOAuthFlowsContract('memory', () => new MemoryPendingOAuthFlows());
oauthTokensContract('memory', () => new MemoryOAuthTokens());
oauthWakeupsContract('memory', () => new MemoryOAuthWakeups());
