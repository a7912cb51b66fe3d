/**
 * The parse worker: what the checks parse of a repository's content (pages, front matter, JSON and
 * YAML files, site configurations) runs here, in a worker thread of parse-pool.ts, so that a file
 * that parses slowly or nests deeply costs a thread that can be stopped, never the event loop.
 */
import type { MessagePort } from 'node:worker_threads';
import type { CheckProblem } from '../domain/checks.js';
import { type ParsedPage, parsePage } from './page.js';
import {
  type MintlifyConfig,
  type MkdocsConfig,
  readMintlifyConfig,
  readMkdocsConfig,
} from './site-config.js';
import { checkSyntax } from './syntax.js';

/** One file to parse, named by its repository path. */
export type ParseTask =
  | { kind: 'page'; path: string; text: string; compile: boolean }
  | { kind: 'syntax'; path: string; text: string }
  | { kind: 'mintlify'; path: string; text: string }
  | { kind: 'mkdocs'; path: string; text: string };

/** What each kind of task answers. */
export interface ParseResults {
  page: ParsedPage;
  syntax: CheckProblem[];
  mintlify: MintlifyConfig;
  mkdocs: MkdocsConfig;
}

/** A task as the pool posts it: with the port on which the worker says it has started. */
export type PostedTask = ParseTask & { started: MessagePort };

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
      return readMintlifyConfig(task.text);
    case 'mkdocs':
      return readMkdocsConfig(task.text);
  }
}
