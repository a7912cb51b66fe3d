/**
 * The Slack dispatcher: a background loop (`background/loop.ts`) woken when an event is recorded,
 * that claims recorded events under a lease and handles each once: a post runs the automations
 * that watch its channel (`automation-trigger.ts`), any other message asks for work (`handle.ts`). A try that fails
 * (Slack or the database away, a draining process) is tried again later, at most `MAX_ATTEMPTS`
 * times; what came of each event is kept on its row.
 */
import { type BackgroundLoop, backgroundLoop } from '../../background/loop.js';
import type { AutomationConfig } from '../../config/config.js';
import type { Logger } from '../../log.js';
import { SLACK_EVENTS_CHANNEL } from '../../store/channels.js';
import { runSlackAutomations } from './automation-trigger.js';
import { handleSlackMessage, type SlackHandlerDeps } from './handle.js';

const BATCH = 20;
const MAX_ATTEMPTS = 5;
const RETRY_MS = 5_000;
/** How often the loop forgets event ids past their retention. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export function createSlackDispatcher(
  deps: SlackHandlerDeps & { automations: AutomationConfig; logger: Logger; pollMs: number },
): BackgroundLoop {
  const { store, logger } = deps;
  let prunedAt = 0;
  return backgroundLoop({
    name: 'handling Slack events',
    logger,
    pollMs: deps.pollMs,
    listen: { db: store.db, channel: SLACK_EVENTS_CHANNEL },
    async pass() {
      if (Date.now() - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = Date.now();
        await store.slack.pruneEvents();
      }
      const events = await store.slack.claimEvents(BATCH);
      for (const { eventId, message, attempts } of events) {
        try {
          const outcome =
            message.kind === 'post'
              ? await runSlackAutomations(deps, message)
              : await handleSlackMessage(deps, eventId, message);
          await store.slack.markProcessed(eventId, outcome);
          logger.info({ eventId, kind: message.kind, channel: message.channelId, outcome }, 'Slack event');
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          if (attempts >= MAX_ATTEMPTS) {
            logger.error({ err: error, eventId }, 'a Slack event failed every try; it is dropped');
            await store.slack.markProcessed(eventId, `failed: ${reason}`);
          } else {
            logger.warn({ err: error, eventId, attempts }, 'a Slack event failed; it is tried again');
            await store.slack.retryLater(eventId, reason, new Date(Date.now() + RETRY_MS * attempts));
          }
        }
      }
      return { more: events.length === BATCH };
    },
  });
}
