import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { cliIo } from './cli-io.js';
import { OperatorError } from './operator-error.js';
import { trimInvisible } from '../wire/storable-text.js';

/**
 * E7: a password never appears on a command line (shell history, `ps`). `users:password` and
 * `users:create --password-stdin` read it from standard input: piped, everything up to the end; at
 * a terminal, typed twice at a prompt that does not echo it. Trimmed as the API trims every string
 * it reads (D12), the sign-in's password included, so that what is set here is what signs in.
 */
export async function readPassword(input: NodeJS.ReadableStream & { isTTY?: boolean } = cliIo().stdin): Promise<string> {
  if (input.isTTY) {
    const first = await promptHidden(input, 'Password: ');
    const again = await promptHidden(input, 'Password again: ');
    if (first !== again) throw new OperatorError('The two passwords do not match.');
    return trimInvisible(first);
  }
  let text = '';
  input.setEncoding('utf8');
  for await (const chunk of input) text += chunk;
  return trimInvisible(text);
}

async function promptHidden(input: NodeJS.ReadableStream, question: string): Promise<string> {
  cliIo().stderr.write(question);
  // What the person types goes nowhere; readline still reads it line by line.
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const lines = createInterface({ input, output: silent, terminal: true });
  try {
    const answer = await new Promise<string>((resolve) => lines.once('line', resolve));
    cliIo().stderr.write('\n');
    return answer;
  } finally {
    lines.close();
  }
}
