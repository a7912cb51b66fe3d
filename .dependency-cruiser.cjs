// The layers of src/ (README, "Development"), checked by `npm run lint` on every source file that
// is not a test. Each rule is a sentence of that paragraph; keep the two in step.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No two files import each other in a circle, type-only imports included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-imports-nothing-of-ours',
      severity: 'error',
      comment: 'domain/ holds the nouns and rules: pure, no I/O, nothing of ours.',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'agent-git-hosts-know-no-storage-or-http',
      severity: 'error',
      comment: 'agent/, git/ and hosts/ get what they need passed in, never the store or a server part.',
      from: { path: '^src/(agent|git|hosts)/' },
      to: { path: '^src/(store|http|api|web|worker|cli|server\\.ts)' },
    },
    {
      name: 'api-and-web-are-siblings',
      severity: 'error',
      comment: 'What both need lives in http/; server.ts registers them side by side.',
      from: { path: '^src/(api|web)/' },
      to: { path: '^src/(api|web)/', pathNot: '^src/$1/' },
    },
    {
      name: 'api-and-worker-meet-only-in-store-and-domain',
      severity: 'error',
      from: { path: '^src/(api|worker)/' },
      to: { path: '^src/(api|worker)/', pathNot: '^src/$1/' },
    },
    {
      name: 'background-runs-on-store-domain-worker-webhooks-hosts',
      severity: 'error',
      comment:
        'background/ (the loop and what runs on it) reaches the store, the domain, a job run, webhook sending, the code hosts, metrics and config; nothing of the servers.',
      from: { path: '^src/background/' },
      to: {
        path: '^src/',
        pathNot: '^src/(background|store|domain|worker|webhooks|hosts|metrics)/|^src/(config|config-values|log)\\.ts$',
      },
    },
    {
      name: 'only-server-and-cli-start-background-work',
      severity: 'error',
      comment: 'server.ts (and the CLI) start the background loops; no other part reaches into them.',
      from: { path: '^src/', pathNot: '^src/(background/|cli/|server\\.ts$)' },
      to: { path: '^src/background/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
