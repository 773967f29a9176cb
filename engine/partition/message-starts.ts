// Which latest process versions of an account a published message starts
// (extension): those with a message start event of the message's name. Read
// from the model cache, so the API (to charge a credit per start before it
// publishes) and the message partition's leader (to start them) see the
// same deployments, the API's view being at most the cache's refresh old.
import { messageStartsOf } from '../runtime/message-starts.ts';
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
export async function messageStartTargets(models: ModelCache, account: string, name: string): Promise<MessageStartTarget[]> {
  const view = await models.view(account);
  const out: MessageStartTarget[] = [];
  for (const [bpmnProcessId, version] of [...view.latest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const model = await models.process(account, bpmnProcessId, version);
    const start = model === undefined ? undefined : messageStartsOf(model).find((s) => s.name === name);
    if (start !== undefined) out.push({ bpmnProcessId, version, elementId: start.elementId, model: model!, view });
  }
  return out;
}
