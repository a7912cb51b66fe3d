import fs from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/processes.js';
import { tempDir } from '../support/worker.js';

// A second `npm start` on a port already taken: one line that says what to do, not a stack.
describe('agentjobs serve on a port in use', () => {
  let dir: string;
  let holder: Server;
  let port: number;
  beforeAll(async () => {
    dir = tempDir('port-in-use');
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => holder.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('says the port is in use and how to choose another', async () => {
    const result = await runCli(['serve'], {
      AGENTJOBS_DATA_DIR: path.join(dir, 'data'),
      HOST: '127.0.0.1',
      PORT: String(port),
      AGENTJOBS_ADMIN_PASSWORD: 'port in use password',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `agentjobs: Port ${port} on 127.0.0.1 is in use: another agentjobs (or another program) listens there.`,
    );
    expect(result.stderr).toContain('PORT=8081');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
