/**
 * A project's hook secret, the one the code hosts' webhooks into it carry, made the same way from
 * the dashboard's button and `agentjobs project hook-secret`: it is shown only when made; a
 * project that has one keeps it unless the caller asks to rotate it (the old one stops at once).
 */
import { AppError } from '../domain/errors.js';
import type { SecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';

/** What making a hook secret needs. */
export interface HookSecretDeps {
  store: Pick<Store, 'projects'>;
  secrets: () => SecretBox;
}

/** The new secret (null when the project keeps the one it has), and whether it replaced one. */
export interface HookSecretResult {
  secret: string | null;
  rotated: boolean;
}

/** Makes the project's hook secret, or a new one with `rotate`. @throws AppError `project_not_found` */
export async function makeHookSecret(
  deps: HookSecretDeps,
  projectId: string,
  options: { rotate: boolean },
): Promise<HookSecretResult> {
  const missing = () => new AppError('project_not_found', `No project ${projectId}.`);
  if (!(await deps.store.projects.get(projectId))) throw missing();
  const had = await deps.store.projects.hasHookSecret(projectId);
  if (had && !options.rotate) return { secret: null, rotated: false };
  const secret = await deps.store.projects.rotateHookSecret(projectId, deps.secrets());
  if (!secret) throw missing();
  return { secret, rotated: had };
}
