import { stringify } from 'yaml';
import { errorOf, parse, problemAt } from '../../test/utils/config-helpers';

const MCP = { _type: 'mcp_client', server: { url: 'https://mcp.example.com/mcp' } };

function configWith(functions: Record<string, unknown>, groups: Record<string, unknown>): string {
  return stringify({ functions, function_groups: groups, workflow: { _type: 'echo' } });
}

describe('tool names the config gives twice', () => {
  it('a function and a function group of the same name are refused, naming both', () => {
    const err = errorOf(configWith({ calculator: { _type: 'calculator' } }, { calculator: MCP }));
    expect(problemAt(err, 'functions.calculator').message).toBe(
      `"calculator" is also the name of function_groups.calculator: an agent's tool_names would take the function and never the group; rename one`,
    );
  });

  it("a function named like a tool its group's config names (alias or include) is refused", () => {
    const err = errorOf(
      configWith(
        { h__define: { _type: 'current_datetime' }, h__add: { _type: 'current_datetime' } },
        { h: { ...MCP, include: ['add', 'lookup'], tool_overrides: { lookup: { alias: 'define' } } } },
      ),
    );
    expect(problemAt(err, 'functions.h__define').message).toBe(
      '"h__define" is also the name function_groups.h.tool_overrides.lookup.alias gives a tool of that group; rename one',
    );
    expect(problemAt(err, 'functions.h__add').message).toBe(
      '"h__add" is also the name function_groups.h.include.0 gives a tool of that group; rename one',
    );
  });

  it("an alias that is another of the group's tools' names is refused", () => {
    const err = errorOf(
      configWith({}, { h: { ...MCP, tool_overrides: { add: {}, lookup: { alias: 'add' } } } }),
    );
    expect(problemAt(err, 'function_groups.h.tool_overrides.lookup.alias').message).toBe(
      'the group would offer two tools as "h__add": lookup and add; rename one',
    );
  });

  it('a function named like a tool only the server knows loads (the function wins at run time)', () => {
    const config = parse(configWith({ h__ok: { _type: 'current_datetime' } }, { h: MCP }));
    expect(config.functions.has('h__ok')).toBe(true);
  });

  it('a tool both included and overridden is one tool', () => {
    const config = parse(
      configWith({}, { h: { ...MCP, include: ['lookup'], tool_overrides: { lookup: { alias: 'define' } } } }),
    );
    expect(config.groups.has('h')).toBe(true);
  });

  it('a tool named constructor is a name like any other', () => {
    const err = errorOf(
      configWith(
        { h__constructor: { _type: 'current_datetime' } },
        { h: { ...MCP, include: ['constructor'] } },
      ),
    );
    expect(problemAt(err, 'functions.h__constructor').message).toContain('function_groups.h.include.0');
  });
});
