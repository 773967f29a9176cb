// Which latest process versions of an account a published message or a
// broadcast signal starts (extension): those with a message (signal) start
// event of its name. Read
// from the model cache, so the API (to charge a credit per start before it
// publishes) and the message partition's leader (to start them) see the
// same deployments, the API's view being at most the cache's refresh old.
import { messageStartsOf, signalStartsOf } from '../runtime/message-starts.ts';
import type { ProcessModel } from '../model/types.ts';
import type { AccountView, ModelCache } from './model-cache.ts';

export interface MessageStartTarget {
  bpmnProcessId: string;
  version: number;
  elementId: string;
  model: ProcessModel;
  view: AccountView;
}

/** One target per process (its first message start event of that name), in process id order. */
export function messageStartTargets(models: ModelCache, account: string, name: string): Promise<MessageStartTarget[]> {
  return startTargets(models, account, name, messageStartsOf);
}

/** The same for a broadcast signal (extension): the latest versions with a signal start event of that name. */
export function signalStartTargets(models: ModelCache, account: string, name: string): Promise<MessageStartTarget[]> {
  return startTargets(models, account, name, signalStartsOf);
}

async function startTargets(models: ModelCache, account: string, name: string, startsOf: typeof messageStartsOf): Promise<MessageStartTarget[]> {
  const view = await models.view(account);
  const out: MessageStartTarget[] = [];
  for (const [bpmnProcessId, version] of [...view.latest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const model = await models.process(account, bpmnProcessId, version);
    const start = model === undefined ? undefined : startsOf(model).find((s) => s.name === name);
    if (start !== undefined) out.push({ bpmnProcessId, version, elementId: start.elementId, model: model!, view });
  }
  return out;
}
