import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directoryTree } from '../../src/checks/tree.js';
import { checkProblems } from '../../src/eval/checks.js';
import { runEval, runTask } from '../../src/eval/runner.js';
import { answer, callTools, type ModelTurn, scriptedModel } from '../support/agent-fixture.js';
import { evalOptions, shippedTasks } from '../support/eval-fixture.js';

// The eval harness and the shipped suite (eval/), with a scripted model that plays a correct agent
// (the tasks pass) and a careless one (they fail, for the expectation the carelessness breaks).

const options = (turns: ModelTurn[]) => evalOptions(scriptedModel(turns));

const { tasks, task } = await shippedTasks();
const site = (name: string, path: string) => readFileSync(join('eval/sites', name, path), 'utf8');

describe('the shipped suite', () => {
  it('has at least 20 tasks over three fixture sites, each of which passes the checks as it is', async () => {
    expect(tasks.length).toBeGreaterThanOrEqual(20);
    const sites = [...new Set(tasks.map((each) => each.siteDir))];
    expect(sites).toHaveLength(3);
    // Every page of each site as if a run had just added it: the built-in checks find nothing but
    // the broken link that the task mkdocs-fix-broken-link is there to fix.
    for (const dir of sites) {
      const files = await directoryTree(dir).files();
      const changes = files.map((path) => ({ path, kind: 'added' as const }));
      const problems = (await checkProblems(dir, changes)).map((p) => `${p.path}: ${p.message}`);
      const planted = dir.endsWith('mkdocs-beacon')
        ? [expect.stringMatching(/^docs\/index\.md: Link `instalation\.md`/)]
        : [];
      expect(problems, dir).toEqual(planted);
    }
    // A few tasks must change nothing, and some answer review feedback in a follow-up.
    expect(tasks.filter((each) => each.expect.some((e) => 'unchanged' in e)).length).toBeGreaterThanOrEqual(
      3,
    );
    expect(tasks.filter((each) => each.followUps.length > 0).length).toBeGreaterThanOrEqual(2);
  });
});

const FAQ = `---
title: FAQ
description: Answers to common questions
---

## How do I install the CLI?

Run the install script from the [installation page](/installation).

## How do I roll back a deployment?

Run \`acme rollback --env production\`.
`;

describe('a correct agent', () => {
  it('passes a task that adds a page and names it in the navigation', async () => {
    const outcome = await runTask(
      task('mintlify-add-faq'),
      options([
        callTools([['read_file', { path: 'docs.json' }]]),
        callTools([['write_file', { path: 'resources/faq.mdx', content: FAQ }]]),
        callTools([
          [
            'edit_file',
            {
              path: 'docs.json',
              old_text: '"resources/troubleshooting"',
              new_text: '"resources/troubleshooting",\n              "resources/faq"',
            },
          ],
        ]),
        answer('Add a FAQ page'),
      ]),
    );
    expect(outcome).toMatchObject({ name: 'mintlify-add-faq', passed: true, failures: [], steps: 4 });
    expect(outcome.inputTokens).toBeGreaterThan(0);
  });

  it('passes a task on front matter and one that must change nothing, in one eval', async () => {
    const report = await runEval([task('mkdocs-frontmatter'), task('readme-question-only')], {
      ...options([
        callTools([['read_file', { path: 'docs/configuration.md' }]]),
        callTools([
          [
            'edit_file',
            {
              path: 'docs/configuration.md',
              old_text: '# Configuration\n',
              new_text:
                '---\ntitle: Configuration\ndescription: How to configure Beacon Agent.\n---\n\n# Configuration\n',
            },
          ],
        ]),
        answer('Add front matter to the configuration page'),
        callTools([['read_file', { path: 'packages/retry/README.md' }]]),
        answer('Use @toolbelt/retry.'),
      ]),
    });
    expect(report).toMatchObject({ model: 'scripted', total: 2, passed: 2, passRate: 1 });
    expect(report.tasks.map((each) => each.failures)).toEqual([[], []]);
  });

  it('answers review feedback in a follow-up', async () => {
    const readme = site('readme-toolbelt', 'README.md');
    const development = site('readme-toolbelt', 'docs/development.md');
    const outcome = await runTask(
      task('readme-review-followup'),
      options([
        callTools([
          [
            'write_file',
            {
              path: 'README.md',
              content: readme.replace('## Install', '## Requirements\n\nNode.js 18 or later.\n\n## Install'),
            },
          ],
        ]),
        answer('Add a Requirements section'),
        callTools([
          [
            'edit_file',
            { path: 'README.md', old_text: 'Node.js 18 or later.', new_text: 'Node.js 20 or later.' },
          ],
          [
            'write_file',
            {
              path: 'docs/development.md',
              content: development.replace('Node.js 18 or later', 'Node.js 20 or later'),
            },
          ],
        ]),
        answer('Require Node.js 20'),
      ]),
    );
    expect(outcome.failures).toEqual([]);
    expect(outcome.steps).toBe(4);
  });
});

