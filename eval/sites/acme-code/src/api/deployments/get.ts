import { ApiError, type Handler } from '../router.js';
import { findDeployment } from '../store.js';

/** GET /v1/deployments/{id}: one deployment and its status. */
export const getDeployment: Handler<{ id: string }> = async (request) => {
  const deployment = await findDeployment(request.params.id);
  if (!deployment) throw new ApiError(404, 'not_found', `No deployment ${request.params.id}.`);
  return { id: deployment.id, status: deployment.status, url: deployment.url };
};
