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
      name: 'store-knows-the-domain-and-config-only',
      severity: 'error',
      comment: 'store/ is the Store and its queries: it reads the domain and its config, and serves every part.',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: '^src/(store/|domain/|config)' },
    },
    {
      name: 'nothing-imports-the-cli',
      severity: 'error',
      comment: 'cli/ is the command at the top: it may reach anything, and nothing reaches it.',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'config-reads-the-environment-only',
      severity: 'error',
      comment: 'config/ turns the environment into a validated, frozen config; it knows only the domain.',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: '^src/(config|domain)/' },
    },
    {
      name: 'client-imports-nothing-of-ours',
      severity: 'error',
      comment: 'client/ is the published typed client: its own files and its generated types only.',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/client/' },
    },
    {
      name: 'metrics-is-a-leaf',
      severity: 'error',
      comment: 'metrics/ is called by every part and calls none of them.',
      from: { path: '^src/metrics/' },
      to: { path: '^src/', pathNot: '^src/metrics/' },
    },
    {
      name: 'checks-and-eval-know-no-storage-or-http',
      severity: 'error',
      comment:
        'checks/ runs on a tree it is handed, eval/ runs the agent without a server: neither reaches the store or a server part.',
      from: { path: '^src/(checks|eval)/' },
      to: { path: '^src/((store|http|api|web|mcp|run|background|cli)/|server(-startup)?\\.ts)' },
    },
    {
      name: 'parse-runs-parsers-only',
      severity: 'error',
      comment:
        'parse/ runs the checks\' and the dashboard\'s parsers in worker threads: it loads those parsers and nothing else of ours.',
      from: { path: '^src/parse/' },
      to: {
        path: '^src/',
        pathNot: '^src/(parse/|domain/|checks/(page|site-config|syntax|frontmatter)\\.ts)',
      },
    },
    {
      name: 'webhooks-and-http-serve-no-one-part',
      severity: 'error',
      comment:
        'webhooks/ signs and sends, http/ is what the API and the dashboard share: neither reaches into a server part.',
      from: { path: '^src/(webhooks|http)/' },
      to: { path: '^src/((api|web|mcp|run|background|cli)/|server(-startup)?\\.ts)' },
    },
    {
      name: 'agent-git-hosts-know-no-storage-or-http',
      severity: 'error',
      comment: 'agent/, git/ and hosts/ get what they need passed in, never the store or a server part.',
      from: { path: '^src/(agent|git|hosts)/' },
      to: { path: '^src/(store|http|api|web|run|cli|server(-startup)?\\.ts)' },
    },
    {
      name: 'api-web-and-mcp-are-siblings',
      severity: 'error',
      comment:
        'They start jobs through the same operations (operations/), never through each other; what they share lives in http/ and operations/; server.ts registers them side by side.',
      from: { path: '^src/(api|web|mcp)/' },
      to: { path: '^src/(api|web|mcp)/', pathNot: '^src/$1/' },
    },
    {
      name: 'operations-serve-every-entry-point',
      severity: 'error',
      comment: 'The job operations know the store and the domain, never who calls them.',
      from: { path: '^src/operations/' },
      to: { path: '^src/((api|web|mcp|cli|http|run)/|server(-startup)?\\.ts)' },
    },
    {
      name: 'api-and-run-meet-only-in-store-and-domain',
      severity: 'error',
      from: { path: '^src/(api|run)/' },
      to: { path: '^src/(api|run)/', pathNot: '^src/$1/' },
    },
    {
      name: 'background-runs-on-store-domain-run-webhooks-hosts',
      severity: 'error',
      comment:
        'background/ (the loop and what runs on it) reaches the store, the domain, a job run, git (the watched repositories, the worker registry), webhook sending, the code hosts, metrics and config, and the job operations (an automation run creates its job through operations/, the one create path); nothing of the servers.',
      from: { path: '^src/background/' },
      to: {
        path: '^src/',
        pathNot: '^src/(background|store|domain|run|git|webhooks|hosts|metrics|config|operations)/|^src/log\\.ts$',
      },
    },
    {
      name: 'conversations-ask-through-operations',
      severity: 'error',
      comment:
        'conversations/ (Slack, and the intakes to come) turns a message into work through the job operations (operations/), on the store and the domain, with the background loop; it knows no other entry point and no run.',
      from: { path: '^src/conversations/' },
      to: { path: '^src/((api|web|mcp|cli|http|run|hosts|git|agent|checks)/|server(-startup)?\\.ts)' },
    },
    {
      name: 'only-server-and-cli-reach-conversations',
      severity: 'error',
      comment: 'server.ts wires the conversations in; the CLI stores their secrets. No other part reaches them.',
      from: { path: '^src/', pathNot: '^src/(conversations/|cli/|server\\.ts$)' },
      to: { path: '^src/conversations/' },
    },
    {
      name: 'only-server-and-cli-start-background-work',
      severity: 'error',
      comment:
        'server.ts (and the CLI) start the background parts; no other part reaches into them. The loop itself (background/loop.ts) is the one timer every periodic task runs on, whoever owns the task.',
      from: { path: '^src/', pathNot: '^src/(background/|cli/|server\\.ts$)' },
      to: { path: '^src/background/', pathNot: '^src/background/loop\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
