/**
 * The log as people and machines meet it, from the built server: on a terminal (a real
 * pseudo-terminal, through util-linux `script`) readable lines in colour, with the first start's
 * password in a frame after them; on a pipe JSON lines; AGENTJOBS_LOG_FORMAT forces either. No
 * secret reaches a log line in any format.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, eachLine, spawnInGroup, startServerProcess } from '../support/processes.js';

const KEY = 'ajs_0123456789abcdefLEAKED';
const PROVIDER_KEY = 'sk-ant-0123456789abcdefghijLEAKED';
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-logs-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function baseEnv(name: string): Record<string, string> {
  return {
    AGENTJOBS_DATA_DIR: path.join(dir, name),
    AGENTJOBS_ADMIN_PASSWORD: '',
    ANTHROPIC_API_KEY: PROVIDER_KEY,
    LOG_LEVEL: 'debug',
    HOST: '127.0.0.1',
    PORT: '0',
  };
}

/** Requests that carry secrets where a careless log would copy them. */
async function sendSecrets(url: string) {
  await fetch(`${url}/v2/agent/nope/job?key=${KEY}`, { headers: { Authorization: `Bearer ${KEY}` } });
  await fetch(`${url}/ui/login`, { headers: { Cookie: `agentjobs_session=${KEY}` } });
}

/** The environment of a person's terminal: whether to colour is left to the terminal itself. */
function terminalEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...process.env, ...env, TERM: 'xterm-256color' };
  delete result.FORCE_COLOR;
  delete result.NO_COLOR;
  return result;
}

/** `agentjobs serve` on a pseudo-terminal; resolves once the password's frame is out. */
function serveOnTerminal(env: Record<string, string>) {
  const command = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} serve`;
  const child: ChildProcess = spawnInGroup('script', ['-qfec', command, '/dev/null'], {
    env: terminalEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const framed = new Promise<void>((resolve, reject) => {
    if (child.stdout)
      eachLine(child.stdout, (line) => {
        lines.push(line.replace(/\r$/, ''));
        if (line.includes('└')) resolve();
      });
    child.on('exit', () => reject(new Error(`serve exited:\n${lines.join('\n')}`)));
  });
  return { child, lines, exited, framed };
}

describe('logs', () => {
  it('on a terminal: readable coloured lines, then the password in a frame, never in a line', async () => {
    const server = serveOnTerminal(baseEnv('terminal'));
    try {
      await server.framed;
      const plain = server.lines.map((line) => stripVTControlCharacters(line));
      const listening = plain.findIndex((line) => line.includes('agentjobs is listening'));
      expect(listening, plain.join('\n')).toBeGreaterThanOrEqual(0);
      expect(plain.join('\n')).not.toBe(server.lines.join('\n')); // colour codes were there
      expect(plain.filter((line) => line.startsWith('{'))).toEqual([]);
      const url = /address: "(http:\/\/[^"]+)"/.exec(plain.join('\n'))?.[1] ?? '';
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      const top = plain.findIndex((line) => line.includes('┌'));
      const bottom = plain.findIndex((line) => line.includes('└'));
      expect(top).toBeGreaterThan(listening);
      const password = /Admin password \(shown this once\): (\w+)/.exec(plain.join('\n'))?.[1] ?? '';
      expect(password).toMatch(/^\w{20}$/);
      const withPassword = plain.flatMap((line, index) => (line.includes(password) ? [index] : []));
      expect(withPassword).toHaveLength(1);
      expect(withPassword[0]).toBeGreaterThan(top);
      expect(withPassword[0]).toBeLessThan(bottom);

      await sendSecrets(url);
      server.child.stdin?.write('\x03'); // Ctrl-C, as a person stops it
      expect(await server.exited).toBe(0);
      const all = server.lines.join('\n');
      expect(all).toContain('shutting down');
      expect(all).toContain('/v2/agent/nope/job');
      for (const secret of [KEY, PROVIDER_KEY]) expect(all).not.toContain(secret);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('on a pipe: JSON lines; AGENTJOBS_LOG_FORMAT=pretty forces readable ones', async () => {
    const json = await startServerProcess(baseEnv('pipe'));
    try {
      await sendSecrets(json.url);
      await expect.poll(() => json.output.some((line) => line.includes('/v2/agent/nope/job'))).toBe(true);
    } finally {
      await json.stop();
    }
    const logLines = json.output.filter((line) => line.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(3);
    for (const line of logLines) expect(() => JSON.parse(line)).not.toThrow();
    for (const secret of [KEY, PROVIDER_KEY]) expect(json.output.join('\n')).not.toContain(secret);

    const pretty = spawnInGroup(process.execPath, [CLI, 'serve'], {
      env: { ...terminalEnv(baseEnv('pipe')), AGENTJOBS_LOG_FORMAT: 'pretty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    const exited = new Promise((resolve) => pretty.on('exit', resolve));
    await new Promise<void>((resolve) => {
      if (pretty.stdout)
        eachLine(pretty.stdout, (line) => {
          lines.push(line);
          if (line.includes('agentjobs is listening')) resolve();
        });
    });
    pretty.kill('SIGTERM');
    await exited;
    expect(lines.some((line) => /INFO.*agentjobs is listening/.test(line))).toBe(true);
    expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
    // Not a terminal: no colour codes, whatever the format.
    expect(stripVTControlCharacters(lines.join('\n'))).toBe(lines.join('\n'));
  });
});
