export type { ResolveModel, RunAgent } from './agent-port.js';
export { RunStopped, type StopReason } from './errors.js';
export { createWorker, type Worker, type WorkerOptions } from './worker.js';
