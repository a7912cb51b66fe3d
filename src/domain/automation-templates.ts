/**
 * The automations a docs team starts from (`agentjobs automation create --template NAME`, the
 * dashboard): a trigger and a prompt each, written to be used as they are.
 */
import type { AutomationTrigger } from './automation.js';

/** A shipped starting point: what `create --template` fills in before the caller's own fields. */
export interface AutomationTemplate {
  name: string;
  description: string;
  trigger: AutomationTrigger;
  prompt: string;
}

const updateDocsFromCode = `The product's code changed. Bring the documentation in line with it.

Repository {{change.repository}}, branch {{change.branch}}, from {{change.from}} to {{change.to}}.

Commits:
{{change.commits}}

Merged pull requests:
{{change.pullRequests}}

Changed files:
{{change.files}}

Diff:
{{change.diff}}

What to do:
1. Work out what changed for someone using the product: new or removed options, flags, endpoints, fields, defaults, error messages, behaviour. Internal refactors, tests and build changes need no docs.
2. Find every page that describes what changed (search the docs for the names involved) and update it. Update code examples so they would run against the new version.
3. Document new user-facing features where a reader would look for them, following the style and structure of the pages around them.
4. Do not invent behaviour the diff does not show; read the code in the context repository when the diff is not enough.
5. If nothing user-facing changed, change nothing and say so.`;

const changelog = `Add the user-facing changes since the last entry to the changelog.

Repository {{change.repository}}, branch {{change.branch}}, from {{change.from}} to {{change.to}}.

Commits:
{{change.commits}}

Merged pull requests:
{{change.pullRequests}}

What to do:
1. Find the changelog (CHANGELOG.md, a changelog or release-notes page); keep its format, headings and tone.
2. Add the changes under the unreleased section (create it at the top if there is none), grouped as the file groups them (for example Added, Changed, Fixed, Removed).
3. One short line per change, written for users, with a link to the pull request when there is one. Leave out internal changes (tests, CI, refactors, dependency bumps without user impact).
4. Do not edit released entries.`;

const fixBrokenLinks = `Find and fix broken links in the documentation (scheduled sweep at {{schedule.time}}).

What to do:
1. Check every internal link and anchor: pages that moved or were renamed, anchors whose heading changed, wrong relative paths, image paths.
2. Fix each one to point at the right page or heading. When the target is gone, link to the closest page that covers the topic, or remove the link and keep the text.
3. Keep external links unless they clearly point at a page of this documentation site.
4. Change nothing else.`;

const fixTypos = `Proofread the documentation and fix typos (scheduled sweep at {{schedule.time}}).

What to do:
1. Fix spelling mistakes, repeated words, wrong punctuation and clear grammar errors in prose.
2. Do not touch code blocks, inline code, product names, identifiers, URLs or front matter values.
3. Keep the existing spelling variant (American or British) and the terms the docs already use.
4. Do not rewrite sentences for style; only fix what is wrong.`;

const reviewComments = `A reviewer asked for a change on the documentation ({{comment.author}}, {{comment.url}}):

{{comment.body}}

What to do:
1. Make the change the reviewer asks for, on the pages it concerns.
2. If the request is unclear or asks for something that would make the docs wrong, change nothing and explain why in your answer.`;

export const AUTOMATION_TEMPLATES: readonly AutomationTemplate[] = [
  {
    name: 'update-docs-from-code',
    description: "Update the docs when code is merged in a context repository's branch",
    trigger: { type: 'code_change', repository: 'product', branch: 'main', paths: null },
    prompt: updateDocsFromCode,
  },
  {
    name: 'changelog',
    description: 'Add merged user-facing changes to the changelog',
    trigger: { type: 'code_change', repository: 'product', branch: 'main', paths: null },
    prompt: changelog,
  },
  {
    name: 'fix-broken-links',
    description: 'A weekly sweep for broken internal links',
    trigger: { type: 'schedule', cron: '0 6 * * 1', timezone: 'UTC' },
    prompt: fixBrokenLinks,
  },
  {
    name: 'fix-typos',
    description: 'A weekly proofreading sweep',
    trigger: { type: 'schedule', cron: '0 6 * * 3', timezone: 'UTC' },
    prompt: fixTypos,
  },
  {
    name: 'review-comments',
    description: "Act on reviewers' comments that mention the service",
    trigger: { type: 'comment' },
    prompt: reviewComments,
  },
];

/** The shipped template named `name`, or undefined. */
export const automationTemplate = (name: string) =>
  AUTOMATION_TEMPLATES.find((template) => template.name === name);
