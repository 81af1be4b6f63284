/**
 * The watchdog process of {@link ../server-guard.ts}: started by a test process with a pipe on
 * its standard input, in a session of its own (so that a kill of the test's process group
 * spares it). It reads one JSON order a line: `{"id", "kill": pid, "signal"?, "group"?}` (on
 * the end, send that process `signal` (default SIGKILL), and SIGKILL to it, or to its process
 * group, if it is still there 10 s later; only while it is the process it was when the order
 * came: its start time in /proc is checked, so a reused pid is never hit),
 * `{"id", "remove": folder}` (remove that folder), `{"id", "forget": true}`, or
 * `{"disarm": true}` (the owner cleaned up itself). When its standard input ends (the owner
 * exited, or was killed: the kernel closes the pipe) and it was not disarmed, it kills what it
 * was told to, waits until those processes are gone (up to 30 s), removes the folders, and exits.
 */
import fs from 'node:fs';
import { createInterface } from 'node:readline';

interface Kill { kind: 'kill'; pid: number; signal: NodeJS.Signals; group: boolean; started: string }
interface Remove { kind: 'remove'; folder: string }

const orders = new Map<string, Kill | Remove>();
let disarmed = false;

/** Field 22 of /proc/PID/stat (start time in clock ticks since boot), or undefined when gone. */
function startTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Whether `pid` is still the process that had start time `started` (and not a zombie). */
function alive(pid: number, started: string): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] === started && fields[0] !== 'Z';
  } catch {
    return false;
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  let order: { id?: string; kill?: number; signal?: NodeJS.Signals; group?: boolean; remove?: string; forget?: boolean; disarm?: boolean };
  try {
    order = JSON.parse(line) as typeof order;
  } catch {
    return;
  }
  if (order.disarm === true) disarmed = true;
  if (order.id === undefined) return;
  if (order.forget === true) orders.delete(order.id);
  else if (typeof order.kill === 'number') {
    const started = startTime(order.kill);
    if (started !== undefined) orders.set(order.id, { kind: 'kill', pid: order.kill, signal: order.signal ?? 'SIGKILL', group: order.group === true, started });
  } else if (typeof order.remove === 'string') orders.set(order.id, { kind: 'remove', folder: order.remove });
});

/** Send `signal` to `pid` (or its group) while it is the process of start time `started`. */
function signal(pid: number, started: string, name: NodeJS.Signals, group: boolean): void {
  if (!alive(pid, started)) return;
  try {
    process.kill(group ? -pid : pid, name);
  } catch {
    try {
      process.kill(pid, name); // not a group's leader
    } catch {
      // gone meanwhile
    }
  }
}

/** Wait until none of `kills` is alive, or `ms` has passed. */
async function gone(kills: Kill[], ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (kills.some((k) => alive(k.pid, k.started)) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
}

process.stdin.once('close', async () => {
  if (disarmed) process.exit(0);
  const kills = [...orders.values()].filter((o): o is Kill => o.kind === 'kill');
  for (const k of kills) signal(k.pid, k.started, k.signal, false);
  await gone(kills, 10_000);
  for (const k of kills) signal(k.pid, k.started, 'SIGKILL', k.group);
  await gone(kills, 20_000);
  for (const order of orders.values()) if (order.kind === 'remove') fs.rmSync(order.folder, { recursive: true, force: true });
  process.exit(0);
});