describe('a careless agent', () => {
  /** Runs task `name` with an agent that writes `path` once, with `content`, and answers `summary`. */
  const writesOnce = (name: string, path: string, content: string, summary: string) =>
    runTask(task(name), options([callTools([['write_file', { path, content }]]), answer(summary)]));

  it('fails for the navigation it forgot', async () => {
    const outcome = await writesOnce('mintlify-add-faq', 'resources/faq.mdx', FAQ, 'Add a FAQ page');
    expect(outcome.passed).toBe(false);
    // The navigation expectation says so, and the built-in checks too.
    expect(outcome.failures).toEqual([
      'navigation: docs.json does not name resources/faq',
      expect.stringMatching(/^checks: resources\/faq\.mdx This new page is not in the site's navigation/),
    ]);
  });

  it('fails for the front matter it got wrong, and for touching a repository it was asked to leave alone', async () => {
    const report = await runEval([task('mkdocs-frontmatter'), task('readme-question-only')], {
      ...options([
        callTools([
          [
            'edit_file',
            {
              path: 'docs/configuration.md',
              old_text: '# Configuration\n',
              new_text: '---\ntitle: Config\ndescription: Settings.\n---\n\n# Configuration\n',
            },
          ],
        ]),
        answer('Front matter'),
        callTools([['write_file', { path: 'README.md', content: '# toolbelt\n\nUse @toolbelt/retry.\n' }]]),
        answer('Use @toolbelt/retry.'),
      ]),
    });
    expect(report).toMatchObject({ total: 2, passed: 0, passRate: 0 });
    expect(report.tasks[0]?.failures).toEqual([
      'docs/configuration.md: front matter title is "Config", expected "Configuration"',
    ]);
    expect(report.tasks[1]?.failures).toEqual(['unchanged: changed README.md']);
  });

  it('fails the checks with an unclosed component, and says where', async () => {
    const page = site('mintlify-acme', 'guides/custom-domains.mdx');
    const broken = page.replace(
      '1. Open the environment',
      '<Steps>\n<Step title="Open the environment">\nOpen the environment',
    );
    const outcome = await writesOnce(
      'mintlify-steps-component',
      'guides/custom-domains.mdx',
      broken,
      'Use Steps',
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.failures).toContain('guides/custom-domains.mdx: does not contain "</Steps>"');
    expect(outcome.failures.at(-1)).toMatch(
      /^checks: guides\/custom-domains\.mdx:\d+ `<Step>` opened on line \d+ is never closed/,
    );
  });

  it('fails, rather than stopping the eval, when the run itself fails', async () => {
    const outcome = await runTask(task('mkdocs-document-flag'), options([]));
    expect(outcome.passed).toBe(false);
    expect(outcome.failures[0]).toMatch(/^run: /);
  });
});
