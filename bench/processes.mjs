// What the benchmark scripts share about the processes they start.

/**
 * Resolves with the first match of `pattern` in a child's output. From then on the output is only
 * drained: a server under load logs every request, and keeping or scanning that output here would
 * slow down the load generator that runs in this process.
 */
export function firstLine(child, pattern) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk) => {
      seen += chunk;
      const match = pattern.exec(seen);
      if (!match) return;
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      child.stdout.resume();
      child.stderr.resume();
      resolve(match);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${seen.slice(-2000)}`)));
  });
}
