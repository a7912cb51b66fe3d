// The git side of bench/job.mjs, timed with the server stopped: mirror fetch, workspace, read tools.
import path from 'node:path';
import { NEEDLE, pagePath } from './repos.mjs';

const now = () => performance.timeOrigin + performance.now();

async function timeRuns(runs, task) {
  const times = [];
  for (let n = 0; n < runs; n++) {
    const started = now();
    await task(n);
    times.push(now() - started);
  }
  return times;
}

/**
 * `runs` times each: the mirror fetch, Workspace.create (workspaces in `temp`), and the agent's
 * list_files, read_file and search_files on the mirror at `mirrorPath` the jobs of `repo` made.
 */
export async function timeGitSide(repo, mirrorPath, { runs, temp }) {
  const { ensureMirror } = await import(new URL('../dist/git/mirror.js', import.meta.url));
  const { Workspace } = await import(new URL('../dist/git/workspace.js', import.meta.url));
  const { createTools } = await import(new URL('../dist/agent/tools/index.js', import.meta.url));
  const mirrorsDir = path.dirname(mirrorPath);
  const projectId = path.basename(mirrorPath, '.git');
  const fetch = await timeRuns(runs, () =>
    ensureMirror({ mirrorsDir, projectId, repository: repo.upstream, env: {} }),
  );
  const create = [];
  for (let n = 0; n < runs; n++) {
    const started = now();
    const workspace = await Workspace.create({
      mirrorPath,
      dir: path.join(temp, `ws-${repo.files}-${n}`),
      branch: `bench/create-${n}`,
      baseRef: 'main',
    });
    create.push(now() - started);
    await workspace.close();
  }
  const workspace = await Workspace.create({
    mirrorPath,
    dir: path.join(temp, `ws-${repo.files}-tools`),
    branch: 'bench/tools',
    baseRef: 'main',
  });
  const tools = createTools(workspace, { onPlan() {}, checkChange: () => null });
  const options = { toolCallId: 'bench', messages: [] };
  const target = pagePath(Math.floor(repo.files / 2) + 7, repo.files);
  const results = {
    fetch,
    create,
    list: await timeRuns(runs, () => tools.list_files.execute({}, options)),
    read: await timeRuns(runs, () => tools.read_file.execute({ path: target }, options)),
    search: await timeRuns(runs, () => tools.search_files.execute({ query: NEEDLE }, options)),
  };
  const listed = await tools.list_files.execute({}, options);
  const found = await tools.search_files.execute({ query: NEEDLE }, options);
  if (!listed.startsWith(`${repo.files} files`)) throw new Error(`list_files: ${listed.slice(0, 200)}`);
  if (!found.includes(NEEDLE)) throw new Error(`search_files: ${found.slice(0, 200)}`);
  await workspace.close();
  return results;
}
