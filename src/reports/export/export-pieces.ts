/**
 * Characters per piece handed to the response (D33). A piece is what the response buffers beyond
 * its limit when the client stops reading, so it is counted in text, not in issues: a batch of
 * long messages as one piece was megabytes per response. One issue's text longer than this is a
 * piece of its own.
 */
export const PIECE_CHARS = 32 * 1024;

/**
 * A document as pieces of about PIECE_CHARS: `head`, then each entry's text (an issue's), then
 * `tail`. Each entry is turned into text only when the piece before has been taken.
 */
export async function* documentInPieces<T>(
  head: string,
  batches: AsyncIterable<readonly T[]>,
  textOf: (entry: T, index: number) => string,
  tail: string,
): AsyncGenerator<string> {
  let piece = head;
  let index = 0;
  for await (const batch of batches) {
    for (const entry of batch) {
      piece += textOf(entry, index++);
      if (piece.length >= PIECE_CHARS) {
        yield piece;
        piece = '';
      }
    }
  }
  piece += tail;
  if (piece !== '') yield piece;
}
