import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../../test/support/repo-fixture.js';
import { createRedactor } from '../domain/redact.js';
import type { Workspace } from '../git/workspace.js';
import { describeForAgent, runJobChecks } from './index.js';
import { checkSummary } from './report.js';

/** A page that already held a broken anchor (as 7 of 29 pages of a real MkDocs site did). */
const GUIDE = '# Guide\n\nSome text.\n\nSee [the setup](setup.md#no-such-heading).\n';

let fixture: Fixture;

beforeAll(async () => {
  fixture = await createFixture(
    {
      files: {
        'mkdocs.yml': 'site_name: Acme\nnav:\n  - guide.md\n  - setup.md\n',
        'docs/guide.md': GUIDE,
        'docs/setup.md': '# Setup\n\n## Install\n',
      },
    },
    'agentjobs-checks-base-',
  );
});

afterAll(() => fixture.cleanup());

/** Runs the job's checks after `edit` changed its workspace. */
async function checksAfter(edit: (workspace: Workspace) => Promise<void>) {
  const workspace = await fixture.workspace();
  try {
    await edit(workspace);
    return await runJobChecks({
      workspace,
      baseRef: 'main',
      settings: { builtIn: true, command: null, timeoutSeconds: 60 },
      scratchDir: join(fixture.root, 'scratch'),
      sandbox: { memoryMb: 512, outputBytes: 65536 } as never,
      redact: createRedactor([]),
    });
  } finally {
    await workspace.close();
  }
}

describe('only the problems a change makes gate it', () => {
  it('passes a one-word fix in a page that already held a broken anchor, with the anchor as a note', async () => {
    const run = await checksAfter((workspace) =>
      // The edit adds a line above the old link, so its line number moves.
      workspace.writeFile('docs/guide.md', GUIDE.replace('Some text.', 'Some better text.\n\nMore.')),
    );
    expect(run.status).toBe('passed');
    const links = run.results.find((result) => result.name === 'links');
    expect(links?.status).toBe('passed');
    expect(links?.problems).toEqual([]);
    expect(links?.notes?.map((note) => note.message)).toEqual([
      expect.stringContaining('`#no-such-heading` is not a heading of docs/setup.md'),
    ]);
    // The agent is not sent to fix it; the pull request lists it as a note.
    expect(describeForAgent(run)).not.toContain('no-such-heading');
    expect(checkSummary(run, 'draft')).toContain('no-such-heading');
    expect(checkSummary(run, 'draft')).toMatch(/already there/i);
  });

  it('fails the same edit when it adds a broken link, and sends only that one to the agent', async () => {
    const run = await checksAfter((workspace) =>
      workspace.writeFile('docs/guide.md', `${GUIDE}\nAnd [the missing page](missing.md).\n`),
    );
    expect(run.status).toBe('failed');
    const links = run.results.find((result) => result.name === 'links');
    expect(links?.problems.map((problem) => problem.message)).toEqual([
      expect.stringContaining('`missing.md` leads to no file'),
    ]);
    expect(links?.notes).toHaveLength(1);
    const message = describeForAgent(run);
    expect(message).toContain('missing.md');
    expect(message).not.toContain('no-such-heading');
  });

  it('fails a second copy of a broken link the page already had: counted, not merely matched', async () => {
    const run = await checksAfter((workspace) =>
      workspace.writeFile('docs/guide.md', `${GUIDE}\nAgain [the setup](setup.md#no-such-heading).\n`),
    );
    expect(run.status).toBe('failed');
    const links = run.results.find((result) => result.name === 'links');
    expect(links?.problems).toHaveLength(1);
    expect(links?.notes).toHaveLength(1);
  });
});
