import { Readable } from 'node:stream';

/**
 * D28: a report's answer as stored, gzip-compressed (detail-body.ts). A large one is read from the
 * database in pieces as the client takes them: a client that stops reading holds one piece and its
 * socket's buffers, never the whole answer.
 */
export interface ReportBody {
  /** Bytes of the compressed answer. */
  length: number;
  whole(): Promise<Buffer>;
  stream(): Readable;
}

/** Bytes read from the database at a time. */
export const BODY_PIECE_BYTES = 64 * 1024;

/**
 * Inflated bytes a small answer may have to be inflated at once for a client without gzip (D33);
 * beyond it the answer is inflated as the client reads. A report of repeated text compresses a
 * thousandfold: 64 KiB of it inflated whole was 9 MiB held for a client that stopped reading.
 */
export const INFLATE_WHOLE_BYTES = 256 * 1024;

/**
 * The inflated length a gzip member states in its trailer (RFC 1952 2.3.1, ISIZE: modulo 2^32,
 * exact for an answer under 4 GiB, which a report's is).
 */
export function inflatedLength(gzip: Buffer): number {
  return gzip.length < 18 ? 0 : gzip.readUInt32LE(gzip.length - 4);
}

export function bodyInMemory(gzip: Buffer): ReportBody {
  return { length: gzip.length, whole: async () => gzip, stream: () => Readable.from([gzip], { objectMode: false }) };
}

export function storedBody(
  stored: { id: number; length: number },
  readPiece: (bodyId: number, offset: number, size: number) => Promise<Buffer | undefined>,
): ReportBody {
  const read = async (offset: number, size: number) => {
    const piece = await readPiece(stored.id, offset, size);
    // Deleted (or replaced, under a new id) since it was found: what was sent cannot be completed.
    if (piece === undefined || piece.length !== size) throw new Error('The stored report answer changed while it was being read.');
    return piece;
  };
  return {
    length: stored.length,
    whole: () => read(0, stored.length),
    stream: () => {
      let offset = 0;
      return new Readable({
        read() {
          if (offset >= stored.length) {
            this.push(null);
            return;
          }
          const size = Math.min(BODY_PIECE_BYTES, stored.length - offset);
          read(offset, size).then(
            (piece) => {
              offset += size;
              this.push(piece);
            },
            (error: Error) => this.destroy(error),
          );
        },
      });
    },
  };
}
