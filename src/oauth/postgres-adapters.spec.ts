import { requires } from '../../test/utils/requires';
import { ReplicaServices } from '../../test/utils/replica-services';
import type { Database } from '../db/database';
import { pendingOAuthFlowsContract } from './pending-oauth-flows.contract';
import { PostgresPendingOAuthFlows } from './postgres-pending-oauth-flows';

requires('postgres')('Postgres pending OAuth flows', () => {
  const services = new ReplicaServices();
  let database: Promise<Database> | undefined;
  const shared = () => (database ??= services.database());
  afterAll(() => services.cleanup());

  pendingOAuthFlowsContract(
    'postgres',
    async () => new PostgresPendingOAuthFlows((await shared()).db),
    async () => new PostgresPendingOAuthFlows((await services.database()).db),
  );
});
