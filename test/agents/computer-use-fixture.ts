/**
 * What the computer_use tests share: a test page that records clicks and typing in its title
 * (which `xdotool getwindowname`, and so computer_use's window list, shows), and the
 * processes a process started, to prove none are left.
 */
import fs from 'node:fs';

/**
 * The test page: a button filling the width from 100 to 400 pixels down (`b`), a text field
 * from 450 to 650 pixels down; each click sets the title to `clicked <n> at <x>,<y>[ on <id>]`,
 * typing to `typed <value>`.
 */
export const TEST_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>ready</title>
<style>html,body{margin:0;height:100%;background:#fff}
#b{position:absolute;left:0;right:0;top:100px;height:300px;background:#36c;color:#fff;font:32px sans-serif}
#t{position:absolute;left:0;width:90%;top:450px;height:200px;font:40px sans-serif}</style></head>
<body><button id="b">Press me</button><input id="t">
<script>let clicks=0;
document.addEventListener('click',e=>{clicks++;document.title='clicked '+clicks+' at '+e.clientX+','+e.clientY+(e.target.id?' on '+e.target.id:'');});
document.getElementById('t').addEventListener('input',e=>{document.title='typed '+e.target.value;});
</script></body></html>
`;

/** One process: its pid and command name. */
export interface ProcessInfo {
  pid: number;
  comm: string;
}

/** Every live descendant of `root` (children, their children...), from `/proc`. */
export function descendants(root: number): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const [state, ppid] = stat.slice(close + 2).split(' ');
      if (state === 'Z') continue;
      const list = children.get(Number(ppid)) ?? [];
      list.push({ pid: Number(entry), comm });
      children.set(Number(ppid), list);
    } catch {
      // gone meanwhile
    }
  }
  const out: ProcessInfo[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/** Whether `pid` is alive (not a zombie). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The pids of `pids` still alive after waiting up to 20 s for them to end (a bound, not a timing claim). */
export async function waitGone(pids: readonly number[]): Promise<number[]> {
  for (let i = 0; i < 200; i++) {
    const left = pids.filter(alive);
    if (left.length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return pids.filter(alive);
}
