import { interactionBrokerContract } from './interaction-broker.contract';
import { InProcessInteractionBroker } from './interaction.broker';
import type { PromptAnswer } from '../runtime/prompts';

interactionBrokerContract('in-process', () => new InProcessInteractionBroker());

describe('in-process broker', () => {
  it('hands an answer accepted here to its waiter once the turn is over, and a wake-up from another replica at once', async () => {
    const broker = new InProcessInteractionBroker();
    const heard: string[] = [];
    const waiter = (name: string) => ({
      executionId: 'e1',
      answered: (answer: PromptAnswer) => heard.push(`${name}: ${JSON.stringify(answer)}`),
      abandoned: () => heard.push(`${name}: abandoned`),
    });
    await broker.wait('answered-here', waiter('answered-here'));
    await broker.wait('answered-elsewhere', waiter('answered-elsewhere'));
    await broker.deliver('e1', 'answered-here', { type: 'text', text: 'Ann' });
    broker.wake('answered-elsewhere', { type: 'text', text: 'Bo' });
    // The 204 of the answer accepted here is written in this turn: its workflow resumes after it.
    expect(heard).toEqual(['answered-elsewhere: {"type":"text","text":"Bo"}']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([
      'answered-elsewhere: {"type":"text","text":"Bo"}',
      'answered-here: {"type":"text","text":"Ann"}',
    ]);
    // Each waiter hears once.
    broker.wake('answered-elsewhere', { type: 'text', text: 'again' });
    expect(heard).toHaveLength(2);
    expect(broker.waiting).toBe(0);
  });
});
