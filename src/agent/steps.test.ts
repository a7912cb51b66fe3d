import type { ModelMessage } from 'ai';
import type { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answer,
  callsOf,
  callTools,
  createFixture,
  type Fixture,
  scriptedModel,
  startAgentOver,
} from '../../test/support/agent-fixture.js';
import type { AgentLimits, RunAgentOptions } from './loop.js';
import { BASE_SYSTEM_PROMPT } from './prompt.js';

const LIMITS: AgentLimits = { maxSteps: 20, maxWallMs: 10_000, maxTokens: 1_000_000, maxFilesChanged: 10 };

let fixture: Fixture;

beforeAll(async () => {
  fixture = await createFixture({
    files: {
      'AGENTS.md': '# Conventions\nWrite headings in sentence case.\n',
      'README.md': '# Demo\nHello world\n',
      'docs/index.md': 'Index\nSee the guide\n',
      'docs/twice.md': 'same\nsame\n',
      'images/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
      'big.md': 'x'.repeat(5000),
    },
    links: { evil: '../../etc/passwd' },
  });
});

afterAll(async () => {
  await fixture.cleanup();
});

/** The model's prompt on call `index`, as plain objects. */
function promptOf(model: MockLanguageModelV3, index: number) {
  return callsOf(model)[index]?.prompt ?? [];
}

function userTexts(messages: readonly { role: string; content: unknown }[]): string[] {
  return messages
    .filter((message) => message.role === 'user')
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : (message.content as { text?: string }[]).map((part) => part.text ?? '').join(''),
    );
}

