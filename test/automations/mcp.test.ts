import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialects } from '../support/db.js';
import { mcpConnections } from '../support/mcp-client.js';

const structured = (result: CallToolResult) => {
  expect(result.isError ?? false).toBe(false);
  return result.structuredContent as Record<string, unknown>;
};
const errorCode = (result: CallToolResult) => {
  expect(result.isError).toBe(true);
  const [content] = result.content;
  return (JSON.parse(content?.type === 'text' ? content.text : '{}') as { code: string }).code;
};

// The automation tools through the SDK's own client, against the app listening on a real port.
describe.each(testDialects())('the automation MCP tools, on %s', (dialect) => {
  let test: TestApp;
  let url: URL;
  const { connect, call, closeAll } = mcpConnections(() => url);

  beforeAll(async () => {
    test = await startTestApp(dialect);
    url = new URL('/mcp', await test.app.listen({ host: '127.0.0.1', port: 0 }));
  });
  afterAll(async () => {
    await closeAll();
    await test?.close();
  });

  const automation = (fields: { enabled?: boolean } = {}) =>
    test.store.automations.create({
      projectId: test.project.id,
      name: 'Page refresh',
      enabled: fields.enabled ?? true,
      trigger: { type: 'manual' },
      prompt: 'Refresh {{variables.page}}.',
      group: true,
      draft: false,
      model: null,
      baseRef: null,
      allowedAuthors: [],
    });

  it('lists the automations and runs one: a new job, then grouped into it', async () => {
    const made = await automation();
    const client = await connect(test.key);
    const listed = structured(await call(client, 'list_automations', {}));
    expect(listed.automations).toEqual([
      expect.objectContaining({ id: made.id, name: 'Page refresh', enabled: true }),
    ]);

    const first = structured(
      await call(client, 'trigger_automation', { automationId: made.id, variables: { page: 'FAQ' } }),
    );
    expect(first).toMatchObject({
      outcome: 'created',
      job: { status: 'active', prompt: 'Refresh FAQ.', trigger: { type: 'manual', automationId: made.id } },
    });
    const second = structured(await call(client, 'trigger_automation', { automationId: made.id }));
    expect(second).toMatchObject({ outcome: 'grouped', job: { id: (first.job as { id: string }).id } });
    const { runs } = await test.store.automations.runs(made.id, { limit: 10 });
    expect(runs.map((run) => run.outcome)).toEqual(['grouped', 'created']);
    // Each automation comes with its last run and what came of it so far: its job is at work.
    const again = structured(await call(client, 'list_automations', {}));
    expect(again.automations).toEqual([
      expect.objectContaining({
        id: made.id,
        lastRun: expect.objectContaining({ outcome: 'grouped', status: 'running' }),
      }),
    ]);
  });

  it("answers the API's errors as tool errors, and needs the write scope to trigger", async () => {
    const disabled = await automation({ enabled: false });
    const client = await connect(test.key);
    expect(errorCode(await call(client, 'trigger_automation', { automationId: disabled.id }))).toBe(
      'automation_disabled',
    );
    expect(errorCode(await call(client, 'trigger_automation', { automationId: 'nope' }))).toBe(
      'automation_not_found',
    );
    const reader = await connect(await test.makeKey({ scopes: ['read'] }));
    expect(structured(await call(reader, 'list_automations', {})).automations).not.toEqual([]);
    expect(errorCode(await call(reader, 'trigger_automation', { automationId: disabled.id }))).toBe(
      'forbidden',
    );
    expect((await test.store.automations.runs(disabled.id, { limit: 10 })).runs).toHaveLength(1);
  });
});
