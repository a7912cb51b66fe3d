// The scripted model as its own process: the URL it prints, a JSON script with a file wait, its log.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateText, stepCountIs } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnInGroup } from './processes.js';
import { modelAt, readFileTool, settledFlag, waitUntil } from './scripted-model-fixture.js';

const children: ChildProcess[] = [];
const tempDirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('scripted model as a standalone process', () => {
  const entry = fileURLToPath(new URL('./scripted-model.ts', import.meta.url));
  const root = fileURLToPath(new URL('../..', import.meta.url));

  /** Spawns the CLI and resolves with the URL it prints. */
  function spawnCli(args: string[]): Promise<{ child: ChildProcess; url: string }> {
    const child = spawnInGroup(process.execPath, ['--import', 'tsx', entry, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      let stdout = '';
      let stderr = '';
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      child.stdout?.on('data', (chunk) => {
        stdout += chunk;
        const newline = stdout.indexOf('\n');
        if (newline >= 0) resolve({ child, url: JSON.parse(stdout.slice(0, newline)).url });
      });
      child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
  }

  it('prints its URL, serves the JSON script with a file wait, and logs requests', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scripted-model-'));
    tempDirs.push(dir);
    const gateFile = join(dir, 'go');
    const logFile = join(dir, 'requests.jsonl');
    writeFileSync(
      join(dir, 'script.json'),
      JSON.stringify([
        { toolCalls: [{ name: 'read_file', input: { path: 'a.md' } }] },
        { waitForFile: gateFile },
        { text: 'Summary: read a.md.' },
      ]),
    );
    const { child, url } = await spawnCli([
      '--script',
      join(dir, 'script.json'),
      '--port',
      '0',
      '--log',
      logFile,
    ]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const calls: unknown[] = [];
    const run = generateText({
      model: modelAt(url),
      prompt: 'read a.md',
      tools: { read_file: readFileTool(calls) },
      stopWhen: stepCountIs(5),
      maxRetries: 0,
    });
    const state = settledFlag(run);
    await waitUntil(() => calls.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(state.settled).toBe(false);
    writeFileSync(gateFile, '');

    expect((await run).text).toBe('Summary: read a.md.');
    const logged = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(logged).toHaveLength(2);
    expect(logged[0].model).toBe('scripted-model');

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses a script it cannot read, naming the turn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scripted-model-'));
    tempDirs.push(dir);
    writeFileSync(join(dir, 'bad.json'), JSON.stringify([{ text: 'fine' }, { say: 'what?' }]));
    await expect(spawnCli(['--script', join(dir, 'bad.json')])).rejects.toThrow(/turn 2 needs "text"/);
  });
});
