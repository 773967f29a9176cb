// One process at a time on a PGlite data directory. PGlite runs Postgres in
// WebAssembly and writes a made-up PID (-42) into postmaster.pid, so
// Postgres's own interlock never fires: a second process opens a directory
// that another one is still writing, replays the WAL as far as it finds it,
// writes a checkpoint of its own and goes on writing the same files. What
// the first process commits after that moment is missing in the second
// one's view (a completion the first acknowledged is offered again by the
// second), and after a crash the files lose it too, or no longer open at
// all (both seen before this lock). A restart that overlaps the old
// process is easy to come by: `npm start` returns at once on SIGTERM
// and leaves the server running (dash does not pass the signal on).
//
// The lock is a local socket the holder listens on, named after the
// directory's real path. The kernel frees it when the holder exits or dies,
// so there is no stale lock file to judge and no PID to outlive its process.
// On Linux it lives in the abstract namespace (no file at all; one network
// namespace, so two containers sharing a volume are not covered), on
// Windows it is a named pipe, and elsewhere a socket file in the temp
// directory, removed first when nobody answers on it. The holder tells
// whoever connects its PID, for the message. A process that finds the
// directory held waits for it — the old process may be finishing its
// graceful shutdown — and gives up after a bound with DataDirInUseError.
import { createHash } from 'node:crypto';
import { mkdir, realpath, rm } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** How long `lockDataDir` waits by default: a graceful shutdown's grace (25 s) and the engine's close, with room. */
export const DATA_DIR_LOCK_WAIT_MS = 60_000;
const RETRY_EVERY_MS = 200;
const PROBE_TIMEOUT_MS = 2_000;

export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    /** The holder's PID, when it said. */
    readonly holder: number | undefined,
    waitedMs: number,
  ) {
    super(
      `the PGlite data directory ${dataDir} is in use by another process${holder === undefined ? '' : ` (pid ${holder})`}, ` +
        `and it was not released within ${Math.round(waitedMs / 1000)} s. Only one process may open it at a time: ` +
        'stop the other one, or give this one another data directory.',
    );
  }
}

export interface DataDirLock {
  /** Frees the directory for the next process. Idempotent. */
  release(): Promise<void>;
}

/**
 * The directory PGlite will write for `dataDir`, or undefined when it keeps
 * its data elsewhere (memory://, or a browser store): PGlite's own reading
 * of the option — a `file://` prefix or a plain path is a directory.
 */
export function pgliteDirectory(dataDir: string): string | undefined {
  if (dataDir.startsWith('file://')) return dataDir.slice('file://'.length) || undefined;
  return /^[a-z0-9-]+:\/\//i.test(dataDir) ? undefined : dataDir;
}

/**
 * Takes the directory (creating it if need be), waiting up to `waitMs` while
 * another process holds it; `onWait` is told once, with the holder's PID,
 * when that happens.
 */
export async function lockDataDir(dir: string, options: { waitMs?: number; onWait?: (holder: number | undefined) => void } = {}): Promise<DataDirLock> {
  const waitMs = options.waitMs ?? DATA_DIR_LOCK_WAIT_MS;
  const address = await lockAddress(dir);
  const started = Date.now();
  let told = false;
  for (;;) {
    const server = await tryListen(address);
    if (server !== undefined) return held(server, address);
    const holder = await holderAt(address);
    if (holder === 'nobody') {
      // The holder is gone: a socket file it left is removed (two processes
      // starting at the same instant over a dead holder's file could both
      // get through here; Linux and Windows leave no file to race on).
      if (address.isFile) await rm(address.name, { force: true });
      continue;
    }
    if (!told) {
      told = true;
      options.onWait?.(holder);
    }
    if (Date.now() - started >= waitMs) throw new DataDirInUseError(dir, holder, waitMs);
    await new Promise((resolve) => setTimeout(resolve, RETRY_EVERY_MS));
  }
}

/** Whether another process holds `dir`, and its PID if it said (for a message before waiting); undefined when free. */
export async function dataDirHolder(dir: string): Promise<{ pid?: number } | undefined> {
  const holder = await holderAt(await lockAddress(dir));
  if (holder === 'nobody') return undefined;
  return holder === undefined ? {} : { pid: holder };
}

interface LockAddress {
  name: string;
  /** A socket file that outlives a holder that died. */
  isFile: boolean;
}

async function lockAddress(dir: string): Promise<LockAddress> {
  await mkdir(dir, { recursive: true });
  // The real path: two spellings of one directory (a symlink, ./x and x) are one lock.
  const id = createHash('sha256')
    .update(await realpath(dir))
    .digest('hex')
    .slice(0, 24);
  if (process.platform === 'linux') return { name: `\0orca-pglite-${id}`, isFile: false };
  if (process.platform === 'win32') return { name: `\\\\.\\pipe\\orca-pglite-${id}`, isFile: false };
  return { name: path.join(tmpdir(), `orca-pglite-${id}.sock`), isFile: true };
}

/** Listens on the address; undefined when it is taken. */
function tryListen(address: LockAddress): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      socket.on('error', () => {});
      socket.end(JSON.stringify({ pid: process.pid }));
    });
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(undefined) : reject(error)));
    server.listen(address.name, () => {
      // The lock must not keep the process alive.
      server.unref();
      resolve(server);
    });
  });
}

/** Who listens at the address: its PID, undefined when it answered something else, 'nobody' when no one listens. */
function holderAt(address: LockAddress): Promise<number | undefined | 'nobody'> {
  return new Promise((resolve) => {
    const socket = connect(address.name);
    let text = '';
    // Socket events come on a later turn, so `timer` is set before `done` can run.
    const done = (value: number | undefined | 'nobody') => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => done(undefined), PROBE_TIMEOUT_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => {
      try {
        const pid = (JSON.parse(text) as { pid?: unknown }).pid;
        done(typeof pid === 'number' ? pid : undefined);
      } catch {
        done(undefined);
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // Refused or gone: nobody listens. Anything else: someone may, so keep waiting.
      done(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? 'nobody' : undefined);
    });
  });
}

function held(server: Server, address: LockAddress): DataDirLock {
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= new Promise<void>((resolve) => server.close(() => resolve())).then(async () => {
        if (address.isFile) await rm(address.name, { force: true });
      });
      return released;
    },
  };
}
