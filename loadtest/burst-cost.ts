// What a burst of work cost, counted rather than timed (the machine is
// shared, so wall-clock figures are noisy): CPU time of this process and of
// a child (from /proc), and, on request, a CPU profile of this process for
// just that stretch (node:inspector), for loadtest/cpu-profile-top.ts.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { processCpuMs } from './process-cpu.ts';

export interface BurstCost {
  /** CPU milliseconds (user + system) since start, of this process and of the child. */
  cpuMs(): { self: number; child: number };
  /** Writes the profile taken since start, when one was asked for. */
  stopProfile(file: string): Promise<void>;
}

export async function measureBurst(options: { childPid: number; profile: boolean }): Promise<BurstCost> {
  let session: Session | undefined;
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) => session!.post(method, (error, result) => (error ? reject(error) : resolve(result))));
  if (options.profile) {
    session = new Session();
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.start');
  }
  const self = process.cpuUsage();
  const child = processCpuMs(options.childPid) ?? 0;
  return {
    cpuMs() {
      const used = process.cpuUsage(self);
      return { self: (used.user + used.system) / 1000, child: (processCpuMs(options.childPid) ?? 0) - child };
    },
    async stopProfile(file) {
      if (session === undefined) return;
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
      session = undefined;
    },
  };
}
