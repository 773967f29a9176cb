// The Redis key layout of the queues, in one place. Every key starts with
// the configured prefix and carries a hash tag, so each script touches one
// hash slot and runs unchanged on Redis Cluster:
//
//   <prefix>{a:<account>}:seq                 STRING  place-in-line counter
//   <prefix>{a:<account>}:q:<type>            ZSET    queued job keys by place in line
//   <prefix>{a:<account>}:active              ZSET    activated job keys by activation time
//   <prefix>{a:<account>}:j:<jobKey>          HASH    type, p, seq, st (q|a), job, vars, w, at
//   <prefix>{a:<account>}:p:<partition>       SET     the account's job keys on a partition
//   <prefix>{a:<account>}:rebuild:<partition> SET     staging set while rebuilding (transient)
//   <prefix>{p<partition>}:accounts           SET     accounts that have jobs on the partition
//   <prefix>{p<partition>}:commands           STREAM  the partition's command log
//   <prefix>{r:<commandKey>}:reply            STRING  a committed reply, kept for the reply TTL
//
// Channels (pub/sub is not slotted, the tags only keep names uniform):
//   <prefix>{a:<account>}:ready:<type>        a job of (account, type) became available
//   <prefix>{r:<commandKey>}:reply            a reply was sent (replies without replyTo)
//   <prefix>{i:<id>}:replies                  one process's reply inbox: a batch's replies
//                                             to the commands that process appended
//   <prefix>{n:<topic>}:notice                cluster-wide notices (Queues.notices)
//
// The scripts derive job, queue and partition keys of one account from the
// account's prefix; those share the slot of the keys they are passed.

/** Escapes what would end or open a hash tag early (and the escape itself). */
function tagSafe(value: string): string {
  return value.replace(/[%{}]/g, (ch) => (ch === '%' ? '%25' : ch === '{' ? '%7B' : '%7D'));
}

export class QueueKeys {
  readonly prefix: string;

  constructor(prefix: string) {
    if (/[{}]/.test(prefix)) throw new Error(`queue key prefix must not contain "{" or "}": ${JSON.stringify(prefix)}`);
    this.prefix = prefix;
  }

  /** Prefix of every key of one account; the scripts append the rest. */
  account(account: string): string {
    return `${this.prefix}{a:${tagSafe(account)}}:`;
  }

  seq(account: string): string {
    return `${this.account(account)}seq`;
  }

  queue(account: string, type: string): string {
    return `${this.account(account)}q:${type}`;
  }

  active(account: string): string {
    return `${this.account(account)}active`;
  }

  job(account: string, jobKey: string): string {
    return `${this.account(account)}j:${jobKey}`;
  }

  partitionJobs(account: string, partition: number): string {
    return `${this.account(account)}p:${partition}`;
  }

  rebuildStaging(account: string, partition: number): string {
    return `${this.account(account)}rebuild:${partition}`;
  }

  ready(account: string, type: string): string {
    return `${this.account(account)}ready:${type}`;
  }

  partitionAccounts(partition: number): string {
    return `${this.prefix}{p${partition}}:accounts`;
  }

  commands(partition: number): string {
    return `${this.prefix}{p${partition}}:commands`;
  }

  reply(commandKey: string): string {
    return `${this.prefix}{r:${tagSafe(commandKey)}}:reply`;
  }

  notice(topic: string): string {
    return `${this.prefix}{n:${tagSafe(topic)}}:notice`;
  }

  /** A process's reply channel; `id` is random per queues handle. */
  inbox(id: string): string {
    return `${this.prefix}{i:${tagSafe(id)}}:replies`;
  }
}
