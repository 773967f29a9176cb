// The instances a signal thrown by an instance starts (extension,
// docs/signals.md), as Zeebe starts them: one of the latest version of each
// process of the account with a signal start event of its name. Once the
// batch that threw the signal committed, the throwing partition's leader
// takes 1 credit per such process (event-start-charges.ts), asks the
// signal's home partition to start at most that many — keyed by the thrown
// signal's key, so a redelivery after a crash is applied once — and gives
// back the credits of those not started; all of its own when the home
// answers with an earlier sending's result, which paid for its starts. A
// signal thrown at SIGNAL_START_GENERATIONS starts nothing, so a process
// started by the signal it throws stops there even when starts are free;
// and an account's thrown-signal starts wait their turn past
// THROWN_SIGNAL_STARTS a second (start-pace.ts), so a wide fan-out takes no
// more of the partition than that.
import { randomUUID } from 'node:crypto';
import { SIGNAL_START_GENERATIONS, THROWN_SIGNAL_STARTS } from '../../limits.ts';
import type { Variables } from '../../runtime/types.ts';
import type { SendCommand } from '../command-client.ts';
import type { CommandOrigin, EngineCommand, SignalOutcome } from '../commands.ts';
import { EngineError } from '../engine-error.ts';
import type { EventStartCharges } from '../event-start-charges.ts';
import { scoped } from '../keys.ts';
import { signalStartTargets } from '../message-starts.ts';
import type { ModelCache } from '../model-cache.ts';
import { signalHome } from '../signal-broadcast.ts';
import { StartPace, type PaceLimits } from './start-pace.ts';

/** A signal an instance threw, to deliver (and start instances by) once its batch committed. */
export interface ThrownSignal {
  key: string;
  account: string;
  name: string;
  variables: Variables;
  /** The thrower's signal generation (ProcessInstance.signalGeneration; 0 when absent). */
  generation: number;
}

const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 10_000;

/** Marks a retried step the leader's stop cut off. */
export const STOPPED = Symbol('stopped');

/**
 * Runs `attempt` until it resolves, waiting longer after each failure (a
 * partition without a leader now, backpressure, the store away); STOPPED
 * once `stopped()` says so between attempts. An attempt under way is
 * awaited: its answer counts even when the leader stopped meanwhile.
 */
export async function retrying<T>(stopped: () => boolean, attempt: () => Promise<T>): Promise<T | typeof STOPPED> {
  for (let wait = RETRY_MIN_MS; !stopped(); wait = Math.min(wait * 2, RETRY_MAX_MS)) {
    try {
      return await attempt();
    } catch {
      // Tried again below, unless the leader stopped.
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return STOPPED;
}

/** Waits `ms`, looking at `stopped()` every so often; false when the leader stopped first. */
async function waitUnlessStopped(ms: number, stopped: () => boolean): Promise<boolean> {
  for (let left = ms; left > 0 && !stopped(); left -= RETRY_MIN_MS) await new Promise((resolve) => setTimeout(resolve, Math.min(left, RETRY_MIN_MS)));
  return !stopped();
}

export class ThrownSignalStarts {
  private readonly pace: StartPace;

  constructor(
    private readonly parts: {
      partitions: number;
      models: ModelCache;
      charges: EventStartCharges;
      /** The engine's command client; undefined until the engine has one (tried again later). */
      send: () => SendCommand | undefined;
      stopped: () => boolean;
      /** Tests: another pace than THROWN_SIGNAL_STARTS. */
      pace?: PaceLimits;
    },
  ) {
    this.pace = new StartPace(parts.pace ?? THROWN_SIGNAL_STARTS);
  }

  /**
   * Starts what `signal` starts, charged. True once that is settled (nothing
   * to start, or the home answered and the unused credits went back); false
   * when the leader stopped first: the outbox row stays, and the next
   * leader's redelivery settles it (its home command answered as a replay
   * when this one's was applied).
   */
  async start(signal: ThrownSignal): Promise<boolean> {
    const { key, account, name, variables, generation } = signal;
    if (generation >= SIGNAL_START_GENERATIONS) return true;
    const { partitions, models, charges, stopped } = this.parts;
    const targets = await retrying(stopped, () => signalStartTargets(models, account, name));
    if (targets === STOPPED) return false;
    if (targets.length === 0) return true;
    const wait = this.pace.reserve(account, targets.length);
    if (wait > 0 && !(await waitUnlessStopped(wait, stopped))) return false;
    const taken = await retrying(stopped, () => charges.take(account, targets.length, 'signal-start', key));
    if (taken === STOPPED) return false;
    // Refused for balance: nothing starts; the waiting instances still get the signal (SignalOutbox).
    if (taken.granted === 0) return true;
    const origin: CommandOrigin = { fingerprint: `signal-start:${key}`, request: randomUUID() };
    const command: EngineCommand = {
      kind: 'broadcastSignal',
      account,
      name,
      variables,
      maxStarts: taken.granted,
      thrown: { signalKey: key, generation },
      origin,
    };
    const reply = await retrying(stopped, async () => {
      const send = this.parts.send();
      if (send === undefined) throw new Error('no command client yet');
      try {
        return await send(signalHome(account, name, partitions), command, scoped(account, `signal-start:${key}`));
      } catch (err) {
        // Refused for good (the home set the command aside): it started nothing, and sending it again gets the same answer.
        if (err instanceof EngineError && !err.retryable) return undefined;
        throw err;
      }
    });
    // Stopped without an answer: the command may still be applied, so the credits stay taken.
    if (reply === STOPPED) return false;
    const started = reply !== undefined && reply.origin?.request === origin.request ? (reply.value as SignalOutcome).started : 0;
    const back = taken.granted - started;
    if (back > 0 && (await retrying(stopped, () => taken.refund(back))) === STOPPED) return false;
    return true;
  }
}
