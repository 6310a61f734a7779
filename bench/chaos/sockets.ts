import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Which process owns the local end of a TCP connection from 127.0.0.1:`port` (Linux, from /proc):
 * the receiver sees the sender's port, this finds the instance that holds the attempt.
 * Returns how many of `ports` each pid of `pids` holds.
 */
export function holders(ports: number[], pids: number[]): Map<number, number> {
  const inodes = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      if (!local) continue;
      const port = Number.parseInt(local.split(':').at(-1)!, 16);
      if (ports.includes(port)) inodes.set(fields[9]!, port);
    }
  }
  const held = new Map<number, number>();
  for (const pid of pids) {
    let count = 0;
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' }).match(/^socket:\[(\d+)\]$/)?.[1];
        if (target !== undefined && inodes.has(target)) count += 1;
      }
    } catch {
      // gone, or not ours to read: counted as holding none
    }
    held.set(pid, count);
  }
  return held;
}
