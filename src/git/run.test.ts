import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askpassEnv, GitError, gitEnvironment, INHERITED_VARIABLES, runGit, subcommandOf } from './run.js';

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'agentjobs-run-'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('runGit', () => {
  it('returns stdout as bytes and passes stdin', async () => {
    const { stdout } = await runGit(['hash-object', '--stdin'], { input: 'hello\n' });
    expect(stdout.toString()).toBe('ce013625030ba8dba906f756967f9e9ca394464a\n');
  });

  it('runs with the hardened environment', async () => {
    const { stdout } = await runGit(['var', 'GIT_EDITOR'], { env: { GIT_EDITOR: 'true' } });
    expect(stdout.toString().trim()).toBe('true');
    const script =
      'printf \'%s|%s|%s|%s\' "$GIT_TERMINAL_PROMPT" "$GIT_CONFIG_NOSYSTEM" "$LC_ALL" "$(printenv GIT_DIR || echo unset)"';
    const previous = process.env.GIT_DIR;
    process.env.GIT_DIR = '/somewhere/else';
    try {
      // Outside any repository: run from a linked worktree, git itself exports GIT_DIR to aliases.
      const result = await runGit(['-c', `alias.env=!${script}`, 'env'], { cwd: root });
      expect(result.stdout.toString()).toBe('0|1|C|unset');
    } finally {
      if (previous === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = previous;
    }
  });

  it("gives hooks none of the service's secrets", async () => {
    // A repository used as a remote, whose post-receive hook dumps the environment git gives it.
    const remote = join(root, 'hooked.git');
    const dump = join(root, 'hook.env');
    await runGit(['init', '--quiet', '--bare', remote]);
    writeFileSync(join(remote, 'hooks', 'post-receive'), `#!/bin/sh\nenv > '${dump}'\n`, { mode: 0o755 });
    const local = join(root, 'pusher');
    await runGit(['init', '--quiet', '--initial-branch=main', local]);
    const identity = {
      GIT_AUTHOR_NAME: 'a',
      GIT_AUTHOR_EMAIL: 'a@e',
      GIT_COMMITTER_NAME: 'a',
      GIT_COMMITTER_EMAIL: 'a@e',
    };
    await runGit(['commit', '--quiet', '--allow-empty', '-m', 'x'], { cwd: local, env: identity });
    const secrets = {
      AGENTJOBS_SECRET_KEY: 'a-secret-key-that-must-stay-home-0123456789',
      OPENAI_COMPATIBLE_API_KEY: 'sk-provider-key-that-must-stay-home',
      AGENTJOBS_ADMIN_PASSWORD: 'admin password that must stay home',
      DATABASE_URL: 'postgres://user:password@db.example/agentjobs',
    };
    const previous = Object.fromEntries(Object.keys(secrets).map((name) => [name, process.env[name]]));
    Object.assign(process.env, secrets);
    try {
      await runGit(['push', '--quiet', remote, 'main'], { cwd: local });
    } finally {
      for (const [name, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    const dumped = readFileSync(dump, 'utf8');
    expect(dumped).toMatch(/^PATH=/m);
    for (const [name, value] of Object.entries(secrets)) {
      expect(dumped).not.toContain(name);
      expect(dumped).not.toContain(value);
    }
  });

  it("runs no hook and no file-system monitor that a repository's own config names", async () => {
    // As in a folder copied with its .git, or the operator's local content repository: a hook for
    // each thing git does below, and core.fsmonitor, all writing to one marker file.
    const repository = join(root, 'hostile');
    const marker = join(root, 'hostile.marker');
    await runGit(['init', '--quiet', '--initial-branch=main', repository]);
    const script = (name: string) => `#!/bin/sh\necho ${name} >> '${marker}'\ncat > /dev/null\n`;
    for (const hook of [
      'pre-commit',
      'post-commit',
      'post-checkout',
      'post-merge',
      'reference-transaction',
      'post-index-change',
    ])
      writeFileSync(join(repository, '.git', 'hooks', hook), script(hook), { mode: 0o755 });
    writeFileSync(join(root, 'fsmonitor.sh'), script('fsmonitor'), { mode: 0o755 });
    await runGit(['config', 'core.fsmonitor', join(root, 'fsmonitor.sh')], { cwd: repository });
    const identity = {
      GIT_AUTHOR_NAME: 'a',
      GIT_AUTHOR_EMAIL: 'a@e',
      GIT_COMMITTER_NAME: 'a',
      GIT_COMMITTER_EMAIL: 'a@e',
    };
    writeFileSync(join(repository, 'page.md'), 'one\n');
    await runGit(['add', '--all'], { cwd: repository });
    await runGit(['commit', '--quiet', '-m', 'one'], { cwd: repository, env: identity });
    await runGit(['switch', '--quiet', '-c', 'other'], { cwd: repository });
    await runGit(['commit', '--quiet', '--allow-empty', '-m', 'two'], { cwd: repository, env: identity });
    await runGit(['switch', '--quiet', 'main'], { cwd: repository });
    await runGit(['merge', '--ff-only', '--quiet', 'other'], { cwd: repository });
    await runGit(['status', '--porcelain'], { cwd: repository });
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe('');
  });

  it('throws GitError with the subcommand, exit code and stderr, never env values', async () => {
    const secret = 'ghp_supersecrettokenvalue';
    const error = await runGit(['-C', root, 'rev-parse', secret], {
      env: { AGENTJOBS_GIT_TOKEN: secret },
    }).catch((caught) => caught);
    expect(error).toBeInstanceOf(GitError);
    expect(error).toMatchObject({
      subcommand: 'rev-parse',
      exitCode: 128,
      reason: 'exit',
      isRetryable: false,
    });
    expect(error.stderr).toMatch(/not a git repository/);
    expect(`${error.message} ${error.stderr}`).not.toContain(secret);
  });

  it('blanks a value of its environment that git echoes in stderr', async () => {
    const repository = join(root, 'echo');
    await runGit(['init', '--quiet', repository]);
    const secret = 'glpat-echoed-token-0123456789';
    const error = await runGit(['-C', repository, 'rev-parse', secret], {
      env: { AGENTJOBS_GIT_TOKEN: secret },
    }).catch((caught) => caught);
    expect(error).toBeInstanceOf(GitError);
    // git says "ambiguous argument '<the value>': unknown revision".
    expect(error.stderr).toContain("ambiguous argument '[redacted]'");
    expect(`${error.message} ${error.stderr}`).not.toContain(secret);
  });

  it('kills git on timeout and on abort', async () => {
    const slow = ['-c', 'alias.slow=!sleep 60', 'slow'];
    const started = performance.now();
    await expect(runGit(slow, { timeoutMs: 200 })).rejects.toMatchObject({
      reason: 'timeout',
      isRetryable: true,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(runGit(slow, { signal: controller.signal })).rejects.toMatchObject({ reason: 'aborted' });
    // Killed, not waited for: a git left running would take a minute.
    expect(performance.now() - started).toBeLessThan(30_000);
    await expect(runGit(['version'], { signal: AbortSignal.abort() })).rejects.toMatchObject({
      reason: 'aborted',
    });
  });

  it('stops reading at maxStdoutBytes', async () => {
    const result = await runGit(['-c', 'alias.yes=!yes', 'yes'], { maxStdoutBytes: 10_000 });
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBeGreaterThanOrEqual(10_000);
  });

  it('names the subcommand past global options', () => {
    expect(subcommandOf(['-C', '/x', '-c', 'a=b', '--literal-pathspecs', 'grep', '-n'])).toBe('grep');
  });
});

describe('gitEnvironment', () => {
  it("keeps only allowed variables, then hardens, then adds the caller's", () => {
    const from = {
      PATH: '/usr/bin',
      HOME: '/home/agentjobs',
      HTTPS_PROXY: 'http://proxy:3128',
      no_proxy: 'localhost',
      SSL_CERT_FILE: '/etc/ssl/cert.pem',
      AGENTJOBS_SECRET_KEY: 'secret',
      AGENTJOBS_ADMIN_PASSWORD: 'password',
      ANTHROPIC_API_KEY: 'key',
      DATABASE_URL: 'postgres://x',
      GIT_DIR: '/elsewhere',
      GIT_CONFIG_COUNT: '1',
      LC_ALL: 'de_DE.UTF-8',
    };
    expect(gitEnvironment({ GIT_INDEX_FILE: '/tmp/index' }, from)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/agentjobs',
      HTTPS_PROXY: 'http://proxy:3128',
      no_proxy: 'localhost',
      SSL_CERT_FILE: '/etc/ssl/cert.pem',
      GIT_TERMINAL_PROMPT: '0',
      GIT_CONFIG_NOSYSTEM: '1',
      LC_ALL: 'C',
      GIT_LITERAL_PATHSPECS: '1',
      GIT_INDEX_FILE: '/tmp/index',
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_0: 'core.hooksPath',
      GIT_CONFIG_VALUE_0: '/dev/null',
      GIT_CONFIG_KEY_1: 'core.fsmonitor',
      GIT_CONFIG_VALUE_1: 'false',
      GIT_CONFIG_KEY_2: 'protocol.ext.allow',
      GIT_CONFIG_VALUE_2: 'never',
    });
  });

  it("keeps the caller's config entries, with the hardening after them", () => {
    const env = gitEnvironment(
      { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'credential.helper', GIT_CONFIG_VALUE_0: '' },
      {},
    );
    expect(env).toMatchObject({
      GIT_CONFIG_COUNT: '4',
      GIT_CONFIG_KEY_0: 'credential.helper',
      GIT_CONFIG_VALUE_0: '',
      GIT_CONFIG_KEY_1: 'core.hooksPath',
      GIT_CONFIG_KEY_3: 'protocol.ext.allow',
    });
  });

  it('inherits nothing that names a secret or points at a repository', () => {
    for (const name of INHERITED_VARIABLES) {
      expect(name).not.toMatch(
        /KEY|TOKEN|SECRET|PASSWORD|DATABASE|AGENTJOBS|^GIT_(DIR|WORK_TREE|INDEX|CONFIG_COUNT)/,
      );
    }
  });
});

describe('askpassEnv', () => {
  const token = 'ghs_0123456789abcdefTOKEN';

  it('is empty without a token', () => {
    expect(askpassEnv(join(root, 'none'), null)).toEqual({});
  });

  it('writes a 0700 script once that holds no secret, and passes the token in the environment', () => {
    const dir = join(root, 'askpass');
    const env = askpassEnv(dir, { username: 'x-access-token', token });
    expect(env).toMatchObject({ AGENTJOBS_GIT_USERNAME: 'x-access-token', AGENTJOBS_GIT_TOKEN: token });
    const script = env.GIT_ASKPASS as string;
    expect(script.startsWith(dir)).toBe(true);
    expect(statSync(script).mode & 0o777).toBe(0o700);
    expect(readFileSync(script, 'utf8')).not.toContain(token);
    expect(
      Object.entries(env).filter(([name, value]) => name !== 'AGENTJOBS_GIT_TOKEN' && value.includes(token)),
    ).toEqual([]);
    const written = statSync(script).mtimeMs;
    askpassEnv(dir, { username: 'oauth2', token: 'another-token-value' });
    expect(statSync(script).mtimeMs).toBe(written);
  });

  it('answers git credential prompts with the token, with configured helpers switched off', async () => {
    // A helper from the user's global config would answer (and could store) otherwise.
    const globalConfig = join(root, 'gitconfig');
    writeFileSync(globalConfig, '[credential]\n\thelper = "!f() { echo password=from-helper; }; f"\n');
    const env: Record<string, string> = {
      ...askpassEnv(join(root, 'askpass'), { username: 'oauth2', token }),
      GIT_CONFIG_GLOBAL: globalConfig,
    };
    const fill = (environment: Record<string, string>) =>
      runGit(['credential', 'fill'], { env: environment, input: 'protocol=https\nhost=example.com\n\n' });
    expect((await fill(env)).stdout.toString()).toBe(
      `protocol=https\nhost=example.com\nusername=oauth2\npassword=${token}\n`,
    );
    const { GIT_CONFIG_COUNT: _count, ...withoutReset } = env;
    expect((await fill(withoutReset)).stdout.toString()).toContain('password=from-helper');
  });
});
