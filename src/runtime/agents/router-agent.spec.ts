import { errorOf, parse } from '../../../test/utils/config-helpers';

const BASE = `llms:
  m: { _type: openai, model_name: x, api_key: k }
functions:
  coder: { _type: code_generation, llm_name: m }
`;

describe('router_agent config', () => {
  it("reads NAT's example config, warning about detailed_logs", () => {
    const { warnings } = parse(`${BASE}workflow:
  _type: router_agent
  branches: [coder]
  llm_name: m
  detailed_logs: true
`);
    expect(warnings).toEqual([expect.stringMatching(/^app\.yml:9: workflow\.detailed_logs: ignored: /)]);
  });

  it('refuses no branches, a branch not declared, and a prompt placeholder it cannot fill', () => {
    expect(errorOf(`${BASE}workflow: { _type: router_agent, llm_name: m }\n`).message).toMatch(
      /workflow\.branches: No branches specified for Router Agent/,
    );
    const message = errorOf(`${BASE}workflow:
  _type: router_agent
  llm_name: m
  branches: [coder, nowhere]
  user_prompt: 'Pick for {request} given {tools}'
`).message;
    expect(message).toMatch(/app\.yml:8: workflow\.branches\[1\]: no entry "nowhere" in functions/);
    expect(message).toMatch(
      /app\.yml:9: workflow\.user_prompt: unknown placeholder \{tools\} \(it may use \{chat_history\}, \{request\}\)/,
    );
  });
});
