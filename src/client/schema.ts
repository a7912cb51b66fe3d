// Generated from docs/openapi.json by openapi-typescript (`npm run openapi`). Do not edit.

export interface paths {
    "/v2/hooks/{projectId}/github": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a GitHub webhook
         * @description The GitHub webhook of the project (no API key: the host proves the project's hook secret). Recorded before the answer, once per delivery id within 7 days; events not read, and repositories not the project's, are answered 202 and ignored.
         */
        post: operations["receiveGithubHook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/hooks/{projectId}/gitlab": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a GitLab webhook
         * @description The GitLab webhook of the project (no API key: the host proves the project's hook secret). Recorded before the answer, once per delivery id within 7 days; events not read, and repositories not the project's, are answered 202 and ignored.
         */
        post: operations["receiveGitlabHook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/hooks/{projectId}/gitea": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a Gitea or Forgejo webhook
         * @description The Gitea or Forgejo webhook of the project (no API key: the host proves the project's hook secret). Recorded before the answer, once per delivery id within 7 days; events not read, and repositories not the project's, are answered 202 and ignored.
         */
        post: operations["receiveGiteaHook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/hooks/{projectId}/linear": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a Linear webhook
         * @description The Linear webhook of the project (no API key: Linear signs the body with the project's Linear secret). A delivery whose webhookTimestamp is more than a minute from now is refused. Issue events (created, or labelled) are recorded once per delivery id within 7 days; other events are answered 202 and ignored.
         */
        post: operations["receiveLinearHook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/job": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List jobs
         * @description Jobs of the project, newest first, a page at a time; pass nextCursor as cursor for the next.
         */
        get: operations["listJobs"];
        put?: never;
        /**
         * Create a job
         * @description Creates a job from a prompt and answers at once; the agent works in the background. Poll the job, follow its events, or get a webhook. With an Idempotency-Key header a create is safe to retry for 24 hours: the same key and body return the same job (Idempotent-Replayed: true).
         */
        post: operations["createJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/job/{jobId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a job
         * @description The job as it is now: the polling endpoint. A job is done when its status is completed, failed or archived.
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/job/{jobId}/message": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a follow-up prompt
         * @description Gives the agent another prompt on the same branch and pull request. A completed or failed job becomes active again; for an active job the prompt is handed to the agent at its next step.
         */
        post: operations["sendMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/job/{jobId}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Archive a job
         * @description Archives the job; an active run is stopped first and its unpublished work dropped. Archiving an archived job returns it unchanged.
         */
        post: operations["archiveJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints
         * @description The project's endpoints, without their secrets.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Create a webhook endpoint
         * @description Adds an endpoint that gets the project's job events, signed with the Standard Webhooks scheme. The answer holds its secret, shown only here.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/webhooks/{webhookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook endpoint
         * @description One endpoint, without its secret.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Deletes the endpoint and its delivery log.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Change a webhook endpoint
         * @description Changes the URL, the event types, whether it is enabled, or its description.
         */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/v2/agent/{projectId}/webhooks/{webhookId}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret (the old one still signs for 24 hours)
         * @description Makes a new secret; for 24 hours deliveries carry a signature with each.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List deliveries with their attempts, newest first
         * @description The endpoint's deliveries, newest first, each with every attempt; pass nextCursor as cursor for the next page.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again now
         * @description Queues the delivery to be sent again at once, with the same webhook-id.
         */
        post: operations["redeliverWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/automations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List automations
         * @description The project's automations.
         */
        get: operations["listAutomations"];
        put?: never;
        /**
         * Create an automation
         * @description An automation starts jobs by itself: on a schedule, a code change, a comment, or on demand.
         */
        post: operations["createAutomation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/automations/{automationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an automation
         * @description One automation, with its last and next run times.
         */
        get: operations["getAutomation"];
        put?: never;
        post?: never;
        /**
         * Delete an automation
         * @description Deletes the automation and its runs; the jobs it made stay.
         */
        delete: operations["deleteAutomation"];
        options?: never;
        head?: never;
        /**
         * Change an automation
         * @description Changes any field but its id; enabling it again schedules its next time from now.
         */
        patch: operations["updateAutomation"];
        trace?: never;
    };
    "/v2/agent/{projectId}/automations/{automationId}/trigger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run an automation now
         * @description Runs it now: 201 with a new job, or 200 with the job the run was grouped into (its pull request is still open). A run that cannot go is recorded as skipped and answered as an error.
         */
        post: operations["triggerAutomation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/automations/{automationId}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the runs of an automation, newest first
         * @description Every event the automation saw: created, grouped or skipped with the reason; pass nextCursor as cursor for the next page.
         */
        get: operations["listAutomationRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/linear/secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set the Linear secret
         * @description Sets the signing secret of the project's Linear webhook (Linear shows it when the webhook is made), in place of any it had. It is sealed at rest and never shown back.
         */
        put: operations["setLinearSecret"];
        post?: never;
        /**
         * Remove the Linear secret
         * @description Removes the project's Linear secret: Linear's deliveries are refused from now on.
         */
        delete: operations["deleteLinearSecret"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/agent/{projectId}/job/{jobId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A job's activity
         * @description The agent's activity, oldest first: a JSON page of events after a seq, or with Accept: text/event-stream a live Server-Sent Events stream. Each SSE message has `id: <seq>`, `event: <type>` and the event as JSON in `data`; reconnect with Last-Event-ID to resume exactly. The stream ends when the job is no longer active and every event was sent.
         */
        get: operations["listJobEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        SlackTriggerInput: {
            /** @constant */
            type: "slack";
            /** @description A Slack channel id mapped to the automation's project */
            channel: string;
        };
        ScheduleTriggerInput: {
            /** @constant */
            type: "schedule";
            /** @description Five fields: minute hour day month weekday */
            cron: string;
            /** @description An IANA timezone; UTC when absent */
            timezone?: string;
        };
        CodeChangeTriggerInput: {
            /** @constant */
            type: "code_change";
            /** @description The name of one of the project's context repositories */
            repository: string;
            branch: string;
            /** @description Globs of paths (e.g. src/**); only a change to a matching file starts a run */
            paths?: string[] | null;
        };
        ContentChangeTriggerInput: {
            /** @constant */
            type: "content_change";
            branch: string;
            /** @description Globs of paths (e.g. src/**); only a change to a matching file starts a run */
            paths?: string[] | null;
        };
        CommentTriggerInput: {
            /** @constant */
            type: "comment";
        };
        ManualTriggerInput: {
            /** @constant */
            type: "manual";
        };
        IssueTriggerInput: {
            /** @constant */
            type: "issue";
            /**
             * @description code_host (default): the project's repositories' issues, by the code host's webhook; linear: a Linear team's
             * @enum {string}
             */
            source?: "code_host" | "linear";
            /** @description code_host only: a context repository’s name; absent or null: the content repository */
            repository?: string | null;
            /** @description linear only: the team’s key, as in ENG-123 */
            team?: string | null;
            /** @description Label names (any case); an issue opened or labelled with one starts a run. Empty: every issue opened */
            labels?: string[];
        };
        CheckRun: {
            /** @enum {string} */
            status: "passed" | "failed" | "error";
            ranAt: string;
            results: {
                name: string;
                /** @enum {string} */
                status: "passed" | "failed" | "error";
                message: string;
                problems: {
                    path: string;
                    line: number | null;
                    message: string;
                }[];
                /** @description Problems already present before the job changed the files: listed, never gating */
                notes?: {
                    path: string;
                    line: number | null;
                    message: string;
                }[];
            }[];
        };
        /**
         * @description A job: one prompt (and its follow-ups) worked on by the agent. Every field is always present.
         * @example {
         *       "id": "01JDQ2J7T0V5Y8G1ZK3M4N6P7R",
         *       "status": "completed",
         *       "source": {
         *         "repository": "https://github.com/acme/docs",
         *         "ref": "agentjobs/01JDQ2J7T0V5Y8G1ZK3M4N6P7R"
         *       },
         *       "model": "anthropic:claude-sonnet-4-5",
         *       "prLink": "https://github.com/acme/docs/pull/42",
         *       "createdAt": "2026-11-22T10:00:00.000Z",
         *       "archivedAt": null,
         *       "projectId": "docs",
         *       "prompt": "Document the --verbose flag of the CLI on the install page.",
         *       "baseRef": "main",
         *       "phase": null,
         *       "title": "Document the --verbose flag",
         *       "summary": "Document the --verbose flag\n\nI added a section on --verbose to guide/install.md.",
         *       "error": null,
         *       "updatedAt": "2026-11-22T10:01:12.000Z",
         *       "completedAt": "2026-11-22T10:01:12.000Z",
         *       "usage": {
         *         "inputTokens": 18250,
         *         "outputTokens": 940,
         *         "steps": 6
         *       },
         *       "filesChanged": 1,
         *       "checks": null,
         *       "draft": false,
         *       "contextRepositories": [
         *         {
         *           "name": "code",
         *           "ref": "main",
         *           "commit": "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
         *         }
         *       ],
         *       "trigger": null
         *     }
         */
        Job: {
            /** @description Opaque, URL-safe, unique and time-sortable */
            id: string;
            /**
             * @description active until the agent is done; completed, failed or archived after
             * @enum {string}
             */
            status: "active" | "completed" | "archived" | "failed";
            /** @description Where the work goes */
            source: {
                /** @description The project's repository URL */
                repository: string;
                /** @description The branch the job's work goes to (the pull request's head branch), named at creation. It exists on the repository only once a run pushed to it: a job that changed nothing (completed with prLink null and filesChanged 0) never creates it, nor does a project that publishes by pushing onto its base branch. A follow-up after the pull request was merged or closed moves the job to a new branch from the base as it is now (the first branch with -2, -3…) */
                ref: string;
            };
            /** @description The model id used, e.g. anthropic:claude-sonnet-4-5; never null */
            model: string;
            /** @description The pull request URL; null while active, when no file changed (then no branch was pushed either), and when the project publishes by pushing onto its base branch. A follow-up after the pull request was merged or closed opens a new one, and prLink moves to it; the earlier one stays in the job's pull_request events */
            prLink: string | null;
            /** @description ISO 8601, UTC */
            createdAt: string;
            archivedAt: string | null;
            projectId: string;
            /** @description The first prompt */
            prompt: string;
            /** @description The branch the pull request targets */
            baseRef: string;
            /** @description Where an active job is; null when not active */
            phase: ("queued" | "preparing" | "running" | "publishing") | null;
            /** @description The job's title (and its pull request's), named by the first run that completes; follow-ups keep it. Null until then */
            title: string | null;
            /** @description The agent's final message to the user, from the latest run: after a follow-up, its answer to that follow-up (each prompt's own answer is in the events) */
            summary: string | null;
            /** @description Why a failed job failed */
            error: {
                /**
                 * @description Why, as a stable code to switch on; treat a code you do not know (a later version may add one) as a failure.
                 * @enum {string}
                 */
                code: "model_unavailable" | "model_error" | "step_limit" | "time_limit" | "token_limit" | "files_limit" | "budget_exceeded" | "aborted" | "checks_failed" | "setup_failed" | "setup_needs_review" | "code_host_error" | "context_repository_unavailable" | "repository_error" | "worker_lost" | "internal_error";
                message: string;
            } | null;
            updatedAt: string;
            completedAt: string | null;
            usage: {
                inputTokens: number;
                outputTokens: number;
                cachedInputTokens: number;
                steps: number;
                costUsd: number | null;
            };
            filesChanged: number;
            /** @description The latest run of the checks on the job's work; null before the first */
            checks: components["schemas"]["CheckRun"] | null;
            /** @description Whether the pull request is a draft: asked for, or opened as one because the checks failed under the project's draft policy */
            draft: boolean;
            /** @description Extension: the project's context repositories (read-only sources of the agent) as the job's latest run read them; empty when the project has none or no run has fetched them yet */
            contextRepositories: {
                /** @description The context repository's name in its project */
                name: string;
                /** @description The branch read */
                ref: string;
                /** @description The commit that branch named when the run fetched it; every read was at it */
                commit: string;
            }[];
            /** @description What started the job when an automation made it; null for jobs made through the API */
            trigger: {
                /** @enum {string} */
                type: "schedule" | "code_change" | "content_change" | "comment" | "manual" | "slack" | "issue";
                automationId: string;
                /** @description A URL, a commit id, a schedule time, or `manual` */
                source: string;
            } | null;
        };
        /**
         * @description One entry of a job's activity; seq rises by one per job.
         * @example {
         *       "seq": 3,
         *       "type": "phase",
         *       "at": "2026-11-22T10:00:01.000Z",
         *       "data": {
         *         "phase": "running"
         *       }
         *     }
         */
        JobEvent: {
            seq: number;
            /** @enum {string} */
            type: "status" | "phase" | "message" | "tool_call" | "tool_result" | "plan" | "setup" | "check" | "commit" | "pull_request" | "usage" | "context" | "error";
            at: string;
            data: {
                [key: string]: unknown;
            };
        };
        /**
         * @description Every error answer. The code is stable; the message is for people.
         * @example {
         *       "error": "No job 01JDQ2J7T0V5Y8G1ZK3M4N6P7R in this project.",
         *       "code": "job_not_found",
         *       "requestId": "req-1a"
         *     }
         */
        Error: {
            error: string;
            code: string;
            requestId: string;
            details?: {
                path: string;
                message: string;
            }[];
        };
        /** @description A job that starts itself: on a schedule, a code change, a comment, a Slack message, an issue, or on demand. */
        Automation: {
            id: string;
            projectId: string;
            name: string;
            enabled: boolean;
            trigger: {
                /** @constant */
                type: "schedule";
                cron: string;
                timezone: string;
            } | {
                /** @constant */
                type: "code_change";
                repository: string;
                branch: string;
                paths: string[] | null;
            } | {
                /** @constant */
                type: "content_change";
                branch: string;
                paths: string[] | null;
            } | {
                /** @constant */
                type: "comment";
            } | {
                /** @constant */
                type: "manual";
            } | {
                /** @constant */
                type: "slack";
                channel: string;
            } | {
                /** @constant */
                type: "issue";
                /** @enum {string} */
                source: "code_host" | "linear";
                repository: string | null;
                team: string | null;
                labels: string[];
            };
            prompt: string;
            group: boolean;
            draft: boolean;
            model: string | null;
            baseRef: string | null;
            allowedAuthors: string[];
            /** @description The Slack channel told when a run's pull request opens, is merged, or the run fails */
            notify: {
                slack: string | null;
            };
            createdAt: string;
            updatedAt: string;
            lastRunAt: string | null;
            /** @description A schedule's next time; null for other triggers and while disabled */
            nextRunAt: string | null;
        };
        AutomationRun: {
            id: string;
            automationId: string;
            at: string;
            trigger: {
                /** @enum {string} */
                type: "schedule" | "code_change" | "content_change" | "comment" | "manual" | "slack" | "issue";
                /** @description A URL, a commit id, a schedule time, or `manual` */
                source: string;
            };
            /**
             * @description What the run did when it was recorded; it never changes
             * @enum {string}
             */
            outcome: "created" | "grouped" | "skipped" | "failed";
            /**
             * @description What came of the run so far, read from its job and the job's pull request: `running`, `review_needed` (the pull request is open), `accepted` (merged, or pushed to the base), `closed` (closed without merge), `no_changes`, `failed`, `skipped` (`reason` says why)
             * @enum {string}
             */
            status: "running" | "review_needed" | "accepted" | "closed" | "no_changes" | "failed" | "skipped";
            /** @description Why a skipped run started nothing (`invalid`: its input was refused), or `error` for a failed run */
            reason: ("disabled" | "duplicate" | "untrusted_author" | "paths_not_matched" | "limit" | "budget_exceeded" | "no_change" | "invalid" | "error" | "stopped") | null;
            /** @description What went wrong, in words, for an `invalid` or `error` run; null otherwise */
            detail: string | null;
            jobId: string | null;
        };
        HookReceipt: {
            /**
             * @description recorded: new; duplicate: this delivery id was seen in the last 7 days; ignored: nothing to do
             * @enum {string}
             */
            outcome: "recorded" | "duplicate" | "ignored";
            duplicate: boolean;
            /** @description The recorded event (the first one, for a duplicate) */
            eventId: string | null;
            /** @description Why an ignored delivery was ignored */
            reason: string | null;
        };
        Webhook: {
            id: string;
            projectId: string;
            url: string;
            description: string;
            events: ("job.created" | "job.completed" | "job.failed" | "job.archived" | "job.resumed" | "automation.run")[] | null;
            enabled: boolean;
            disabledReason: string | null;
            failingSince: string | null;
            previousSecretExpiresAt: string | null;
            createdAt: string;
            updatedAt: string;
        };
        WebhookWithSecret: {
            id: string;
            projectId: string;
            url: string;
            description: string;
            events: ("job.created" | "job.completed" | "job.failed" | "job.archived" | "job.resumed" | "automation.run")[] | null;
            enabled: boolean;
            disabledReason: string | null;
            failingSince: string | null;
            previousSecretExpiresAt: string | null;
            createdAt: string;
            updatedAt: string;
            /** @description whsec_…: shown only in this answer */
            secret: string;
        };
        WebhookDelivery: {
            id: string;
            webhookId: string;
            event: {
                id: string;
                /** @enum {string} */
                type: "job.created" | "job.completed" | "job.failed" | "job.archived" | "job.resumed" | "automation.run";
                timestamp: string;
                data: {
                    [key: string]: unknown;
                };
            };
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed";
            nextAttemptAt: string | null;
            createdAt: string;
            updatedAt: string;
            attempts: {
                at: string;
                responseStatus: number | null;
                durationMs: number;
                error: string | null;
                responseExcerpt: string | null;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description Seconds to wait before retrying */
        RetryAfter: number;
        /** @description The path of the new job */
        Location: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    receiveGithubHook: {
        parameters: {
            query?: never;
            header?: {
                /** @description sha256= and the hex HMAC-SHA256 of the raw body under the hook secret */
                "x-hub-signature-256"?: string;
                /** @description push, pull_request, issues, issue_comment, pull_request_review_comment (others are ignored) */
                "x-github-event"?: string;
                /** @description The delivery id, for deduplication */
                "x-github-delivery"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        /** @description The GitHub event payload, as the host sends it (JSON, at most 1 MiB) */
        requestBody: {
            content: {
                "application/json": unknown;
            };
        };
        responses: {
            /** @description Recorded, a repeat, or ignored */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HookReceipt"];
                };
            };
            /** @description invalid_json, invalid_request: the body is not JSON, or lacks a part of the event */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no hook secret made yet, or a missing or wrong signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found: no such project */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 1 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable; the host retries or redelivers */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    receiveGitlabHook: {
        parameters: {
            query?: never;
            header?: {
                /** @description The hook secret itself */
                "x-gitlab-token"?: string;
                /** @description Push Hook, Merge Request Hook, Note Hook, Issue Hook (others are ignored) */
                "x-gitlab-event"?: string;
                /** @description The delivery id, for deduplication */
                "x-gitlab-event-uuid"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        /** @description The GitLab event payload, as the host sends it (JSON, at most 1 MiB) */
        requestBody: {
            content: {
                "application/json": unknown;
            };
        };
        responses: {
            /** @description Recorded, a repeat, or ignored */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HookReceipt"];
                };
            };
            /** @description invalid_json, invalid_request: the body is not JSON, or lacks a part of the event */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no hook secret made yet, or a missing or wrong signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found: no such project */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 1 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable; the host retries or redelivers */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    receiveGiteaHook: {
        parameters: {
            query?: never;
            header?: {
                /** @description The hex HMAC-SHA256 of the raw body under the hook secret */
                "x-gitea-signature"?: string;
                /** @description push, pull_request, issues, issue_comment, pull_request_comment (others are ignored) */
                "x-gitea-event"?: string;
                /** @description The delivery id, for deduplication */
                "x-gitea-delivery"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        /** @description The Gitea or Forgejo event payload, as the host sends it (JSON, at most 1 MiB) */
        requestBody: {
            content: {
                "application/json": unknown;
            };
        };
        responses: {
            /** @description Recorded, a repeat, or ignored */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HookReceipt"];
                };
            };
            /** @description invalid_json, invalid_request: the body is not JSON, or lacks a part of the event */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no hook secret made yet, or a missing or wrong signature */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found: no such project */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 1 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable; the host retries or redelivers */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    receiveLinearHook: {
        parameters: {
            query?: never;
            header?: {
                /** @description The hex HMAC-SHA256 of the raw body under the project's Linear secret */
                "linear-signature"?: string;
                /** @description The delivery id, for deduplication */
                "linear-delivery"?: string;
                /** @description Issue (others are ignored) */
                "linear-event"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        /** @description The Linear event payload, as Linear sends it (JSON, at most 1 MiB) */
        requestBody: {
            content: {
                "application/json": unknown;
            };
        };
        responses: {
            /** @description Recorded, a repeat, or ignored */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HookReceipt"];
                };
            };
            /** @description invalid_json, invalid_request: the body is not JSON, or lacks a part of the event */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no Linear secret set, a missing or wrong Linear-Signature, or a stale webhookTimestamp */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found: no such project */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over 1 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable; Linear retries */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listJobs: {
        parameters: {
            query?: {
                status?: "active" | "completed" | "archived" | "failed";
                /** @description Page size, 1 to 100 */
                limit?: number;
                /** @description nextCursor from the previous page */
                cursor?: string;
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of jobs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        jobs: components["schemas"]["Job"][];
                        /** @description Pass as cursor for the next page; null on the last page */
                        nextCursor: string | null;
                    };
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found: no such project */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createJob: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the create safe to retry for 24 hours: 1 to 255 printable ASCII characters, e.g. a UUID. The same key with the same body returns the same job. */
                "idempotency-key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    prompt: string;
                    /** @description A model id allowed for the project, e.g. anthropic:claude-sonnet-4-5 */
                    model?: string;
                    /** @description The branch the pull request targets; the project's base branch by default */
                    baseRef?: string;
                    /** @description Open the pull request as a draft */
                    draft?: boolean;
                };
            };
        };
        responses: {
            /** @description The job, active and queued (or the job an Idempotency-Key already made) */
            201: {
                headers: {
                    Location: components["headers"]["Location"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found: no such project */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description idempotency_in_flight: a request with this Idempotency-Key is still running */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over the limit (64 KiB by default) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description idempotency_mismatch, model_not_allowed: the key was used with another body, or the model is not allowed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited, too_many_active_jobs: the project's hourly budget is spent, or it has too many active jobs; see Retry-After */
            429: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                /** @description The job id; an id that names no job of the project answers 404 job_not_found */
                jobId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, job_not_found: no such project, or no such job in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                /** @description The job id; an id that names no job of the project answers 404 job_not_found */
                jobId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    prompt: string;
                };
            };
        };
        responses: {
            /** @description The job, active again */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, job_not_found: no such project, or no such job in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description job_archived: the job is archived, which is final */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over the limit (64 KiB by default) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: the project's hourly budget is spent; see Retry-After */
            429: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    archiveJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                /** @description The job id; an id that names no job of the project answers 404 job_not_found */
                jobId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": Record<string, never> | null;
            };
        };
        responses: {
            /** @description The job, archived */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, job_not_found: no such project, or no such job in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description payload_too_large: the body is over the limit (64 KiB by default) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unsupported_media_type: the body is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoints */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhooks: components["schemas"]["Webhook"][];
                    };
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, webhook_not_found: no such project, or no such endpoint in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The receiver, http(s) */
                    url: string;
                    /** @description Event types to send; absent, null or empty: all of them */
                    events?: ("job.created" | "job.completed" | "job.failed" | "job.archived" | "job.resumed" | "automation.run")[] | null;
                    description?: string;
                };
            };
        };
        responses: {
            /** @description The endpoint, with its secret */
            201: {
                headers: {
                    Location: components["headers"]["Location"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookWithSecret"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, webhook_not_found: no such project, or no such endpoint in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description webhook_url_not_allowed: the URL is not http(s), has credentials, or names a private address */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, webhook_not_found: no such project, or no such endpoint in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, webhook_not_found: no such project, or no such endpoint in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The receiver, http(s) */
                    url?: string;
                    /** @description Event types to send; absent, null or empty: all of them */
                    events?: ("job.created" | "job.completed" | "job.failed" | "job.archived" | "job.resumed" | "automation.run")[] | null;
                    enabled?: boolean;
                    description?: string;
                };
            };
        };
        responses: {
            /** @description The endpoint as changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, webhook_not_found: no such project, or no such endpoint in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description webhook_url_not_allowed: the URL is not http(s), has credentials, or names a private address */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint, with its new secret */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookWithSecret"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, webhook_not_found: no such project, or no such endpoint in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 100 */
                limit?: string;
                /** @description nextCursor from the previous page */
                cursor?: string;
            };
            header?: never;
            path: {
                projectId: string;
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveries: components["schemas"]["WebhookDelivery"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, webhook_not_found: no such project, or no such endpoint in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    redeliverWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                webhookId: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery, queued */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, webhook_not_found: no such project, or no such endpoint in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAutomations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The automations */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        automations: components["schemas"]["Automation"][];
                    };
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, automation_not_found: no such project, or no such automation in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @description What starts the automation: exactly one trigger */
                    trigger: components["schemas"]["ScheduleTriggerInput"] | components["schemas"]["CodeChangeTriggerInput"] | components["schemas"]["ContentChangeTriggerInput"] | components["schemas"]["CommentTriggerInput"] | components["schemas"]["ManualTriggerInput"] | components["schemas"]["SlackTriggerInput"] | components["schemas"]["IssueTriggerInput"];
                    /** @description The prompt template: {{name}} placeholders, no logic; an unknown placeholder is refused */
                    prompt: string;
                    /** @description true when absent */
                    enabled?: boolean;
                    /** @description true when absent: runs while the latest job's pull request is open continue it */
                    group?: boolean;
                    draft?: boolean;
                    model?: string | null;
                    baseRef?: string | null;
                    /** @description Comment authors trusted besides those the host says can write */
                    allowedAuthors?: string[];
                    /** @description Where to post when a run's pull request opens, is merged, or the run fails; null or absent: nowhere */
                    notify?: {
                        slack?: string | null;
                    };
                };
            };
        };
        responses: {
            /** @description The automation */
            201: {
                headers: {
                    Location: components["headers"]["Location"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Automation"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, automation_not_found: no such project, or no such automation in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invalid_automation, model_not_allowed: an invalid cron, timezone, template placeholder, branch, unknown context repository, or a model the project does not allow; `details` names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                automationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The automation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Automation"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, automation_not_found: no such project, or no such automation in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                automationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, automation_not_found: no such project, or no such automation in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                automationId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @description What starts the automation: exactly one trigger */
                    trigger?: components["schemas"]["ScheduleTriggerInput"] | components["schemas"]["CodeChangeTriggerInput"] | components["schemas"]["ContentChangeTriggerInput"] | components["schemas"]["CommentTriggerInput"] | components["schemas"]["ManualTriggerInput"] | components["schemas"]["SlackTriggerInput"] | components["schemas"]["IssueTriggerInput"];
                    /** @description The prompt template: {{name}} placeholders, no logic; an unknown placeholder is refused */
                    prompt?: string;
                    enabled?: boolean;
                    group?: boolean;
                    draft?: boolean;
                    model?: string | null;
                    baseRef?: string | null;
                    /** @description Comment authors trusted besides those the host says can write */
                    allowedAuthors?: string[];
                    /** @description Where to post when a run's pull request opens, is merged, or the run fails; null or absent: nowhere */
                    notify?: {
                        slack?: string | null;
                    };
                };
            };
        };
        responses: {
            /** @description The automation as changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Automation"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, automation_not_found: no such project, or no such automation in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description invalid_automation, model_not_allowed: an invalid cron, timezone, template placeholder, branch, unknown context repository, or a model the project does not allow; `details` names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    triggerAutomation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                automationId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Values of the {{variables.NAME}} placeholders */
                    variables?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description The job the run was grouped into */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            /** @description The new job */
            201: {
                headers: {
                    Location: components["headers"]["Location"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, automation_not_found: no such project, or no such automation in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description automation_disabled: the automation is disabled */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description automation_limit_exceeded, budget_exceeded, too_many_active_jobs: the day's runs, the daily budget or the active-job cap are used; see Retry-After */
            429: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAutomationRuns: {
        parameters: {
            query?: {
                /** @description Page size, 1 to 100 */
                limit?: string;
                /** @description nextCursor from the previous page */
                cursor?: string;
            };
            header?: never;
            path: {
                projectId: string;
                automationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of runs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        runs: components["schemas"]["AutomationRun"][];
                        nextCursor: string | null;
                    };
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, automation_not_found: no such project, or no such automation in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setLinearSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The signing secret Linear shows for the project's webhook */
                    secret: string;
                };
            };
        };
        responses: {
            /** @description Set */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found: no such project */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteLinearSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed (or there was none) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found: no such project */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listJobEvents: {
        parameters: {
            query?: {
                /** @description Only events with a greater seq */
                after?: number;
                limit?: number;
            };
            header?: never;
            path: {
                projectId: string;
                /** @description The job id; an id that names no job of the project answers 404 job_not_found */
                jobId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events, or a live event stream */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        events: components["schemas"]["JobEvent"][];
                        /** @description The last seq on the page when there are more; pass as after */
                        nextCursor: string | null;
                    };
                    "text/event-stream": string;
                };
            };
            /** @description invalid_request, invalid_json: bad JSON, wrong types, unknown fields, bad query parameters or cursor */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unauthorized: no key, or a malformed, unknown, revoked or expired key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description forbidden: another project's key, a missing scope, or an address not allowed */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description project_not_found, job_not_found: no such project, or no such job in it */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description rate_limited: this key holds the most live streams allowed; see Retry-After */
            429: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description unavailable: the database is unreachable or the server is shutting down; see Retry-After */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
