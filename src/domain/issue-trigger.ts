/**
 * The `issue` trigger (docs/automations.md, "Issues"): an issue opened, or labelled, on the
 * content repository, a context repository or a Linear team becomes a run. Pure: which issue
 * events an automation sees, and the key that makes one issue one run.
 */

/** Where an issue trigger's issues come from. */
export const ISSUE_SOURCES = ['code_host', 'linear'] as const;
export type IssueSource = (typeof ISSUE_SOURCES)[number];

/**
 * `{ type: "issue" }`: an issue opened with, or labelled with, one of `labels`. With no labels,
 * every issue opened runs it (a label added later starts nothing: the issue was seen when opened).
 */
export interface IssueTrigger {
  type: 'issue';
  /** `code_host`: the project's repositories' issues, through the code host's webhook; `linear`: a Linear team's. */
  source: IssueSource;
  /** `code_host` only: a context repository's name; null: the content repository. */
  repository: string | null;
  /** `linear` only: the team's key (`ENG`, as in `ENG-123`); null for `code_host`. */
  team: string | null;
  /** Label names, matched without regard to case; empty: every issue opened. */
  labels: string[];
}

/** The template placeholders an issue fills. */
export const ISSUE_PLACEHOLDERS = ['issue.title', 'issue.body', 'issue.url'] as const;

/** At most this many labels on one trigger, each at most `LABEL_MAX` characters. */
export const ISSUE_LABELS_MAX = 20;
export const LABEL_MAX = 100;

/** What an issue event says about the issue's labels and what happened to it. */
export interface IssueActivity {
  /** `opened`: the issue was made; `labeled`: labels were added to it. */
  action: 'opened' | 'labeled';
  /** Every label the issue carries now. */
  labels: string[];
  /** The labels just added, when the host says (null: it does not, so `labels` stand for them). */
  addedLabels: string[] | null;
}

const lower = (names: readonly string[]) => new Set(names.map((name) => name.trim().toLowerCase()));

/**
 * Whether the issue activity starts a run of `trigger` (its place, repository or team, is
 * matched by the caller): an issue opened carrying one of its labels, or labelled with one of
 * them; with no labels, an issue opened.
 */
export function issueMatches(trigger: Pick<IssueTrigger, 'labels'>, activity: IssueActivity): boolean {
  if (trigger.labels.length === 0) return activity.action === 'opened';
  const wanted = lower(trigger.labels);
  const named = activity.action === 'labeled' ? (activity.addedLabels ?? activity.labels) : activity.labels;
  return named.some((label) => wanted.has(label.trim().toLowerCase()));
}

/**
 * The key of an automation's one run for an issue, whatever the number of events about it
 * (opened, then labelled; a delivery sent again): a code host's issue URL, or Linear's id of the
 * issue (its URL carries the title, which may change).
 */
export const issueRunKey = (
  issue: { kind: 'issue'; url: string } | { kind: 'linear_issue'; id: string },
): string => (issue.kind === 'issue' ? `issue:${issue.url}` : `linear:${issue.id}`);

/** The team key of a Linear identifier (`ENG` of `ENG-123`). */
export function linearTeamOf(identifier: string): string | null {
  const match = /^([A-Za-z0-9_]+)-\d+$/.exec(identifier);
  return match?.[1] ?? null;
}
