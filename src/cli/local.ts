import { loadConfig } from '../config.js';
import type { Store } from '../store/store.js';
import { CliError } from './output.js';

/** Runs `fn` against the service's own database (the admin commands work without a server). */
export async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  // Loaded here, not at the top: most commands are clients of the API and never open a database.
  const { openStore } = await import('../store/open.js');
  const store = await openStore(loadConfig());
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

export async function requireProject(store: Store, projectId: string) {
  const project = await store.projects.get(projectId);
  if (!project)
    throw new CliError(
      `No project ${projectId}. List them with: agentjobs project list`,
      'project_not_found',
    );
  return project;
}
