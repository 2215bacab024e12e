/** `RunAgentInput` as OpenAPI shows it (the AG-UI schema, with what this endpoint reads). */
export const RUN_AGENT_INPUT_DOC = {
  type: 'object' as const,
  required: ['threadId', 'runId', 'messages'],
  properties: {
    threadId: { type: 'string' as const },
    runId: { type: 'string' as const },
    protocolVersion: { type: 'string' as const, example: '1.0' },
    parentRunId: { type: 'string' as const },
    state: { description: 'Echoed in STATE_SNAPSHOT at an interrupt' },
    messages: {
      type: 'array' as const,
      description: 'The whole history; content as a string or parts',
      items: {
        type: 'object' as const,
        required: ['id', 'role'],
        properties: {
          id: { type: 'string' as const },
          role: {
            type: 'string' as const,
            enum: ['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning'],
          },
          content: {},
        },
      },
    },
    tools: { type: 'array' as const, items: { type: 'object' as const } },
    context: { type: 'array' as const, items: { type: 'object' as const } },
    forwardedProps: {},
    resume: {
      type: 'array' as const,
      items: {
        type: 'object' as const,
        required: ['interruptId', 'status'],
        properties: {
          interruptId: { type: 'string' as const },
          status: { type: 'string' as const, enum: ['resolved', 'cancelled'] },
          payload: { description: 'Valid against the interrupt’s responseSchema' },
        },
      },
    },
  },
};
