/** The `POST /v1/responses` body as OpenAPI shows it: the members this face reads (others are ignored). */
export const CREATE_RESPONSE_DOC = {
  type: 'object' as const,
  required: ['input'],
  properties: {
    input: {
      description:
        'A string, or input items: messages (`role`, `content` as a string or `input_text` parts) and ' +
        '`function_call_output` (`call_id`, `output`) answering the function call the previous response ended with',
      oneOf: [{ type: 'string' as const }, { type: 'array' as const, items: { type: 'object' as const } }],
    },
    instructions: { type: 'string' as const, description: 'A system message before the conversation' },
    model: { type: 'string' as const, description: 'Echoed; the served workflow answers' },
    stream: { type: 'boolean' as const, default: false },
    store: { type: 'boolean' as const, default: true },
    background: { type: 'boolean' as const, default: false },
    previous_response_id: { type: 'string' as const },
    metadata: { type: 'object' as const, additionalProperties: { type: 'string' as const } },
    user: { type: 'string' as const },
    tools: { type: 'array' as const, items: { type: 'object' as const } },
  },
};

/** OpenAI's `response` object, as far as OpenAPI shows it. */
export const RESPONSE_DOC = {
  type: 'object' as const,
  properties: {
    id: { type: 'string' as const, example: 'resp_0123456789abcdef0123456789abcdef' },
    object: { type: 'string' as const, enum: ['response'] },
    created_at: { type: 'integer' as const },
    status: {
      type: 'string' as const,
      enum: ['completed', 'failed', 'incomplete', 'in_progress', 'queued', 'cancelled'],
    },
    model: { type: 'string' as const },
    output: {
      type: 'array' as const,
      description:
        '`message` items with `output_text` parts, and `function_call` items for a person to answer',
      items: { type: 'object' as const },
    },
    usage: { type: 'object' as const, nullable: true },
    error: { type: 'object' as const, nullable: true },
    metadata: { type: 'object' as const },
    previous_response_id: { type: 'string' as const, nullable: true },
  },
};
