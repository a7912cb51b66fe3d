/**
 * Receiving one Linear webhook delivery (docs/automations.md, "Linear"), with no server in sight:
 * the route hands it the project, the headers and the raw body. In order:
 * 1. the project must exist (`project_not_found`);
 * 2. the project must have a Linear secret, and the delivery must carry Linear's signature of
 *    the raw bytes under it (`unauthorized`, checked in constant time before the body is read);
 * 3. the body's `webhookTimestamp` must be within a minute of now (`unauthorized`: a stale
 *    delivery may be a captured one sent again);
 * 4. the event is read (`Issue` created, or labelled; anything else is `ignored`) and recorded
 *    once per delivery id, like a code host's (`store.hostEvents`, host `linear`); the automations
 *    take it from there (`operations/host-events.ts`).
 * A refused delivery records nothing.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../domain/errors.js';
import { parseJsonBytes } from '../domain/json.js';
import { HookPayloadError } from '../hosts/hooks/index.js';
import {
  LINEAR_TIMESTAMP_TOLERANCE_MS,
  linearTimestampSkew,
  readLinearHook,
  verifyLinearSignature,
} from '../hosts/hooks/linear.js';
import type { RecordResult } from '../store/host-events.js';
import type { SecretBox } from '../store/secrets.js';
import type { Store } from '../store/store.js';
import type { ReceivedHook } from './hook-receipt.js';

/** What receiving a Linear delivery needs. */
export interface LinearReceiptDeps {
  store: Pick<Store, 'projects' | 'linearSecrets' | 'hostEvents'>;
  secrets: () => SecretBox;
  /** Called once a delivery is recorded, or found to be a repeat (where a `duplicate` run is noted). */
  onRecorded?: (result: RecordResult) => void | Promise<void>;
  /** The clock the timestamp is checked against; tests move it. */
  now?: () => Date;
}

/** One Linear delivery as it arrived. */
export interface LinearDelivery {
  projectId: string;
  headers: IncomingHttpHeaders;
  /** The body's bytes, exactly as sent: the signature is over them. */
  body: Buffer;
}

async function provenSecret(deps: LinearReceiptDeps, delivery: LinearDelivery): Promise<string> {
  const { projectId } = delivery;
  const project = await deps.store.projects.get(projectId);
  if (!project) throw new AppError('project_not_found', `No project ${projectId}.`);
  const secret = await deps.store.linearSecrets.secret(project.id, deps.secrets());
  if (secret === null)
    throw new AppError(
      'unauthorized',
      `The project has no Linear secret: set the signing secret of its Linear webhook with \`agentjobs project linear-secret ${project.id}\`, the dashboard's project settings, or PUT /v2/agent/${project.id}/linear/secret.`,
    );
  if (!verifyLinearSignature(delivery.headers, delivery.body, secret))
    throw new AppError(
      'unauthorized',
      "The Linear-Signature header is missing or wrong for this project's Linear secret.",
    );
  return secret;
}

function readPayload(body: Buffer, now: Date): unknown {
  const payload = parseJsonBytes(body);
  const skew = linearTimestampSkew(payload, now);
  if (skew === null || skew > LINEAR_TIMESTAMP_TOLERANCE_MS)
    throw new AppError(
      'unauthorized',
      skew === null
        ? 'The Linear delivery has no webhookTimestamp; it is refused as it cannot be told from a replay.'
        : `The Linear delivery is stale: its webhookTimestamp is ${Math.round(skew / 1000)} s from now (at most ${LINEAR_TIMESTAMP_TOLERANCE_MS / 1000} s is taken).`,
    );
  return payload;
}

/**
 * Receives a delivery.
 * @throws AppError `project_not_found`, `unauthorized`, `invalid_json`, `invalid_request`
 */
export async function receiveLinearHook(
  deps: LinearReceiptDeps,
  delivery: LinearDelivery,
): Promise<ReceivedHook> {
  await provenSecret(deps, delivery);
  const payload = readPayload(delivery.body, deps.now?.() ?? new Date());
  let read: ReturnType<typeof readLinearHook>;
  try {
    read = readLinearHook(delivery.headers, delivery.body, payload);
  } catch (error) {
    if (error instanceof HookPayloadError)
      throw new AppError('invalid_request', error.message, {
        details: [{ path: error.path ? `body.${error.path}` : 'body', message: error.message }],
      });
    throw error;
  }
  const { deliveryId, eventName } = read;
  if (read.kind === 'ignored')
    return {
      receipt: { outcome: 'ignored', duplicate: false, eventId: null, reason: read.reason },
      deliveryId,
      eventName,
    };
  const result = await deps.store.hostEvents.record({
    projectId: delivery.projectId,
    host: 'linear',
    deliveryId,
    event: read.event,
  });
  await deps.onRecorded?.(result);
  return {
    receipt: {
      outcome: result.duplicate ? 'duplicate' : 'recorded',
      duplicate: result.duplicate,
      eventId: result.event.id,
      reason: null,
    },
    deliveryId,
    eventName,
  };
}
