/**
 * Accepting what holds a push-mode project's setup (docs/security.md, "Setup and the
 * environment"): a person who reviewed the setup inputs the service's commits changed lets the next
 * setup run them, with network. The same for `agentjobs project setup accept` and the dashboard.
 */
import { AppError } from '../domain/errors.js';
import type { SetupReview } from '../domain/project.js';
import type { Store } from '../store/store.js';

/** Clears the project's hold; returns what it held, or null when nothing waited. */
export async function acceptSetupReview(
  store: Pick<Store, 'projects'>,
  projectId: string,
): Promise<SetupReview | null> {
  const accepted = await store.projects.acceptSetup(projectId);
  if (accepted === undefined) throw new AppError('project_not_found', `No project ${projectId}.`);
  return accepted;
}

/** What the hold is about, in a clause, for the CLI and the dashboard. */
export function describeSetupReview(review: SetupReview): string {
  return `the service's own commits (jobs ${review.jobIds.join(', ')}) changed ${review.files.join(', ')}`;
}
