/**
 * D40: an upload identical to one stored in the last 24 hours is a retry, answered with that report
 * and not stored again. The benchmark measures storing, so every upload it sends is another run: the
 * client's bytes with one value of `metadata` (which nothing reads) different each time. Built as two
 * Buffers around that value, so a 4 MB body costs one copy a request, not a JSON round trip.
 */
export function distinctRuns(text: string, label: string): () => Buffer {
  const marker = '\u0000run\u0000';
  const parsed = JSON.parse(text) as { metadata?: Record<string, unknown> };
  const [before, after] = JSON.stringify({ ...parsed, metadata: { ...parsed.metadata, bench_run: marker } })
    .split(JSON.stringify(marker))
    .map((part) => Buffer.from(part)) as [Buffer, Buffer];
  let runs = 0;
  return () => Buffer.concat([before, Buffer.from(JSON.stringify(`${label}-${process.pid}-${++runs}`)), after]);
}
