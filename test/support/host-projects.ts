import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CodeHostKind, DEFAULT_PROJECT_CHECKS, type Project } from '../../src/domain/project.js';

/** A project on `host` as the code hosts receive it, without a database. */
export function hostProject(
  host: CodeHostKind,
  repository: string,
  hostSettings: Record<string, unknown> = {},
): Project {
  const now = new Date().toISOString();
  return {
    id: `p_${host}`,
    name: 'Docs',
    repository,
    host,
    baseBranch: 'main',
    publish: 'pull_request',
    allowedModels: null,
    defaultModel: null,
    hostSettings,
    hasHostToken: true,
    ...DEFAULT_PROJECT_CHECKS,
    dailyBudgetUsd: null,
    closePrOnArchive: true,
    mention: '@agentjobs',
    setupReview: null,
    quoteContext: false,
    createdAt: now,
    updatedAt: now,
  };
}

/** A loopback URL nothing listens on: a port that was free a moment ago. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
