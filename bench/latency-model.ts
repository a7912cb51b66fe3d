// The model of `bench/concurrency.mjs`: the scripted OpenAI-compatible model of the tests
// (test/support/scripted-model.ts), answering every request after a fixed latency, with the turn
// chosen from the request itself so that any number of jobs can share it in any order:
//   no tool result yet → `list_files`; one → `write_file` (a page named after the job); more → a final answer.
// The job is named by `[bench <name>]` in its prompt. Every request is logged as one JSON line
// `{ job, step, arrived, answered }` (epoch ms) to the `--log` file, for the bench to read.
//
//   node --import tsx bench/latency-model.ts --latency 2000 --log calls.jsonl
// prints `{"url":"http://127.0.0.1:…/v1"}` once listening.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { heldUntil, type ScriptedTurn, startScriptedModel } from '../test/support/scripted-model.js';

const { values } = parseArgs({
  options: { latency: { type: 'string', default: '2000' }, log: { type: 'string' } },
});
const latencyMs = Number(values.latency);
const log = values.log;

interface Message {
  role: string;
  content: unknown;
}

function jobOf(messages: Message[]): string {
  for (const message of messages) {
    const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    const found = /\[bench ([\w.-]+)\]/.exec(text);
    if (found) return found[1] as string;
  }
  return 'unknown';
}

function turnFor(job: string, step: number): ScriptedTurn {
  if (step === 0) return { toolCalls: [{ name: 'list_files', input: {} }] };
  if (step === 1) {
    const content = `# ${job}\n\nWritten by the scripted model of the concurrency benchmark.\n`;
    return { toolCalls: [{ name: 'write_file', input: { path: `docs/bench/${job}.md`, content } }] };
  }
  return { text: `Added docs/bench/${job}.md.` };
}

const answer: ScriptedTurn = {
  answer(body: { messages?: Message[] }) {
    const arrived = Date.now();
    const messages = body.messages ?? [];
    const job = jobOf(messages);
    const step = messages.filter((message) => message.role === 'tool').length;
    return heldUntil(() => sleep(latencyMs), {
      answer() {
        if (log) appendFileSync(log, `${JSON.stringify({ job, step, arrived, answered: Date.now() })}\n`);
        return turnFor(job, step);
      },
    });
  },
};

// One turn per request; a million outlasts any run of the bench.
const server = await startScriptedModel({ script: Array.from({ length: 1_000_000 }, () => answer) });
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
