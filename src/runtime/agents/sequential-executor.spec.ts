import { errorOf, parse } from '../../../test/utils/config-helpers';

const BASE = `llms:
  m: { _type: openai, model_name: x, api_key: k }
functions:
  coder: { _type: code_generation, llm_name: m }
`;

describe('sequential_executor config', () => {
  it("accepts NAT's fields, warning that raise_type_incompatibility checks nothing here", () => {
    const { warnings } = parse(`${BASE}workflow:
  _type: sequential_executor
  tool_list: [coder]
  tool_execution_config: { coder: { use_streaming: true } }
  raise_type_incompatibility: true
`);
    expect(warnings).toEqual([
      'app.yml:9: workflow.raise_type_incompatibility: ignored: functions here declare no output types, so adjacent ones are not checked against each other',
    ]);
  });

  it('refuses an empty tool_list, a function not declared, and tool_execution_config for a tool not listed', () => {
    expect(errorOf(`${BASE}workflow: { _type: sequential_executor, tool_list: [] }\n`).message).toMatch(
      /workflow\.tool_list: tool_list should not be empty/,
    );
    const lines = errorOf(`${BASE}workflow:
  _type: sequential_executor
  tool_list: [coder, nowhere]
  tool_execution_config: { other: { use_streaming: true } }
`).message;
    expect(lines).toMatch(/app\.yml:7: workflow\.tool_list\[1\]: no entry "nowhere" in functions/);
    expect(lines).toMatch(/app\.yml:8: workflow\.tool_execution_config\.other: "other" is not in tool_list/);
  });
});
