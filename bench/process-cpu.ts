import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc reports CPU time in these ticks on every mainstream architecture. */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  ppid: number;
  userTicks: number;
  systemTicks: number;
  cpuTicks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: fields are counted after its last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const [userTicks, systemTicks] = [Number(fields[11]), Number(fields[12])];
    return { ppid: Number(fields[1]), userTicks, systemTicks, cpuTicks: userTicks + systemTicks };
  } catch {
    return undefined;
  }
}

/** A field of /proc/<pid>/status given in kB (VmHWM, RssAnon, RssFile…), in MB; 0 where there is none. */
export function processStatusMb(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) / 1024;
}

/**
 * CPU seconds (user + system) used so far by `pid` and every live descendant
 * (a service's UGS_WORKERS, a cluster ceiling's workers), from /proc; undefined
 * where there is no /proc. Read before and after a run, the difference is what
 * the run cost that side of the comparison, whatever the load generator used.
 */
export function processTreeCpuSeconds(pid: number): number | undefined {
  const root = readStat(pid);
  if (!root) return undefined;
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(entry)]);
  }
  let ticks = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.pop()!;
    ticks += next === pid ? root.cpuTicks : (readStat(next)?.cpuTicks ?? 0);
    pending.push(...(children.get(next) ?? []));
  }
  return ticks / TICKS_PER_SECOND;
}

/** What one process has asked of the kernel so far: write calls, bytes written, user and system CPU seconds. */
export interface ProcessIo {
  writeCalls: number;
  bytesWritten: number;
  userSeconds: number;
  systemSeconds: number;
}

/** /proc/<pid>/io and /proc/<pid>/stat of one process; undefined where there is no /proc. */
export function processIo(pid: number): ProcessIo | undefined {
  const stat = readStat(pid);
  try {
    const io = Object.fromEntries(
      readFileSync(`/proc/${pid}/io`, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(': ') as [string, string]),
    );
    if (!stat) return undefined;
    return {
      writeCalls: Number(io.syscw),
      bytesWritten: Number(io.wchar),
      userSeconds: stat.userTicks / TICKS_PER_SECOND,
      systemSeconds: stat.systemTicks / TICKS_PER_SECOND,
    };
  } catch {
    return undefined;
  }
}
