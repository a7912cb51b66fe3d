/**
 * A scripted OpenAI-compatible model server for end-to-end tests.
 *
 * It speaks just enough of OpenAI's Chat Completions protocol for the AI SDK's
 * `@ai-sdk/openai-compatible` provider, and answers each `POST /v1/chat/completions` with the next turn
 * of a script instead of a model. `GET /v1/models` lists one model.
 *
 * The pieces, each in a file of its own: the turns of a script and how they settle
 * (scripted-model-script.ts), the Chat Completions objects and chunks a turn is sent as, with where
 * those shapes come from (scripted-model-wire.ts), and the HTTP server (scripted-model-server.ts).
 * This file is the entry point: tests import it, and bench/job.mjs runs it by this path.
 *
 * Standalone: `node --import tsx test/support/scripted-model.ts --script turns.json [--port 0]
 * [--host 127.0.0.1] [--log requests.jsonl]` prints `{"url":"http://…/v1"}` on one line once listening.
 * The JSON script is an array of turns as `ScriptedTurn` (scripted-model-script.ts) describes them,
 * except that a wait is `{ "waitForFile": "/path", "then": turn }` (or, without `then`, it releases
 * into the turn that follows it in the array); the request is held until that file exists.
 */
import { appendFileSync, readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { scriptFromJson } from './scripted-model-script.js';
import { listen } from './scripted-model-server.js';

export { heldUntil, type ScriptedTurn } from './scripted-model-script.js';
export {
  type ScriptedModelOptions,
  type ScriptedModelServer,
  startScriptedModel,
} from './scripted-model-server.js';

// ---- standalone process ----------------------------------------------------------------------------

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      script: { type: 'string' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      log: { type: 'string' },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`--port: not a port: ${values.port}`);
  const script = values.script
    ? scriptFromJson(JSON.parse(readFileSync(values.script, 'utf8')), values.script)
    : [];
  const log = values.log;
  const onRequest = log ? (body: unknown) => appendFileSync(log, `${JSON.stringify(body)}\n`) : undefined;
  const server = await listen({ script, port, host: values.host }, onRequest);
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
}

function isMainModule(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (isMainModule()) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`scripted-model: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
