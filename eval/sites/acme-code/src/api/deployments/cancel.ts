import { ApiError, type Handler } from '../router.js';
import { findDeployment, saveDeployment } from '../store.js';

/**
 * POST /v1/deployments/{id}/cancel: stops a deployment that is not live yet. Only a deployment that
 * is `queued` or `building` can be cancelled; any other status answers 409 with the code
 * `not_cancellable`. The answer is the deployment, now `cancelled`.
 */
export const cancelDeployment: Handler<{ id: string }> = async (request) => {
  const deployment = await findDeployment(request.params.id);
  if (!deployment) throw new ApiError(404, 'not_found', `No deployment ${request.params.id}.`);
  if (deployment.status !== 'queued' && deployment.status !== 'building')
    throw new ApiError(409, 'not_cancellable', `The deployment is ${deployment.status}; it can no longer be cancelled.`);
  const cancelled = { ...deployment, status: 'cancelled' as const };
  await saveDeployment(cancelled);
  return { id: cancelled.id, status: cancelled.status, environment: cancelled.environment };
};
