/**
 * Notification channels (see `Db.notify`). The payload is a hint for logs; listeners re-read the
 * database rather than trust it.
 */

/** A job became claimable: created, followed up, released by a stopping worker, or reclaimed. Payload: the job id. */
export const JOBS_CHANNEL = 'agentjobs_jobs';

/** A webhook delivery became due: an event was written to the outbox, or one was redelivered. Payload: an id. */
export const WEBHOOKS_CHANNEL = 'agentjobs_webhooks';

/** An archived job's pull request is due to be closed (`jobs.archive`). Payload: the job id. */
export const PR_CLOSES_CHANNEL = 'agentjobs_pr_closes';

/** A code host's event was recorded (`hostEvents.record`) and waits for the automations. Payload: its id. */
export const HOST_EVENTS_CHANNEL = 'agentjobs_host_events';

/** A Slack event was recorded (`slack.recordEvent`) and waits for the Slack dispatcher. Payload: its event id. */
export const SLACK_EVENTS_CHANNEL = 'agentjobs_slack_events';
