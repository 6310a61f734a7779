import { Writable } from 'node:stream';

/** A log stream that keeps everything written to it, for tests that read what the service logged. */
export class LogCapture extends Writable {
  text = '';

  override _write(chunk: unknown, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.text += String(chunk);
    done();
  }
}
