// What the engine offers for case instances (CMMN), beside process
// instances: a start, sent like a process start (its partition by its
// command key, so a retry finds its first result), and the commands on a
// case, sent to the partition its key names.
import type { Variables } from '../runtime/types.ts';
import type { Store } from '../store/index.ts';
import type { CaseAction, CommandReply, EngineCommand, StartedCase } from './commands.ts';
import type { CommandOptions } from './engine.ts';
import { scoped } from './keys.ts';

export interface CaseEngine {
  /** Starts the latest version of a deployed case definition (NOT_FOUND when none is deployed). */
  startCase(account: string, caseDefinitionId: string, variables?: Variables, options?: CommandOptions): Promise<StartedCase>;
  /**
   * Acts on a case instance: on its plan item instance `planItemKey`
   * (start an ENABLED item, trigger a user event listener, complete,
   * terminate, disable, re-enable), or `cancel` the case.
   */
  caseCommand(
    account: string,
    caseInstanceKey: string,
    action: CaseAction,
    planItemKey?: string,
    variables?: Variables,
    options?: CommandOptions,
  ): Promise<void>;
  /** Whether a command on the case under the client's key has a committed result already (the API skips its checks for a replay). */
  hasCaseCommandResult(account: string, caseInstanceKey: string, commandKey: string): Promise<boolean>;
}

export interface CaseClientParts {
  sendKeyed(partition: number, command: EngineCommand, account: string, options: CommandOptions, limit?: number): Promise<CommandReply & { ok: true }>;
  startPartition(account: string, commandKey: string | undefined): number;
  partitionOf(key: string, what: string): number;
  maxPending: number;
  store: Store;
}

export function caseClient(parts: CaseClientParts): CaseEngine {
  return {
    async startCase(account, caseDefinitionId, variables = {}, options = {}) {
      const partition = parts.startPartition(account, options.commandKey);
      const reply = await parts.sendKeyed(partition, { kind: 'startCase', account, caseDefinitionId, variables }, account, options, parts.maxPending + 1);
      return reply.value as StartedCase;
    },

    async caseCommand(account, caseInstanceKey, action, planItemKey, variables, options = {}) {
      const command: Extract<EngineCommand, { kind: 'caseCommand' }> = { kind: 'caseCommand', account, caseInstanceKey, action };
      if (planItemKey !== undefined) command.planItemKey = planItemKey;
      if (variables !== undefined) command.variables = variables;
      await parts.sendKeyed(parts.partitionOf(caseInstanceKey, 'Case instance'), command, account, options);
    },

    async hasCaseCommandResult(account, caseInstanceKey, commandKey) {
      const found = await parts.store.commands.findCommandResults(parts.partitionOf(caseInstanceKey, 'Case instance'), [scoped(account, commandKey)!]);
      return found.size > 0;
    },
  };
}
