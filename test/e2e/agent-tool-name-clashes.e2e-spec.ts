import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { cli, stopServersAfterEach } from '../utils/cli';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { LogCapture, startLoggedApp } from '../utils/logged-app';
import { HttpMcpServer } from '../utils/mcp-servers';
import { postJson } from '../utils/sse';
import { configFrom } from '../utils/test-app';

// One name, one tool: a name the config gives twice stops validate and serve; a name an MCP server
// gives a tool that the operator's function already has leaves the server's tool out, with a warning.
describe('tool names given twice', () => {
  stopServersAfterEach();
  let llm: FakeLlm;
  let mcp: HttpMcpServer;
  beforeAll(async () => {
    llm = await FakeLlm.start();
    mcp = await HttpMcpServer.start();
  });
  afterAll(async () => {
    await mcp.stop();
    await llm.close();
  });

  it("the operator's function keeps its name, wherever it is listed; the server's tool is left out, with a warning naming both", async () => {
    const log = new LogCapture();
    const yaml = agentYaml(
      llm,
      { _type: 'tool_calling_agent', tool_names: ['h', 'h__add'] },
      { h__add: { _type: 'current_datetime', description: 'The time, not a sum' } },
      {},
      {
        function_groups: { h: { _type: 'mcp_client', server: { url: mcp.url } } },
        general: { outbound: { allow_hosts: ['127.0.0.1'] } },
      },
    );
    const t = await startLoggedApp(configFrom(yaml), log);
    try {
      llm.script(reply.tools([{ name: 'h__add', arguments: {}, id: 'c0' }]), reply.text('done'));
      expect((await postJson(`${t.url}/v1/workflow`, { input_message: 'go' })).status).toBe(200);
      const offered = llm.requests[0].body.tools!.map((x) => x.function);
      expect(offered.filter((f) => f.name === 'h__add')).toEqual([
        expect.objectContaining({ description: 'The time, not a sum' }),
      ]);
      expect(offered.map((f) => f.name)).toEqual(['h__lookup', 'h__fail', 'h__flood', 'h__add']);
      expect(llm.lastMessage(1).content).toMatch(/^The current date and time is /);
      expect(mcp.calls).toEqual([]);
      expect(log.warnings('left out')).toEqual([
        `workflow.tool_names: function group "h"'s tool "h__add" is left out: functions.h__add has that name`,
      ]);
    } finally {
      await t.close();
    }
  });

  it('validate and serve refuse a function and a group of the same name, naming both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlude-clash-'));
    const file = join(dir, 'clash.yml');
    writeFileSync(
      file,
      stringify({
        functions: { calculator: { _type: 'calculator' } },
        function_groups: { calculator: { _type: 'mcp_client', server: { url: mcp.url } } },
        workflow: { _type: 'echo' },
      }),
    );
    try {
      const problem =
        'functions.calculator: "calculator" is also the name of function_groups.calculator: ' +
        "an agent's tool_names would take the function and never the group; rename one";
      const validate = await cli(['validate', '--config', file]);
      expect(validate.code).toBe(2);
      expect(validate.stderr).toContain(problem);
      const serve = await cli(['serve', '--config', file, '--host', '127.0.0.1', '--port', '0']);
      expect(serve.code).not.toBe(0);
      expect(serve.stderr).toContain(problem);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
