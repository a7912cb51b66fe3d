import { APICallError, type ModelMessage } from 'ai';
import type { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answer,
  brokenOff,
  callsOf,
  callTools,
  createFixture,
  type Fixture,
  type ModelTurn,
  mockModel,
  scriptedModel,
  streamingModel,
} from '../../test/support/agent-fixture.js';
import type { EventType } from '../store/events.js';
import { AgentError, type AgentLimits, type AgentResult, type RunAgentOptions, runAgent } from './loop.js';
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

type Recorded = { type: EventType; data: Record<string, unknown> };

/** Runs the agent over a fresh workspace, recording events; `overrides` replace any option. */
async function startAgent(model: MockLanguageModelV3, overrides: Partial<RunAgentOptions> = {}) {
  const events: Recorded[] = [];
  const workspace = await fixture.workspace({ maxFileBytes: 4096 });
  const run = runAgent({
    model,
    workspace,
    history: [],
    prompts: ['Improve the docs'],
    takePendingPrompts: async () => [],
    limits: LIMITS,
    signal: new AbortController().signal,
    onEvent: async (type, data) => void events.push({ type, data }),
    ...overrides,
  });
  return { run, events, workspace };
}

/** The error a run ended with. */
async function failure(run: Promise<AgentResult>): Promise<AgentError> {
  const error = await run.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AgentError);
  return error as AgentError;
}

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
  /** `startAgent` in this mode. */
  const start = (model: MockLanguageModelV3, overrides: Partial<RunAgentOptions> = {}) =>
    startAgent(model, { stream, ...overrides });

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
      expect(result.usage).toEqual({ inputTokens: 400, outputTokens: 80, steps: 4 });
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
      expect(events.at(-1)?.data).toEqual({ inputTokens: 400, outputTokens: 80, steps: 4 });

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

  describe('runAgent limits and failures', () => {
    const looping = () => mockModel(async () => callTools([['list_files', { path: 'docs' }]]));

    it('ends with step_limit when the steps run out', async () => {
      const model = looping();
      const { run, events } = await start(model, { limits: { ...LIMITS, maxSteps: 3 } });
      const error = await failure(run);
      expect(error.code).toBe('step_limit');
      expect(error.isRetryable).toBe(false);
      expect(callsOf(model)).toHaveLength(3);
      expect(error.partial?.usage.steps).toBe(3);
      // The failure is reported once, by whoever records it (the worker), not by the agent too.
      expect(events.some((event) => event.type === 'error')).toBe(false);
    });

    it('ends with token_limit once the tokens are spent', async () => {
      const model = mockModel(async () =>
        callTools([['list_files', { path: 'docs' }]], { tokens: [50_000, 20] }),
      );
      const error = await failure((await start(model, { limits: { ...LIMITS, maxTokens: 100_000 } })).run);
      expect(error.code).toBe('token_limit');
      expect(callsOf(model)).toHaveLength(2);
      expect(error.partial?.usage).toEqual({ inputTokens: 100_000, outputTokens: 40, steps: 2 });
    });

    it('counts what it sent when the provider reports fewer tokens, so the limit still holds', async () => {
      // A provider that says every call cost one token: only the estimate of what was sent counts.
      const model = mockModel(async () => callTools([['list_files', { path: 'docs' }]], { tokens: [1, 1] }));
      const error = await failure((await start(model, { limits: { ...LIMITS, maxTokens: 5000 } })).run);
      expect(error.code).toBe('token_limit');
      expect(error.partial?.usage.inputTokens).toBeLessThan(20);
      expect(callsOf(model).length).toBeLessThan(10);
    });

    it('refuses the change over maxFilesChanged and ends with files_limit', async () => {
      const model = scriptedModel([
        callTools([
          ['write_file', { path: 'a.md', content: 'a' }],
          ['write_file', { path: 'b.md', content: 'b' }],
          ['write_file', { path: 'c.md', content: 'c' }],
        ]),
        answer('never reached'),
      ]);
      const { run, workspace } = await start(model, { limits: { ...LIMITS, maxFilesChanged: 2 } });
      const error = await failure(run);
      expect(error.code).toBe('files_limit');
      expect(callsOf(model)).toHaveLength(1);
      expect(workspace.changedPaths()).toEqual(['a.md', 'b.md']);
      expect(error.partial?.filesChanged).toEqual(['a.md', 'b.md']);
      const last = error.partial?.messages.at(-1);
      expect(JSON.stringify(last)).toContain('may change at most 2 files');
    });

    /** A model call that only ends when its abort signal fires. */
    const hanging = () =>
      mockModel(
        ({ abortSignal }) =>
          new Promise<ModelTurn>((_, reject) =>
            abortSignal?.addEventListener('abort', () => reject(abortSignal.reason), { once: true }),
          ),
      );

    it('ends with time_limit when the wall clock runs out mid-call', async () => {
      const began = Date.now();
      const error = await failure((await start(hanging(), { limits: { ...LIMITS, maxWallMs: 200 } })).run);
      expect(error.code).toBe('time_limit');
      expect(Date.now() - began).toBeLessThan(2000);
    });

    it('ends with aborted within 2 s of the signal, even when the provider ignores it', async () => {
      for (const model of [hanging(), mockModel(() => new Promise(() => {}))]) {
        const controller = new AbortController();
        const { run, events } = await start(model, { signal: controller.signal });
        setTimeout(() => controller.abort(), 50);
        const began = Date.now();
        const error = await failure(run);
        expect(error.code).toBe('aborted');
        expect(Date.now() - began).toBeLessThan(2000);
        expect(events.some((event) => event.type === 'error')).toBe(false);
      }
    });

    it('turns a provider error into model_error after the retries, without keys', async () => {
      const model = mockModel(async () => {
        throw new APICallError({
          message: 'Overloaded; key sk-ant-api03-abcdefghijklmnopqrstuvwxyz was fine',
          url: 'https://api.example.com/v1/messages',
          requestBodyValues: {},
          statusCode: 500,
          // Keeps the SDK's backoff to a millisecond in the test.
          responseHeaders: { 'retry-after-ms': '1' },
        });
      });
      const { run, events } = await start(model, { modelOutageWaitMs: 0 });
      const error = await failure(run);
      expect(error.code).toBe('model_error');
      expect(error.isRetryable).toBe(true);
      expect(callsOf(model)).toHaveLength(4);
      expect(error.message).toMatch(/after 4 attempts \(HTTP 500\): Overloaded/);
      expect(error.message).not.toContain('sk-ant-');
      expect(JSON.stringify(events)).not.toContain('sk-ant-');
    });

    it('marks a bad request as a model_error that is not retryable, after one call', async () => {
      const model = mockModel(async () => {
        throw new APICallError({
          message: 'Bad tool schema',
          url: 'x',
          requestBodyValues: {},
          statusCode: 400,
        });
      });
      const error = await failure((await start(model)).run);
      expect(error).toMatchObject({ code: 'model_error', isRetryable: false });
      expect(callsOf(model)).toHaveLength(1);
    });

    it('ends with model_error when the provider fails at a later step, keeping the steps before it', async () => {
      let calls = 0;
      const model = mockModel(async () => {
        calls += 1;
        if (calls === 1) return callTools([['list_files', { path: 'docs' }]]);
        throw new APICallError({ message: 'Bad request', url: 'x', requestBodyValues: {}, statusCode: 400 });
      });
      const { run, events } = await start(model);
      const error = await failure(run);
      expect(error).toMatchObject({ code: 'model_error', isRetryable: false });
      expect(error.message).toMatch(/\(HTTP 400\): Bad request/);
      expect(callsOf(model)).toHaveLength(2);
      expect(events.map((event) => event.type)).toEqual(['tool_call', 'tool_result', 'usage']);
      expect(error.partial?.usage.steps).toBe(1);
      expect(error.partial?.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    });

    it('rethrows an error from the event sink as it is', async () => {
      const lost = new Error('lease lost');
      const model = looping();
      const { run } = await start(model, {
        onEvent: async () => {
          throw lost;
        },
      });
      await expect(run).rejects.toBe(lost);
      expect(callsOf(model)).toHaveLength(1);
    });

    it('rethrows an error from takePendingPrompts as it is', async () => {
      const lost = new Error('database gone');
      const model = looping();
      let asked = 0;
      const { run, events } = await start(model, {
        takePendingPrompts: async () => {
          asked += 1;
          if (asked === 2) throw lost;
          return [];
        },
      });
      await expect(run).rejects.toBe(lost);
      expect(callsOf(model)).toHaveLength(1);
      expect(events.some((event) => event.type === 'error')).toBe(false);
    });
  });
});

// What only a streamed answer can do: break off midway. (round.test.ts has the other failures.)
describe('runAgent with a streamed answer that breaks off', () => {
  it('ends with model_error, the broken step adding nothing to the run', async () => {
    const model = streamingModel(
      brokenOff({ type: 'overloaded_error', message: 'Overloaded sk-ant-api03-abcdefghijklmnopqrstuv' }),
    );
    const { run, events } = await startAgent(model, { modelOutageWaitMs: 0 });
    const error = await failure(run);
    expect(error).toMatchObject({ code: 'model_error', isRetryable: true });
    expect(error.message).toMatch(/while streaming its answer: Overloaded \[redacted\]/);
    // Like a failed call for a whole answer: no events, usage or messages of its own.
    expect(events).toEqual([]);
    expect(error.partial?.usage).toEqual({ inputTokens: 0, outputTokens: 0, steps: 0 });
    expect(error.partial?.messages.map((message) => message.role)).toEqual(['user']);
  });
});
