import type { JobFailureCode } from './errors.js';

/**
 * What a person can do about each way a job fails, shown beside the job's error by the dashboard
 * and the CLI. A record over every code, so a new code cannot be added without its advice.
 */
export const FAILURE_ADVICE: Record<JobFailureCode, string> = {
  model_unavailable:
    'The server has no key for this model: set the provider key (or AGENTJOBS_MODEL) on the server and restart it, or use the demo model.',
  model_error:
    'The model provider refused or kept failing: see the message, then send a follow-up to try again.',
  step_limit:
    'The run reached its step limit (AGENTJOBS_MAX_STEPS). Its work is on the branch: a follow-up continues it.',
  time_limit:
    'The run reached its time limit (AGENTJOBS_MAX_JOB_MINUTES). A follow-up continues from its work.',
  token_limit: 'The run reached its token limit (AGENTJOBS_MAX_TOKENS). A follow-up continues from its work.',
  files_limit:
    'The job changed more files than allowed (AGENTJOBS_MAX_FILES_CHANGED): ask for a smaller change.',
  budget_exceeded:
    "A cost budget ran out: the run's (AGENTJOBS_MAX_JOB_COST_USD) or the project's for today.",
  aborted: 'The run was stopped before it finished. Send a follow-up to start it again.',
  checks_failed:
    'The checks still failed after the repair rounds and the project publishes nothing then: see the checks, and send a follow-up.',
  setup_failed:
    "The project's setup command failed: fix it (project update --setup-command) or its lockfile.",
  setup_needs_review:
    "The service's own commits (push mode) changed what the setup command reads: review them, accept them with `project setup accept` or the button on the project's settings, then send a follow-up.",
  code_host_error:
    "The code host refused a request: check the project's token with `project check` or Check access.",
  context_repository_unavailable:
    'A context repository could not be fetched: check its URL, branch and token (`project check`).',
  repository_error:
    'git could not work with the repository: see the message (a branch, a protection rule, the URL).',
  worker_lost:
    'The worker running the job stopped three times in a row: check the workers’ logs, then send a follow-up.',
  internal_error: "The service failed: its log has the details under the job's id. A follow-up tries again.",
};
