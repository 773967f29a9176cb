// The data directory lock against real processes: a directory another
// process holds is not taken (its PID is named), a holder that dies frees it
// at once, and a waiter gets it as soon as the holder lets go.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { dataDirHolder, DataDirInUseError, lockDataDir, pgliteDirectory } from './data-dir-lock.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dirs: string[] = [];
const children: ChildProcess[] = [];

async function newDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'orca-lock-'));
  dirs.push(dir);
  return dir;
}

/** Another process holding `dir` until it is killed or sent a line on stdin (then it releases and exits). */
async function holderProcess(dir: string): Promise<ChildProcess> {
  const script = `
    import { lockDataDir } from './engine/store/data-dir-lock.ts';
    const lock = await lockDataDir(${JSON.stringify(dir)});
    process.stdout.write('held\\n');
    process.stdin.once('data', async () => { await lock.release(); process.exit(0); });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve());
    child.once('exit', (code) => reject(new Error(`the holder exited first (code ${code})`)));
  });
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('lockDataDir', () => {
  it('refuses a directory another process holds, naming it, and takes it once that process died', async () => {
    const dir = await newDir();
    const holder = await holderProcess(dir);
    expect(await dataDirHolder(dir)).toEqual({ pid: holder.pid });
    const refused = await lockDataDir(dir, { waitMs: 300 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect((refused as DataDirInUseError).holder).toBe(holder.pid);
    expect((refused as Error).message).toContain(`pid ${holder.pid}`);

    // A crash leaves nothing behind to judge: the kernel freed the socket.
    holder.kill('SIGKILL');
    await exited(holder);
    expect(await dataDirHolder(dir)).toBeUndefined();
    const lock = await lockDataDir(dir, { waitMs: 0 });
    await lock.release();
  });

  it('waits for the holder to let go, telling who it waits for', async () => {
    const dir = await newDir();
    const holder = await holderProcess(dir);
    const told: (number | undefined)[] = [];
    const waiting = lockDataDir(dir, { waitMs: 30_000, onWait: (pid) => told.push(pid) });
    // Released only after the waiter has seen it held.
    while (told.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    holder.stdin!.write('release\n');
    const lock = await waiting;
    expect(told).toEqual([holder.pid]);
    await lock.release();
  });

  it('is one lock per directory, however it is spelled, and per process too', async () => {
    const dir = await newDir();
    const other = await newDir();
    const link = path.join(await newDir(), 'link');
    await symlink(dir, link);
    const lock = await lockDataDir(dir);
    await expect(lockDataDir(link, { waitMs: 0 })).rejects.toBeInstanceOf(DataDirInUseError);
    await expect(lockDataDir(path.join(dir, '.'), { waitMs: 0 })).rejects.toBeInstanceOf(DataDirInUseError);
    const unrelated = await lockDataDir(other, { waitMs: 0 });
    await unrelated.release();
    await lock.release();
    await lock.release();
    const again = await lockDataDir(link, { waitMs: 0 });
    await again.release();
  });

  it('creates a directory that is not there yet', async () => {
    const dir = path.join(await newDir(), 'a', 'b');
    const lock = await lockDataDir(dir);
    expect(await dataDirHolder(dir)).toEqual({ pid: process.pid });
    await lock.release();
  });
});

describe('pgliteDirectory', () => {
  it('is the directory PGlite writes, and none for data kept elsewhere', () => {
    expect(pgliteDirectory('./.orca-data')).toBe('./.orca-data');
    expect(pgliteDirectory('/var/lib/orca')).toBe('/var/lib/orca');
    expect(pgliteDirectory('file:///var/lib/orca')).toBe('/var/lib/orca');
    expect(pgliteDirectory('memory://')).toBeUndefined();
    expect(pgliteDirectory('idb://orca')).toBeUndefined();
  });
});
