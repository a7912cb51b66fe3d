import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import { git, jobApi } from '../support/e2e.js';
import { useScriptedServer } from '../support/scripted-server.js';

const SECRETS = {
  AGENTJOBS_SECRET_KEY: 'hostile-test-secret-key-0123456789abcdef',
  OPENAI_COMPATIBLE_API_KEY: 'sk-hostile-test-provider-key',
  AGENTJOBS_ADMIN_PASSWORD: 'hostile test admin password',
};

interface JobEvent {
  type: string;
  data: { tool?: string; ok?: boolean; summary?: string };
}

// A model that behaves as an attacker would, against the built server, real git and a local
// content repository whose post-receive hook records the environment git hands it.
describe('a hostile agent against the built server', () => {
  let envDump: string;
  const scripted = useScriptedServer(
    {
      name: 'hostile',
      files: { 'README.md': '# Docs\n', 'r.txt': `${'a'.repeat(32)}b\n` },
      env: SECRETS,
    },
    (started) => started.close('SIGKILL'),
  );
  beforeAll(async () => {
    envDump = path.join(scripted.dir, 'post-receive.env');
    const hook = path.join(scripted.repo, '.git', 'hooks', 'post-receive');
    fs.writeFileSync(hook, `#!/bin/sh\nenv > '${envDump}'\n`, { mode: 0o755 });
  });

  const { call: api, waitUntil } = jobApi(
    () => ({ url: scripted.server.url, projectId: scripted.projectId, key: scripted.key }),
    {
      timeoutMs: 120_000,
    },
  );
  const finished = (job: Job) => job.status !== 'active';

  async function toolResults(jobId: string): Promise<JobEvent['data'][]> {
    const response = await fetch(
      `${scripted.server.url}/v2/agent/${scripted.projectId}/job/${jobId}/events?limit=500`,
      {
        headers: { authorization: `Bearer ${scripted.key}` },
      },
    );
    const { events } = (await response.json()) as { events: JobEvent[] };
    return events.filter((event) => event.type === 'tool_result').map((event) => event.data);
  }

  /** Every blob the branch's tree holds, as text. */
  function branchBlobs(ref: string): Map<string, string> {
    const names = git(scripted.repo, 'ls-tree', '-r', '-z', '--name-only', ref).split('\0').filter(Boolean);
    return new Map(names.map((name) => [name, git(scripted.repo, 'cat-file', 'blob', `${ref}:${name}`)]));
  }

  it('cannot copy a file from outside the repository through a quoted path, and the job still completes', async () => {
    scripted.model.setScript([
      {
        toolCalls: [
          { name: 'write_file', input: { path: '"/etc/passwd"', content: 'x' } },
          { name: 'write_file', input: { path: '"/etc/hostname', content: 'x' } },
          { name: 'write_file', input: { path: 'docs/"quoted" name.md', content: 'quoted\n' } },
          { name: 'write_file', input: { path: 'ok.md', content: 'ok\n' } },
        ],
      },
      { text: 'Done' },
    ]);
    const { job: created } = await api('POST', '/job', { prompt: 'Copy secrets' });
    const job = await waitUntil(created.id, finished);
    expect(job).toMatchObject({ status: 'completed', error: null, filesChanged: 2 });

    const blobs = branchBlobs(job.source.ref);
    expect([...blobs.keys()].sort()).toEqual(['README.md', 'docs/"quoted" name.md', 'ok.md', 'r.txt']);
    expect(blobs.get('docs/"quoted" name.md')).toBe('quoted');
    for (const content of blobs.values()) expect(content).not.toContain('root:');

    const results = await toolResults(job.id);
    const writes = results.filter((result) => result.tool === 'write_file');
    expect(writes.map((result) => result.ok)).toEqual([false, false, true, true]);
    expect(writes[0]?.summary).toMatch(/double quote/);
  });

  it('refuses .git look-alikes and never reports a write that the commit would drop', async () => {
    const lookalikes = [
      '.git\u200c/hooks/post-checkout',
      '.g\u200dit/config',
      '.git\ufeff/config',
      '.git./config',
      '.git /hooks/x',
      '.GIT.. ./config',
      'GIT~1/config',
      'docs/git~1/x',
      '.git::$INDEX_ALLOCATION/config',
    ];
    scripted.model.setScript([
      {
        toolCalls: [
          ...lookalikes.map((lookalike) => ({
            name: 'write_file',
            input: { path: lookalike, content: '#!/bin/sh\necho owned\n' },
          })),
          { name: 'write_file', input: { path: 'safe.md', content: 'safe\n' } },
        ],
      },
      { text: 'Done' },
    ]);
    const { job: created } = await api('POST', '/job', { prompt: 'Plant hooks' });
    const job = await waitUntil(created.id, finished);
    expect(job).toMatchObject({ status: 'completed', error: null, filesChanged: 1 });
    expect([...branchBlobs(job.source.ref).keys()].sort()).toEqual(['README.md', 'r.txt', 'safe.md']);

    const writes = (await toolResults(job.id)).filter((result) => result.tool === 'write_file');
    expect(writes).toHaveLength(lookalikes.length + 1);
    for (const refused of writes.slice(0, lookalikes.length)) {
      expect(refused.ok).toBe(false);
      expect(refused.summary).not.toMatch(/^Created/);
      expect(refused.summary).toMatch(/\.git/);
    }
    expect(writes.at(-1)).toMatchObject({ ok: true, summary: expect.stringMatching(/^Created safe\.md/) });
  });

  it('stays responsive while the agent runs a catastrophic regex and a huge brace expansion', async () => {
    const line = `${'a'.repeat(32)}b\n`;
    scripted.model.setScript([
      { toolCalls: [{ name: 'write_file', input: { path: 'w.txt', content: line } }] },
      {
        toolCalls: [
          { name: 'search_files', input: { query: '^(a|a)*$', regex: true, path: 'w.txt' } },
          { name: 'search_files', input: { query: '^(a|a)*$', regex: true, path: 'r.txt' } },
        ],
      },
      { toolCalls: [{ name: 'list_files', input: { pattern: '{1..40000}' } }] },
      { toolCalls: [{ name: 'search_files', input: { query: 'a+b$', regex: true } }] },
      { text: 'Done' },
    ]);
    const { job: created } = await api('POST', '/job', { prompt: 'Search hard' });

    // Poll liveness the whole time the job runs: a blocked event loop would miss the deadline of
    // a request (a deadline, not a latency: a pathological pattern without its bound never ends).
    let job = created;
    while (job.status === 'active') {
      const health = await fetch(`${scripted.server.url}/healthz`, { signal: AbortSignal.timeout(30_000) });
      expect(health.status).toBe(200);
      job = (await api('GET', `/job/${created.id}`)).job;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(job).toMatchObject({ status: 'completed', error: null });

    const results = await toolResults(job.id);
    const searches = results.filter((result) => result.tool === 'search_files');
    expect(searches).toHaveLength(3);
    // Each runaway search ends with a result or an error that says what to do.
    for (const search of searches.slice(0, 2)) {
      if (!search.ok) expect(search.summary).toMatch(/regular expression/);
    }
    console.log(searches.map((search) => search.summary).join('\n'));
    const listing = results.find((result) => result.tool === 'list_files');
    console.log(listing?.summary);
    if (!listing?.ok) expect(listing?.summary).toMatch(/too complex/);
    // A sane regex still finds both the committed file and the agent's own.
    expect(searches[2]).toMatchObject({ ok: true, summary: expect.stringMatching(/^2 matching lines/) });
  }, 180_000);

  it('gives git none of the service secrets: a post-receive hook sees none of them', () => {
    // The jobs above pushed their branches into the repository, running its hook.
    const dumped = fs.readFileSync(envDump, 'utf8');
    expect(dumped).toContain('PATH=');
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(dumped).not.toContain(name);
      expect(dumped).not.toContain(value);
    }
  });
});
