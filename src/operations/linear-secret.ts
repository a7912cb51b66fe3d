/**
 * A project's Linear secret (docs/automations.md, "Linear"): the signing secret Linear shows when
 * its webhook is made, set the same way from the CLI (`agentjobs project linear-secret`), the
 * dashboard's project settings and the API (`PUT /v2/agent/{projectId}/linear/secret`). Linear
 * makes it, so it is set, not generated; it is never shown back. Clearing it refuses Linear's
 * deliveries from then on.
 */
import { AppError } from '../domain/errors.js';
import type { SecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';

/** What setting a Linear secret needs. */
export interface LinearSecretDeps {
  store: Pick<Store, 'projects' | 'linearSecrets'>;
  secrets: () => SecretBox;
}

/** Linear's signing secrets are `lin_wh_` and some 32 characters or more; any printable text of a sane length is taken. */
const SECRET = /^[\x21-\x7e]{16,256}$/;

const missing = (projectId: string) => new AppError('project_not_found', `No project ${projectId}.`);

/**
 * Sets the project's Linear secret, in place of any it had.
 * @throws AppError `project_not_found`, `invalid_request` (not a secret: too short, too long, spaces)
 */
export async function setLinearSecret(
  deps: LinearSecretDeps,
  projectId: string,
  secret: string,
): Promise<void> {
  if (!(await deps.store.projects.get(projectId))) throw missing(projectId);
  const trimmed = secret.trim();
  if (!SECRET.test(trimmed)) {
    const message =
      'must be the signing secret Linear shows for the webhook: 16 to 256 characters, no spaces';
    throw new AppError('invalid_request', `secret ${message}`, {
      details: [{ path: 'body.secret', message }],
    });
  }
  await deps.store.linearSecrets.set(projectId, trimmed, deps.secrets());
}

/** Removes the project's Linear secret; false when it had none. @throws AppError `project_not_found` */
export async function clearLinearSecret(deps: LinearSecretDeps, projectId: string): Promise<boolean> {
  if (!(await deps.store.projects.get(projectId))) throw missing(projectId);
  return deps.store.linearSecrets.clear(projectId);
}
