/**
 * What the dashboard's browser tests start with: the built server on SQLite with a scripted model,
 * a bare `handbook` repository to make a project on, and Chromium with one page open.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { launch } from './chromium.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { bareRepo, git } from './e2e.js';
import { type ServerProcess, startServerProcess } from './processes.js';
import { type ScriptedModelServer, startScriptedModel } from './scripted-model.js';
import { useFixture } from './use-fixture.js';

export interface ChromiumServerOptions {
  /** Names the temporary folder (`agentjobs-<name>-…`). */
  name: string;
  /** The admin password the server is started with. */
  password: string;
  /** More environment for the server. */
  env?: Record<string, string>;
}

export interface ChromiumServer {
  /** The bare repository (a README on `main`). */
  bare: string;
  database: TestDatabase;
  model: ScriptedModelServer;
  server: ServerProcess;
  browser: Browser;
  context: BrowserContext;
  /** A page of 1280×860 in `context`. */
  page: Page;
  /** Closes the browser, the server and the model, drops the database and removes the folder. */
  close(): Promise<void>;
}

/** Starts everything (see the file's comment); `close` it after. */
export async function startChromiumServer(options: ChromiumServerOptions): Promise<ChromiumServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `agentjobs-${options.name}-`));
  const started: Partial<ChromiumServer> = {};
  const close = async () => {
    await started.browser?.close();
    await started.server?.stop();
    await started.model?.close();
    await started.database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const bare = bareRepo(dir, 'handbook', { 'README.md': '# Handbook\n\nWelcome.\n' });
    const model = await startScriptedModel();
    started.model = model;
    const database = await createTestDatabase('sqlite');
    started.database = database;
    const server = await startServerProcess({
      AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
      DATABASE_URL: database.url,
      AGENTJOBS_MODEL: 'openai-compatible:scripted',
      OPENAI_COMPATIBLE_BASE_URL: model.url,
      AGENTJOBS_ADMIN_PASSWORD: options.password,
      ...options.env,
    });
    started.server = server;
    const browser = await launch();
    started.browser = browser;
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    return { bare, database, model, server, browser, context, page, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `startChromiumServer` for a whole suite: started in its `beforeAll`, closed in its `afterAll`. */
export function useChromiumServer(options: ChromiumServerOptions): ChromiumServer {
  return useFixture(startChromiumServer, options, (started) => started.close());
}

/**
 * On the page of pull request 1: merges it into `main` and checks that it says so and that the
 * bare repository's `main` moved.
 */
export async function mergeIntoMain(page: Page, bare: string): Promise<void> {
  const before = git(bare, 'rev-parse', 'main');
  await page.getByRole('button', { name: 'Merge into main' }).click();
  await page.waitForURL('**/pulls/1?notice=merged');
  expect(await page.locator('#pull-state').textContent()).toBe('merged');
  expect(git(bare, 'rev-parse', 'main')).not.toBe(before);
}

/**
 * Signs in on the dashboard and makes a local project on `bare` through the New project form, as a
 * person would; returns the project's id (read from the keys page the form leads to).
 */
export async function signInWithLocalProject(page: Page, url: string, password: string, bare: string) {
  await page.goto(`${url}/ui`);
  await page.getByLabel('Admin password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/ui/projects');
  await page.getByRole('link', { name: 'New project' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Handbook');
  await page.getByLabel('Code host').selectOption('local');
  await page.getByLabel('Repository').fill(bare);
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.waitForURL(/\/ui\/projects\/[^/]+\/keys/);
  return /\/ui\/projects\/([^/]+)\/keys/.exec(page.url())?.[1] ?? '';
}
