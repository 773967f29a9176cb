// Reads a V8 .cpuprofile (what `node --cpu-prof` writes) and prints where the
// CPU went: the top functions by self time, then self time summed per file
// (per package for node_modules), so a benchmark's hot spots can be named
// with file and function. Self time is summed from the sample time deltas,
// not hitCount × interval, so it stays right when sampling was irregular.
//   npx tsx loadtest/cpu-profile-top.ts /tmp/orca-prof [--top=25] [--files=15]
// A directory means the newest run's main-thread profile in it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  /** `function (file:line)`, or V8's own bucket: (idle), (program), (garbage collector). */
  name: string;
  file: string;
  ms: number;
  /** Share of the sampled time, 0..100. */
  percent: number;
}

export interface ProfileSummary {
  totalMs: number;
  functions: SelfTime[];
  files: SelfTime[];
  /**
   * Self time per project file or package, with native code and node
   * internals charged to the nearest caller that is one (socket writes land
   * on the client library that made them): who caused the work.
   */
  charged: SelfTime[];
}

const ROOT = `${pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')).href}/`;

/** Project files relative to the repository; node_modules by package; node internals as they are. */
export function shortFile(url: string): string {
  if (url === '') return '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    return `npm:${parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  return url.startsWith(ROOT) ? url.slice(ROOT.length) : url;
}

export function summariseProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const isCode = (url: string) => url !== '' && !url.startsWith('node:');
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; charging it to sample i is what DevTools does.
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, profile.timeDeltas[i] ?? 0));
  }
  let totalUs = 0;
  const functions = new Map<string, { file: string; us: number }>();
  const files = new Map<string, number>();
  const charged = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    totalUs += us;
    const file = shortFile(frame.url);
    const builtin = frame.functionName.startsWith('(') && frame.url === '';
    const name = builtin ? frame.functionName : `${frame.functionName || '(anonymous)'} (${file}:${frame.lineNumber + 1})`;
    const entry = functions.get(name) ?? { file, us: 0 };
    entry.us += us;
    functions.set(name, entry);
    const fileKey = builtin ? frame.functionName : file;
    files.set(fileKey, (files.get(fileKey) ?? 0) + us);
    let owner: number | undefined = id;
    while (owner !== undefined && !isCode(byId.get(owner)!.callFrame.url)) owner = parentOf.get(owner);
    const chargeKey = owner === undefined ? fileKey : shortFile(byId.get(owner)!.callFrame.url);
    charged.set(chargeKey, (charged.get(chargeKey) ?? 0) + us);
  }
  const toRow = (name: string, file: string, us: number): SelfTime => ({ name, file, ms: us / 1000, percent: totalUs === 0 ? 0 : (us / totalUs) * 100 });
  return {
    totalMs: totalUs / 1000,
    functions: [...functions].map(([name, e]) => toRow(name, e.file, e.us)).sort((a, b) => b.ms - a.ms),
    files: [...files].map(([file, us]) => toRow(file, file, us)).sort((a, b) => b.ms - a.ms),
    charged: [...charged].map(([file, us]) => toRow(file, file, us)).sort((a, b) => b.ms - a.ms),
  };
}

export function formatSummary(summary: ProfileSummary, top: number, topFiles: number): string {
  const row = (r: SelfTime, i: number) => `${String(i + 1).padStart(3)}  ${r.ms.toFixed(0).padStart(8)} ms  ${r.percent.toFixed(1).padStart(5)}%  ${r.name}`;
  return [
    `sampled ${(summary.totalMs / 1000).toFixed(2)} s`,
    '',
    `top ${top} functions by self time:`,
    ...summary.functions.slice(0, top).map(row),
    '',
    `top ${topFiles} files / packages by self time:`,
    ...summary.files.slice(0, topFiles).map(row),
    '',
    `top ${topFiles} files / packages with native code and node internals charged to their caller:`,
    ...summary.charged.slice(0, topFiles).map(row),
  ].join('\n');
}

/**
 * A .cpuprofile file, or from a directory the newest run's main-thread
 * profile: node writes one file per thread (`CPU.<date>.<time>.<pid>.<thread>.<seq>`),
 * and tsx's loader thread sits beside the main one, so of the newest run's
 * files the largest is taken.
 */
export function resolveProfile(target: string): string {
  if (!statSync(target).isDirectory()) return target;
  const candidates = readdirSync(target)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => {
      const full = path.join(target, f);
      const stat = statSync(full);
      return { full, pid: f.split('.')[3] ?? '', mtime: stat.mtimeMs, size: stat.size };
    });
  if (candidates.length === 0) throw new Error(`no .cpuprofile in ${target}`);
  const newest = candidates.reduce((a, b) => (b.mtime > a.mtime ? b : a));
  return candidates.filter((c) => c.pid === newest.pid).reduce((a, b) => (b.size > a.size ? b : a)).full;
}

function main(): void {
  let target: string | undefined;
  let top = 25;
  let topFiles = 15;
  for (const arg of process.argv.slice(2)) {
    const [flag, value] = arg.split('=', 2);
    if (flag === '--top' && Number(value) >= 1) top = Math.floor(Number(value));
    else if (flag === '--files' && Number(value) >= 0) topFiles = Math.floor(Number(value));
    else if (!arg.startsWith('--') && target === undefined) target = arg;
    else throw new Error(`Unknown or malformed argument '${arg}'. Usage: cpu-profile-top <file.cpuprofile | dir> [--top=N] [--files=N]`);
  }
  const file = resolveProfile(target ?? '/tmp/orca-prof');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  console.log(`${file}\n${formatSummary(summariseProfile(profile), top, topFiles)}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    main();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  }
}
