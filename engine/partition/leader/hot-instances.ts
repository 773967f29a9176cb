// The leader's hot instance cache: the partition's active instances, kept
// in memory between batches so most commands are applied without reading
// Postgres, and which instance owns each of their jobs (a job command names
// only its job). Loaded at recovery; an instance not in memory is read on
// demand and kept while it is active. Forgotten only once a batch that
// ended it is published (publish.ts), and wholesale after any failure.
// For the jobs this leader created itself it also knows every keyed
// command applied to them, so a client's keyed completion of such a job
// needs no command-log lookup (results.ts). Case instances (CMMN) are kept
// beside the process instances, all of them while they are live (recovery
// loads them; a case is never read on demand), their jobs in the same owner
// map: a job command finds its case the way it finds its process instance.
import type { CaseInstance } from '../../cmmn/runtime/types.ts';
import type { ProcessInstance } from '../../runtime/types.ts';
import type { Store } from '../../store/index.ts';

export interface Hot {
  account: string;
  instance: ProcessInstance;
  parentKey: string | null;
}

export interface HotCase {
  account: string;
  instance: CaseInstance;
  parentKey: string | null;
}

const NONE: readonly string[] = [];

export class HotInstances {
  private readonly hot = new Map<string, Hot>();
  private readonly cases = new Map<string, HotCase>();
  private readonly jobOwners = new Map<string, string>();
  /**
   * The keyed commands applied to each job this leader created (usually
   * none). A job loaded from Postgres is not here: an earlier leader may
   * have applied commands to it that only the command log remembers.
   */
  private readonly jobCommands = new Map<string, readonly string[]>();

  constructor(private readonly store: Store) {}

  get(instanceKey: string): Hot | undefined {
    return this.hot.get(instanceKey);
  }

  /** The live case instance `key`, if it is one of this partition's (they are all in memory). */
  getCase(key: string): HotCase | undefined {
    return this.cases.get(key);
  }

  /** Keeps a live case loaded at recovery, with its jobs. */
  rememberCase(account: string, instance: CaseInstance, parentKey: string | null): void {
    this.keepCase(account, instance, parentKey);
    for (const jobKey of Object.keys(instance.jobs)) this.jobOwners.set(jobKey, instance.key);
  }

  /** Keeps a case a batch applied a command to (its new jobs are owned one by one, ownJob). */
  keepCase(account: string, instance: CaseInstance, parentKey: string | null): void {
    if (!this.cases.has(instance.key)) this.cases.set(instance.key, { account, instance, parentKey });
  }

  /** The instance owning `jobKey`, if it is in memory. */
  ownerOf(jobKey: string): string | undefined {
    return this.jobOwners.get(jobKey);
  }

  /** The instance owning `jobKey`: from memory, else from the job's row. */
  async instanceOfJob(account: string, jobKey: string): Promise<string | undefined> {
    return this.jobOwners.get(jobKey) ?? (await this.store.jobs.getJob(account, jobKey))?.instanceKey;
  }

  remember(account: string, instance: ProcessInstance, parentKey: string | null): void {
    this.hot.set(instance.key, { account, instance, parentKey });
    for (const jobKey of Object.keys(instance.jobs)) {
      this.jobOwners.set(jobKey, instance.key);
      this.jobCommands.delete(jobKey);
    }
  }

  /** Keeps an instance a batch applied a command to (a new one, or one loaded but not kept). */
  keep(account: string, instance: ProcessInstance, parentKey: string | null): void {
    if (!this.hot.has(instance.key)) this.hot.set(instance.key, { account, instance, parentKey });
  }

  /** Records that `instanceKey` owns `jobKey`; whether the job was known already. */
  ownJob(jobKey: string, instanceKey: string): boolean {
    const existed = this.jobOwners.has(jobKey);
    this.jobOwners.set(jobKey, instanceKey);
    if (!existed) this.jobCommands.set(jobKey, NONE);
    return existed;
  }

  dropJob(jobKey: string): void {
    this.jobOwners.delete(jobKey);
    this.jobCommands.delete(jobKey);
  }

  /**
   * Whether the keyed command `commandKey` on `jobKey` certainly was never
   * applied: the job is one this leader created, is still there, and no
   * command with that key was applied to it.
   */
  neverApplied(jobKey: string, commandKey: string): boolean {
    const applied = this.jobCommands.get(jobKey);
    return applied !== undefined && !applied.includes(commandKey);
  }

  /** Notes a keyed command applied to `jobKey` (one that failed it, or was refused, leaves the job in place). */
  applied(jobKey: string, commandKey: string): void {
    const applied = this.jobCommands.get(jobKey);
    if (applied !== undefined) this.jobCommands.set(jobKey, [...applied, commandKey]);
  }

  forget(instanceKey: string): void {
    const hot = this.hot.get(instanceKey) ?? this.cases.get(instanceKey);
    if (hot === undefined) return;
    for (const jobKey of Object.keys(hot.instance.jobs)) this.dropJob(jobKey);
    this.hot.delete(instanceKey);
    this.cases.delete(instanceKey);
  }

  /** Visits every instance in memory. */
  each(visit: (hot: Hot) => void): void {
    for (const hot of this.hot.values()) visit(hot);
  }

  clear(): void {
    this.hot.clear();
    this.cases.clear();
    this.jobOwners.clear();
    this.jobCommands.clear();
  }

  /** The instance from memory, else from Postgres (kept when still active); undefined when missing or another account's. */
  async load(account: string, instanceKey: string): Promise<Hot | undefined> {
    const hot = this.hot.get(instanceKey);
    if (hot !== undefined) return hot.account === account ? hot : undefined;
    const row = await this.store.instances.getInstance(account, instanceKey);
    if (row === null) return undefined;
    const loaded = { account, instance: row.document, parentKey: row.parentKey ?? null };
    if (row.document.state === 'ACTIVE' || row.document.state === 'INCIDENT') this.remember(account, row.document, loaded.parentKey);
    return loaded;
  }
}
