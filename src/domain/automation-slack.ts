/**
 * Automations and Slack (docs/automations.md#slack): the `slack` trigger (each new top-level
 * message in a channel is a run), its `{{message.*}}` placeholders, and the `notify` setting (a
 * short message to a channel when a run's pull request opens, is merged, or its run fails). Pure:
 * no I/O, imports nothing of ours.
 */

/** `{ type: "slack" }`: each new top-level message by a person in `channel` is a run. */
export interface SlackTrigger {
  type: 'slack';
  /** A Slack channel id (`C…`, `G…`), mapped to the automation's project. */
  channel: string;
}

/** Where an automation posts what became of its runs; null: nowhere. */
export interface AutomationNotify {
  /** A Slack channel id mapped to the automation's project. */
  slack: string | null;
}

export const NO_NOTIFY: AutomationNotify = { slack: null };

/** The placeholders a Slack message fills. */
export const SLACK_MESSAGE_PLACEHOLDERS = [
  'message.text',
  'message.user',
  'message.channel',
  'message.link',
] as const;

/** The Slack message that started a run, as its template sees it. */
export interface SlackMessageContext {
  text: string;
  /** The author's Slack user id. */
  user: string;
  channel: string;
  link: string;
}

/**
 * The message's address. Slack's permalinks name the workspace's own host; `slack.com/archives`
 * sends a signed-in reader there, so the link needs no call to Slack.
 */
export const slackMessageLink = (channel: string, ts: string): string =>
  `https://slack.com/archives/${channel}/p${ts.replace('.', '')}`;

/** The run's key: one run per message, whatever the deliveries (see docs/security.md). */
export const slackRunKey = (channel: string, ts: string): string => `slack:${channel}:${ts}`;

/** What a notice is about. */
export const NOTICE_HAPPENINGS = ['pr_opened', 'pr_merged', 'run_failed'] as const;
export type NoticeHappening = (typeof NOTICE_HAPPENINGS)[number];

/** A happening worth a notice, before it is recorded: `subject` makes it one of a kind. */
export interface NoticeDraft {
  automationId: string;
  projectId: string;
  /** Null for a run that failed before it made a job. */
  jobId: string | null;
  happening: NoticeHappening;
  /** The pull request's URL for `pr_opened` and `pr_merged`; the job and its finish for `run_failed`. */
  subject: string;
  channel: string;
  text: string;
}

/** The notice's text: the automation, what happened, and a link. Slack's markup is escaped. */
export function noticeText(input: {
  happening: NoticeHappening;
  automationName: string;
  pullRequest: string | null;
  jobPage: string;
  error: string | null;
}): string {
  const name = escapeSlack(input.automationName);
  switch (input.happening) {
    case 'pr_opened':
      return `Automation “${name}” opened a pull request: ${input.pullRequest ?? input.jobPage}\nJob: ${input.jobPage}`;
    case 'pr_merged':
      return `The pull request of automation “${name}” was merged: ${input.pullRequest ?? input.jobPage}`;
    case 'run_failed': {
      const why = input.error ? `: ${escapeSlack(input.error).slice(0, 300)}` : '';
      return `A run of automation “${name}” failed${why}\nJob: ${input.jobPage}`;
    }
  }
}

/** Slack reads `&`, `<` and `>` as markup (a `<!channel>` would ping everyone): escaped as it asks. */
export const escapeSlack = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