// Every scenario runs twice: with the model's answers streamed (the default) and whole.
describe.each([true, false])('with stream: %s', (stream) => {
  /** Runs the agent in this mode over a fresh workspace, recording events; `overrides` replace any option. */
  const start = (model: MockLanguageModelV3, overrides: Partial<RunAgentOptions> = {}) =>
    startAgentOver(fixture, model, LIMITS, { stream, ...overrides });

  describe('runAgent', () => {
    it('runs scripted tool calls to a final answer, with events, usage and changed files', async () => {
      const model = scriptedModel([
        callTools(
          [
            ['update_plan', { items: [{ content: 'Fix the index', status: 'in_progress' }] }],
            ['list_files', { path: 'docs' }],
          ],
          { text: 'Let me look around.' },
        ),
        callTools([['read_file', { path: 'docs/index.md' }]]),
        callTools([
          ['edit_file', { path: 'docs/index.md', old_text: 'See the guide', new_text: 'Read the guide' }],
          ['write_file', { path: 'docs/new.md', content: `# New\n${'word '.repeat(100)}\n` }],
        ]),
        answer('Improve the index page\n\nReworded the index and added a new page.'),
      ]);
      const { run, events, workspace } = await start(model);
      const result = await run;

      expect(result.summary).toBe('Improve the index page\n\nReworded the index and added a new page.');
      expect(result.title).toBe('Improve the index page');
      expect(result.usage).toEqual({
        inputTokens: 400,
        outputTokens: 80,
        cachedInputTokens: 0,
        steps: 4,
        costUsd: null,
      });
      expect(result.filesChanged).toEqual(['docs/index.md', 'docs/new.md']);
      expect((await workspace.readFile('docs/index.md'))?.toString()).toBe('Index\nRead the guide\n');

      expect(events.map((event) => event.type)).toEqual([
        ...['message', 'tool_call', 'tool_result', 'plan', 'tool_call', 'tool_result', 'usage'],
        ...['tool_call', 'tool_result', 'usage'],
        ...['tool_call', 'tool_result', 'tool_call', 'tool_result', 'usage'],
        ...['message', 'usage'],
      ]);
      expect(events[0]?.data).toEqual({ role: 'assistant', text: 'Let me look around.' });
      expect(events[3]?.data).toEqual({ items: [{ content: 'Fix the index', status: 'in_progress' }] });
      expect(events[5]?.data).toEqual({ tool: 'list_files', ok: true, summary: '2 files under docs:' });
      const write = events.find((event) => event.type === 'tool_call' && event.data.tool === 'write_file');
      const content = (write?.data.input as { content?: string } | undefined)?.content ?? '';
      expect(content.length).toBeLessThan(250);
      expect(content).toMatch(/… \[507 chars\]$/);
      expect(events.at(-1)?.data).toEqual({
        inputTokens: 400,
        outputTokens: 80,
        cachedInputTokens: 0,
        steps: 4,
        costUsd: null,
      });

      // The whole conversation, ready to be the history of a follow-up.
      expect(result.messages.map((message) => message.role)).toEqual([
        ...['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant'],
      ]);
      // The model was asked in this mode only.
      expect(stream ? model.doStreamCalls : callsOf(model)).toHaveLength(4);
      expect(stream ? model.doGenerateCalls : model.doStreamCalls).toHaveLength(0);
    });

    it('reports whole messages, once per step, whether the answers stream or not', async () => {
      const model = scriptedModel([
        callTools([['list_files', {}]], { text: 'Let me look around.' }),
        answer('All done here'),
      ]);
      const { run, events } = await start(model);
      const result = await run;
      expect(result.summary).toBe('All done here');
      expect(events.map((event) => event.type)).toEqual([
        ...['message', 'tool_call', 'tool_result', 'usage', 'message', 'usage'],
      ]);
    });

    it('shows every refused call to the model as a tool error and carries on', async () => {
      const refused: [string, unknown][] = [
        ['read_file', { path: '../outside.md' }],
        ['read_file', { path: '/etc/passwd' }],
        ['read_file', { path: '.git/config' }],
        ['read_file', { path: 'evil' }],
        ['read_file', { path: 'images/logo.png' }],
        ['read_file', { path: 'big.md' }],
        ['edit_file', { path: 'docs/index.md', old_text: 'nowhere', new_text: 'x' }],
        ['edit_file', { path: 'docs/twice.md', old_text: 'same', new_text: 'x' }],
        ['search_files', { query: '(', regex: true }],
        ['read_file', { path: 42 }],
        ['run_shell', { command: 'rm -rf /' }],
        ['update_plan', { items: [{ content: 'x', status: 'done' }] }],
        ['read_file', '{not json'],
      ];
      const model = scriptedModel([callTools(refused), answer('Nothing to change')]);
      const { run, events } = await start(model);
      const result = await run;
      expect(result.summary).toBe('Nothing to change');
      expect(result.filesChanged).toEqual([]);

      const tool = promptOf(model, 1).find((message) => message.role === 'tool');
      const outputs = (tool?.content ?? []).map((part) =>
        part.type === 'tool-result' ? (part.output as { type: string; value: string }) : null,
      );
      expect(outputs).toHaveLength(refused.length);
      for (const output of outputs) expect(output?.type).toBe('error-text');
      const texts = outputs.map((output) => output?.value);
      expect(texts[0]).toMatch(/outside the repository/);
      expect(texts[1]).toMatch(/absolute path/);
      expect(texts[2]).toMatch(/inside \.git/);
      expect(texts[3]).toMatch(/symbolic link .* outside the repository/);
      expect(texts[4]).toMatch(/binary file/);
      expect(texts[5]).toMatch(/files over 4096 bytes/);
      expect(texts[6]).toMatch(/0 occurrences/);
      expect(texts[7]).toMatch(/occurs 2 times/);
      expect(texts[8]).toMatch(/regular expression is not valid/);
      expect(texts[9]).toMatch(/Invalid input for tool read_file/);
      expect(texts[10]).toMatch(/run_shell/);
      expect(texts[11]).toMatch(/update_plan/);
      expect(texts[12]).toMatch(/read_file/);

      const results = events.filter((event) => event.type === 'tool_result');
      expect(results).toHaveLength(refused.length);
      for (const event of results) expect(event.data.ok).toBe(false);
      expect(events.some((event) => event.type === 'plan')).toBe(false);
    });

    it('puts AGENTS.md into the system prompt', async () => {
      const model = scriptedModel([answer('Done')]);
      await (await start(model)).run;
      const system = promptOf(model, 0)[0];
      expect(system?.role).toBe('system');
      expect(system?.content).toContain(BASE_SYSTEM_PROMPT);
      expect(system?.content).toContain(
        '<agents_md>\n# Conventions\nWrite headings in sentence case.\n</agents_md>',
      );
    });

    it('hands a follow-up that arrives while running to the next step, and keeps it there', async () => {
      const model = scriptedModel([
        callTools([['list_files', {}]]),
        callTools([['read_file', { path: 'README.md' }]]),
        answer('Done both'),
      ]);
      const queue = [[], ['Also fix the README'], []];
      const { run } = await start(model, { takePendingPrompts: async () => queue.shift() ?? [] });
      const result = await run;
      expect(userTexts(promptOf(model, 0))).toEqual(['Improve the docs']);
      expect(userTexts(promptOf(model, 1))).toEqual(['Improve the docs', 'Also fix the README']);
      expect(userTexts(promptOf(model, 2))).toEqual(['Improve the docs', 'Also fix the README']);
      // After the tool results of the step it arrived during.
      expect(promptOf(model, 2).map((message) => message.role)).toEqual([
        ...['system', 'user', 'assistant', 'tool', 'user', 'assistant', 'tool'],
      ]);
      expect(result.messages.map((message) => message.role)).toEqual([
        ...['user', 'assistant', 'tool', 'user', 'assistant', 'tool', 'assistant'],
      ]);
    });

    it('answers a follow-up that arrives after the final answer before returning', async () => {
      const model = scriptedModel([answer('First answer'), answer('Second answer')]);
      const queue = [[], ['One more thing'], [], []];
      const { run } = await start(model, { takePendingPrompts: async () => queue.shift() ?? [] });
      const result = await run;
      expect(result.summary).toBe('Second answer');
      expect(userTexts(promptOf(model, 1))).toEqual(['Improve the docs', 'One more thing']);
      expect(result.usage.steps).toBe(2);
    });

    it('passes the history of earlier runs to the model on a follow-up run', async () => {
      const first = await (await start(scriptedModel([answer('First run done')]))).run;
      const model = scriptedModel([answer('Follow-up done')]);
      const history: ModelMessage[] = first.messages;
      const result = await (await start(model, { history, prompts: ['Now the README'] })).run;
      const prompt = promptOf(model, 0);
      expect(prompt.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
      expect(userTexts(prompt)).toEqual(['Improve the docs', 'Now the README']);
      expect(JSON.stringify(prompt[2])).toContain('First run done');
      expect(result.messages).toHaveLength(4);
    });
  });
});
