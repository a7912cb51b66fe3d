/**
 * The parse worker: what the checks parse of a repository's content (pages, front matter, JSON and
 * YAML files, site configurations), the dashboard's Markdown rendering and glob matching run here, in a worker thread of pool.ts, so that a file
 * that parses slowly or nests deeply costs a thread that can be stopped, never the event loop.
 */
import type { MessagePort } from 'node:worker_threads';
import { type ParsedPage, parsePage } from '../checks/page.js';
import {
  type MintlifyConfig,
  type MkdocsConfig,
  readMintlifyConfig,
  readMkdocsConfig,
} from '../checks/site-config.js';
import { checkSyntax } from '../checks/syntax.js';
import type { CheckProblem } from '../domain/checks.js';
import { matchGlob } from './glob.js';
import { renderMarkdown } from './markdown-render.js';

/** One file to parse, named by its repository path. */
export type ParseTask =
  | { kind: 'page'; path: string; text: string; compile: boolean }
  | { kind: 'syntax'; path: string; text: string }
  | { kind: 'mintlify'; path: string; text: string; key?: string | null }
  | { kind: 'mkdocs'; path: string; text: string }
  | { kind: 'markdown'; path: string; text: string }
  | { kind: 'glob'; path: string; files: string[]; folder: string; pattern: string };

/** What each kind of task answers. */
export interface ParseResults {
  page: ParsedPage;
  syntax: CheckProblem[];
  mintlify: MintlifyConfig;
  mkdocs: MkdocsConfig;
  /** The dashboard's HTML of a description, null when it is too deep to render. */
  markdown: string | null;
  /** The files that match the pattern. */
  glob: string[];
}

/** A task as the pool posts it: with the port on which the worker says it has started. */
export type PostedTask = ParseTask & { started: MessagePort };

/** Parses one task (piscina calls the default export); never throws for what the text holds. */
export default async function parse(task: PostedTask): Promise<ParseResults[ParseTask['kind']]> {
  // The time budget counts from here, not from when the task was queued behind others.
  task.started.postMessage(null);
  task.started.close();
  switch (task.kind) {
    case 'page':
      return parsePage(task.path, task.text, { compile: task.compile });
    case 'syntax':
      return checkSyntax(task.path, task.text);
    case 'mintlify':
      return readMintlifyConfig(task.text, task.key ?? null);
    case 'mkdocs':
      return readMkdocsConfig(task.text);
    case 'markdown':
      return renderMarkdown(task.text);
    case 'glob':
      return matchGlob(task.files, task.folder, task.pattern);
  }
}
