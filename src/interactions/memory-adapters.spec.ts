import { interactionBrokerContract } from './interaction-broker.contract';
import { InProcessInteractionBroker } from './interaction.broker';

interactionBrokerContract('in-process', () => new InProcessInteractionBroker());
