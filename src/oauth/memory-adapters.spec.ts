import { pendingOAuthFlowsContract } from './pending-oauth-flows.contract';
import { MemoryPendingOAuthFlows } from './pending-oauth-flows';

pendingOAuthFlowsContract('memory', () => new MemoryPendingOAuthFlows());
