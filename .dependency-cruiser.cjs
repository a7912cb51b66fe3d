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
      name: 'api-web-and-mcp-are-siblings',
      severity: 'error',
      comment:
        'They start jobs through the same operations (jobs/), never through each other; what they share lives in http/ and jobs/; server.ts registers them side by side.',
      from: { path: '^src/(api|web|mcp)/' },
      to: { path: '^src/(api|web|mcp)/', pathNot: '^src/$1/' },
    },
    {
      name: 'jobs-serve-every-entry-point',
      severity: 'error',
      comment: 'The job operations know the store and the domain, never who calls them.',
      from: { path: '^src/jobs/' },
      to: { path: '^src/(api|web|mcp|cli|http|worker|server\\.ts)' },
    },
    {
      name: 'api-and-worker-meet-only-in-store-and-domain',
      severity: 'error',
      from: { path: '^src/(api|worker)/' },
      to: { path: '^src/(api|worker)/', pathNot: '^src/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
