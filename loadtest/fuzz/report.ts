// What a fuzz run prints: each finding once with the request that produced
// it (a readable preview here, and a shell script with the exact bytes in
// the findings directory, since bodies run to megabytes and paths to
// 100,000 characters), then the counts per operation, per mutation kind and
// per status, the canary checks, and a last line of JSON for scripts.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FuzzRequest } from './generate.ts';
import type { Finding, Stall, Stats } from './runner.ts';

export interface CanaryLog {
  /** When, in seconds since the fuzzing began; negative before it. */
  at: number;
  ok: boolean;
  summary: string;
}

export interface RunSummary {
  backend: string;
  seed: number;
  concurrency: number;
  seconds: number;
  stoppedBy: string;
  stats: Stats;
  findings: Finding[];
  stalls: Stall[];
  canaries: CanaryLog[];
  findingsDir: string;
}

const SECRET = /orca[a-z]?_[A-Za-z0-9_-]{20,}/g;
const mask = (text: string) => text.replace(SECRET, '$KEY');
const PREVIEW = 300;

function preview(text: string): string {
  const shown = JSON.stringify(text.length > PREVIEW ? text.slice(0, PREVIEW) : text);
  return text.length > PREVIEW ? `${shown}… (${text.length} characters)` : shown;
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** Writes finding-N.sh (and finding-N.body) reproducing the request against $BASE with $KEY; returns the script's path. */
export function writeReproducer(dir: string, n: number, req: FuzzRequest): string {
  mkdirSync(dir, { recursive: true });
  const script = path.join(dir, `finding-${n}.sh`);
  const withKey = (text: string) => text.split(SECRET).map(shellQuote).join('"${KEY}"');
  const args = ['curl', '-sS', '-i', '--path-as-is', '-X', req.method, `"\${BASE}"${withKey(req.url)}`];
  for (const [name, value] of Object.entries(req.headers)) args.push('-H', withKey(`${name}: ${value}`));
  if (req.body !== undefined) {
    const bodyFile = path.join(dir, `finding-${n}.body`);
    writeFileSync(bodyFile, req.body);
    args.push('--data-binary', shellQuote(`@${bodyFile}`));
  }
  writeFileSync(script, `#!/bin/sh\n# ${req.operation}, mutation ${req.mutation}. Needs BASE (e.g. http://127.0.0.1:8080) and KEY.\n${args.join(' ')}\n`, {
    mode: 0o755,
  });
  return script;
}

export function formatFinding(n: number, finding: Finding, dir: string): string {
  const lines = [`#${n} ${finding.kind} — ${finding.operation} (${finding.count}×; mutations: ${[...finding.mutations].join(', ')})`];
  lines.push(...formatRequest(n, finding.request, dir));
  lines.push(`   answer: ${mask(finding.answer.replace(/\s+/g, ' ').slice(0, 400))}`);
  return lines.join('\n');
}

/** A stalled partition, with the request most likely to have stalled it. */
export function formatStall(n: number, stall: Stall, dir: string): string {
  return [
    `#${n} partition ${stall.partition} stopped answering; the earliest-sent request it answered with a 503 (sent ${stall.sentAt.toFixed(1)} s into the run, ` +
      `usually the one that stalled it): ${stall.request.operation} (${stall.request.mutation})`,
    ...formatRequest(n, stall.request, dir),
  ].join('\n');
}

function formatRequest(n: number, req: FuzzRequest | undefined, dir: string): string[] {
  const lines: string[] = [];
  if (req) {
    lines.push(`   ${req.method} ${mask(preview(req.url))}`);
    const headers = Object.entries(req.headers).map(([k, v]) => `${k}: ${mask(v.length > 100 ? `${v.slice(0, 100)}…` : v)}`);
    if (headers.length > 0) lines.push(`   headers: ${headers.join('; ')}`);
    if (req.body !== undefined) lines.push(`   body: ${req.body.length} bytes: ${mask(preview(req.body.toString('utf8')))}`);
    lines.push(`   reproduce: BASE=… KEY=… sh ${writeReproducer(dir, n, req)}`);
  }
  return lines;
}

function table(title: string, rows: [string, string][]): string {
  const width = Math.max(...rows.map(([k]) => k.length), 10);
  return [title, ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`)].join('\n');
}

const sorted = (map: Map<string, number>) => [...map.entries()].sort(([a], [b]) => a.localeCompare(b));
const statusList = (map: Map<string, number>) =>
  sorted(map)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');

export function formatSummary(run: RunSummary): string {
  const { stats } = run;
  const parts = [
    `orca fuzz: ${stats.sent} requests in ${run.seconds.toFixed(1)} s (stopped by ${run.stoppedBy}), seed ${run.seed}, concurrency ${run.concurrency}, backend ${run.backend}`,
    table(
      'Requests per operation:',
      sorted(stats.byOperation).map(([op, n]) => [op, String(n)]),
    ),
    table(
      'Requests per mutation kind (statuses):',
      sorted(stats.byMutation).map(([kind, n]) => [kind, `${n}   ${statusList(stats.byMutationStatus.get(kind) ?? new Map())}`]),
    ),
    `Statuses: ${statusList(stats.statuses)}`,
    table(
      'Partition canary:',
      run.canaries.map((c) => [c.at < 0 ? 'before' : `${c.at.toFixed(0)} s`, `${c.ok ? 'ok' : 'FAILED'}: ${c.summary}`]),
    ),
    run.findings.length === 0
      ? 'Findings: none.'
      : table(
          `Findings: ${run.findings.length}, listed above (reproducers in ${run.findingsDir}); by kind:`,
          [...byKind(run.findings)].sort(([a], [b]) => a.localeCompare(b)).map(([kind, ops]) => [kind, `${ops.length}: ${ops.join(', ')}`]),
        ),
  ];
  return parts.join('\n\n');
}

function byKind(findings: Finding[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of findings) out.set(f.kind, [...(out.get(f.kind) ?? []), f.operation]);
  return out;
}

export function resultLine(run: RunSummary): string {
  return JSON.stringify({
    ok: run.findings.length === 0,
    requests: run.stats.sent,
    seconds: Math.round(run.seconds * 10) / 10,
    seed: run.seed,
    backend: run.backend,
    statuses: Object.fromEntries(sorted(run.stats.statuses)),
    canaries: { runs: run.canaries.length, failed: run.canaries.filter((c) => !c.ok).length },
    findings: run.findings.map((f) => ({ operation: f.operation, kind: f.kind, count: f.count, mutations: [...f.mutations] })),
    stalledPartitions: run.stalls.map((s) => s.partition),
  });
}
