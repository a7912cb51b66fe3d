import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROJECT_CHECKS, type Project } from '../../src/domain/project.js';
import { createLocalHost } from '../../src/hosts/index.js';
import type { PullRequestRecords } from '../../src/hosts/types.js';
import { committedRepo } from '../support/e2e.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-local-check-'));
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, stdio: 'pipe' }).toString().trim();

const workingCopy = (name: string) => committedRepo(path.join(dir, name));

const project = (repository: string, overrides: Partial<Project> = {}): Project => ({
  id: 'p1',
  name: 'Docs',
  repository,
  host: 'local',
  baseBranch: 'main',
  publish: 'pull_request',
  allowedModels: null,
  defaultModel: null,
  hostSettings: {},
  hasHostToken: false,
  ...DEFAULT_PROJECT_CHECKS,
  dailyBudgetUsd: null,
  closePrOnArchive: true,
  mention: '@agentjobs',
  setupReview: null,
  quoteContext: false,
  createdAt: '',
  updatedAt: '',
  ...overrides,
});

// The check needs no database: pull requests are not touched.
const host = createLocalHost({ pullRequests: {} as PullRequestRecords, publicUrl: 'http://x' });
const check = (p: Project) => host.check?.(p) ?? Promise.resolve([]);
const byName = async (p: Project) => Object.fromEntries((await check(p)).map((c) => [c.name, c]));

describe('local host check', () => {
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds a bare repository ready for pull requests and dashboard merges', async () => {
    const bare = path.join(dir, 'bare.git');
    execFileSync('git', ['clone', '-q', '--bare', workingCopy('seed'), bare]);
    const found = await byName(project(bare));
    expect(found.read?.ok).toBe(true);
    expect(found.base?.ok).toBe(true);
    expect(found.pull_request).toMatchObject({ ok: true });
    expect(found.pull_request?.detail).toContain('merged from the dashboard');
  });

  it('says what is missing: no repository, no base branch', async () => {
    const [notRepo] = await check(project(path.join(dir, 'nowhere')));
    expect(notRepo).toMatchObject({ name: 'read', ok: false });
    const found = await byName(project(workingCopy('nobase'), { baseBranch: 'docs' }));
    expect(found.base).toMatchObject({ ok: false });
    expect(found.base?.detail).toContain('There is no branch docs');
  });

  it('asks a push project with a checked-out base for updateInstead', async () => {
    const repo = workingCopy('push');
    const refused = await byName(project(repo, { publish: 'push' }));
    expect(refused.push?.ok).toBe(false);
    expect(refused.push?.detail).toContain('git config receive.denyCurrentBranch updateInstead');
    git(repo, 'config', 'receive.denyCurrentBranch', 'updateInstead');
    expect((await byName(project(repo, { publish: 'push' }))).push?.ok).toBe(true);
  });
});
