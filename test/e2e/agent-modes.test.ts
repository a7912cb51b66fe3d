import { beforeAll, describe, expect, it } from 'vitest';
import { git } from '../support/e2e.js';
import { useScriptedServer } from '../support/scripted-server.js';

/** The agent's own events, as the job stores them. */
const AGENT_EVENTS = new Set(['message', 'tool_call', 'tool_result', 'plan', 'usage', 'error']);

const MODES: { mode: string; env: Record<string, string>; streamed: boolean }[] = [
  { mode: 'streamed (the default)', env: {}, streamed: true },
  {
    mode: 'whole (AGENTJOBS_MODEL_STREAMING=false)',
    env: { AGENTJOBS_MODEL_STREAMING: 'false' },
    streamed: false,
  },
];

// The built server against the scripted OpenAI-compatible model, once with the model's answers
// streamed (the default) and once whole (AGENTJOBS_MODEL_STREAMING=false): the same job must give
// the same pull request and the same events either way. SQLite in the data directory.
describe.each(MODES)('a job with the model answers $mode', ({ env: modeEnv, streamed }) => {
  let baseSha: string;
  const scripted = useScriptedServer({
    name: 'modes-e2e',
    files: { 'README.md': '# Docs\n\nWelcome.\n', 'guide/install.md': '# Install\n\nRun npm install.\n' },
    env: modeEnv,
  });
  beforeAll(async () => {
    baseSha = git(scripted.repo, 'rev-parse', 'main');
  });

  const get = async (url: string) => {
    const response = await fetch(`${scripted.server.url}/v2/agent/${scripted.projectId}${url}`, {
      headers: { authorization: `Bearer ${scripted.key}` },
    });
    return response.json();
  };

  it('runs the job to a pull request holding exactly the scripted change', async () => {
    scripted.model.setScript([
      { toolCalls: [{ name: 'read_file', input: { path: 'guide/install.md' } }] },
      {
        text: 'Writing the FAQ now.',
        toolCalls: [
          {
            name: 'write_file',
            input: { path: 'guide/faq.md', content: '# FAQ\n\nHow do I install? See install.md.\n' },
          },
        ],
      },
      { text: 'Add an FAQ page\n\nI added guide/faq.md with the install question.' },
    ]);
    const created = await scripted.api.call('POST', '/job', { prompt: 'Add an FAQ page' });
    expect(created.status).toBe(201);
    const job = await scripted.api.waitUntil(
      created.job.id,
      (current) => current.status !== 'active',
      20_000,
    );

    expect(job).toMatchObject({
      status: 'completed',
      title: 'Add an FAQ page',
      filesChanged: 1,
      error: null,
      summary: expect.stringContaining('guide/faq.md'),
    });
    // The scripted model counts 10 + 5 tokens a request: streamed answers carry them too.
    expect(job.usage).toEqual({
      inputTokens: 30,
      outputTokens: 15,
      cachedInputTokens: 0,
      steps: 3,
      costUsd: null,
    });
    expect(job.prLink).toBe(`${scripted.server.url}/ui/projects/${scripted.projectId}/pulls/1`);
    expect(git(scripted.repo, 'rev-parse', 'main')).toBe(baseSha);
    expect(git(scripted.repo, 'diff', '--name-status', `main...${job.source.ref}`)).toBe('A\tguide/faq.md');
    expect(git(scripted.repo, 'show', `${job.source.ref}:guide/faq.md`)).toContain('How do I install?');

    // The model was asked in this mode, every time.
    expect(scripted.model.requests).toHaveLength(3);
    for (const { body } of scripted.model.requests) {
      if (streamed) {
        expect(body.stream).toBe(true);
        expect(body.stream_options).toEqual({ include_usage: true });
      } else {
        expect(body.stream).not.toBe(true);
      }
    }

    // The same events either way: one set per finished step.
    const { events } = (await get(`/job/${job.id}/events`)) as {
      events: { type: string; data: Record<string, unknown> }[];
    };
    const activity = events.filter((event) => AGENT_EVENTS.has(event.type));
    expect(activity.map((event) => event.type)).toEqual([
      ...['tool_call', 'tool_result', 'usage'],
      ...['message', 'tool_call', 'tool_result', 'usage'],
      ...['message', 'usage'],
    ]);
    expect(activity[3]?.data).toEqual({ role: 'assistant', text: 'Writing the FAQ now.' });
    expect(activity.at(-1)?.data).toEqual({
      inputTokens: 30,
      outputTokens: 15,
      cachedInputTokens: 0,
      steps: 3,
      costUsd: null,
    });
  });
});
