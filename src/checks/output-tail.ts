/** The tail of a sandboxed command's output (sandbox.ts). */

/** The last `limit` bytes of a stream, however much of it comes. */
export class OutputTail {
  private chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.kept - (this.chunks[0]?.length ?? 0) >= this.limit) {
      this.kept -= (this.chunks.shift() as Buffer).length;
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    // Cut at the limit, then drop a partial UTF-8 character at the start.
    return all
      .subarray(Math.max(0, all.length - this.limit))
      .toString('utf8')
      .replace(/^\uFFFD+/, '');
  }
}
