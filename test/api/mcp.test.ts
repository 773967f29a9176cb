// The MCP endpoint with both official clients over a real port (v2
// negotiating 2026-07-28, v1 with the 2025 handshake), on Postgres and Redis
// when DATABASE_URL / REDIS_URL are set, else PGlite: the agent identity
// flow (register → connect twice → rotate), every workflow tool end to end,
// and the failures each tool answers with a stable code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFixture, type ApiFixture } from './api-fixture.ts';
import { connectMcp, type ClientKind, type McpClient } from './mcp-support.ts';
import { definitions, end, flow, processXml, service, start } from '../../engine/runtime/testing.ts';
import { approvalDmn, eventually, serviceProcess, userTaskProcess } from './workflow-support.ts';

let api: ApiFixture;
beforeAll(async () => {
  // Every test registers from 127.0.0.1: the per-address flood limit is the agents tests' concern.
  api = await apiFixture({ config: { agents: { registerBurst: 1_000, connectBurst: 1_000 } } });
});
afterAll(() => api.close());

/** A fresh account, an agent on it, and a session, through the tools themselves. */
async function agentSession(client: McpClient) {
  const { account, apiKey } = await api.newAccount();
  const registered = await client.call('orca.register', { apiKey, name: 'worker' });
  expect(registered.isError).toBe(false);
  const connected = await client.call('orca.connect', { token: registered.data.token });
  expect(connected.isError).toBe(false);
  return { account, apiKey, agentId: registered.data.agentId as string, token: registered.data.token as string, sessionId: connected.data.sessionId as string };
}

for (const kind of ['v2', 'v1'] as ClientKind[]) {
  describe(`MCP over the ${kind} client`, () => {
    let client: McpClient;
    beforeAll(async () => {
      client = await connectMcp(kind, api.baseUrl);
    });
    afterAll(() => client.close());

    it('register → connect twice → rotate: the rotating session works, the other is ended, the old token is refused at connect and on the mailbox', async () => {
      const { apiKey } = await api.newAccount();
      const registered = await client.call('orca.register', { apiKey, name: 'planner' });
      expect(registered.data).toEqual({ agentId: expect.stringMatching(/^agt_/), token: expect.any(String) });
      const { token, agentId } = registered.data;
      const first = await client.call('orca.connect', { token });
      const second = await client.call('orca.connect', { token });
      expect(first.data.agentId).toBe(agentId);
      expect(second.data.sessionId).not.toBe(first.data.sessionId);

      const rotated = await client.call('orca.rotate_token', { sessionId: first.data.sessionId });
      expect(rotated.isError).toBe(false);
      expect(rotated.data.token).not.toBe(token);

      expect((await client.call('orca.list_process_definitions', { sessionId: first.data.sessionId })).isError).toBe(false);
      const ended = await client.call('orca.list_process_definitions', { sessionId: second.data.sessionId });
      expect(ended.error?.code).toBe('SESSION_ENDED');
      expect((await client.call('orca.connect', { token })).error?.code).toBe('UNAUTHENTICATED');
      const mailbox = await api.call('GET', '/api/v1/mailbox/messages', { headers: { authorization: `Bearer ${token}` } });
      expect(mailbox.status).toBe(401);
      expect((await client.call('orca.connect', { token: rotated.data.token })).data.agentId).toBe(agentId);
    });

    it('two rotations racing from two sessions: exactly one wins, and only its token opens a session', async () => {
      const { token } = await agentSession(client);
      const a = (await client.call('orca.connect', { token })).data.sessionId;
      const b = (await client.call('orca.connect', { token })).data.sessionId;
      const [first, second] = await Promise.all([client.call('orca.rotate_token', { sessionId: a }), client.call('orca.rotate_token', { sessionId: b })]);
      const won = [first, second].filter((r) => !r.isError);
      expect(won).toHaveLength(1);
      expect([first, second].find((r) => r.isError)?.error?.code).toMatch(/^(SESSION_ENDED|UNAVAILABLE|CONFLICT)$/);
      expect((await client.call('orca.connect', { token })).error?.code).toBe('UNAUTHENTICATED');
      expect((await client.call('orca.connect', { token: won[0].data.token })).isError).toBe(false);
    });

    it('deploy → start → activate → complete: the instance is COMPLETED, and the start cost 1 credit as over REST', async () => {
      const { account, sessionId } = await agentSession(client);
      const id = `mcp-${kind}-order`;
      const deployed = await client.call('orca.deploy_process', { sessionId, xml: serviceProcess(id, `${id}-work`), resourceName: 'order.bpmn' });
      expect(deployed.data).toMatchObject({ id, deployments: [{ bpmnProcessId: id, version: 1, isNew: true }] });
      const listed = await client.call('orca.list_process_definitions', { sessionId });
      expect(listed.data.items.map((p: { bpmnProcessId: string }) => p.bpmnProcessId)).toEqual([id]);

      const before = await api.service.credits.balance(account);
      const started = await client.call('orca.start_instance', { sessionId, bpmnProcessId: id, variables: { orderId: 'A-1' } });
      expect(started.data).toMatchObject({ bpmnProcessId: id, version: 1, state: 'ACTIVE' });
      expect(await api.service.credits.balance(account)).toBe(before - 1);
      const key = started.data.processInstanceKey;

      const job = await eventually(async () => {
        const activated = await client.call('orca.activate_jobs', { sessionId, type: `${id}-work`, maxJobsToActivate: 1, worker: 'mcp' });
        return activated.data.jobs[0];
      }, 'a job');
      expect(job).toMatchObject({ processInstanceKey: key, variables: { orderId: 'A-1' }, worker: 'mcp' });
      expect((await client.call('orca.complete_job', { sessionId, jobKey: job.key, variables: { shipped: true } })).data).toEqual({
        jobKey: job.key,
        completed: true,
      });

      const done = await eventually(async () => {
        const read = await client.call('orca.get_instance', { sessionId, processInstanceKey: key });
        return read.data.state === 'COMPLETED' ? read.data : undefined;
      }, 'COMPLETED');
      expect(done.variables).toEqual({ orderId: 'A-1', shipped: true });
      const found = await client.call('orca.list_instances', { sessionId, state: 'COMPLETED', variable: 'orderId:A-1' });
      expect(found.data.items.map((i: { processInstanceKey: string }) => i.processInstanceKey)).toEqual([key]);
    });

    it('extensions: deploy with inlineScripts runs a zeebe:script inline; activate with a timeout offers the job again', async () => {
      const { sessionId } = await agentSession(client);
      const id = `mcp-${kind}-inline`;
      const xml = processXml(
        id,
        start() +
          '<bpmn:scriptTask id="sum"><bpmn:extensionElements><zeebe:script expression="=a + 1" resultVariable="b"/></bpmn:extensionElements></bpmn:scriptTask>' +
          service('task', `${id}-work`) +
          end() +
          flow('f1', 'start', 'sum') +
          flow('f2', 'sum', 'task') +
          flow('f3', 'task', 'end'),
      );
      const deployed = await client.call('orca.deploy_process', { sessionId, xml, resourceName: 'inline.bpmn', inlineScripts: true });
      expect(deployed.isError).toBe(false);
      expect(deployed.data.warnings ?? []).not.toContainEqual(expect.objectContaining({ code: 'SCRIPT_TASK_IS_JOB' }));
      const key = (await client.call('orca.start_instance', { sessionId, bpmnProcessId: id, variables: { a: 1 } })).data.processInstanceKey;
      const activate = (timeout?: number) =>
        client.call('orca.activate_jobs', { sessionId, type: `${id}-work`, maxJobsToActivate: 1, worker: 'mcp', ...(timeout ? { timeout } : {}) });
      const job = await eventually(async () => (await activate(500)).data.jobs[0], 'a job');
      expect(job).toMatchObject({ processInstanceKey: key, variables: { a: 1, b: 2 } });
      const again = await eventually(async () => (await activate()).data.jobs[0], 'the job offered again after its timeout', 15_000);
      expect(again.key).toBe(job.key);
      expect((await activate(-1)).isError).toBe(true);
    });

    it('fail a job to 0 retries: an incident, listed and closed (the instance stays INCIDENT)', async () => {
      const { sessionId } = await agentSession(client);
      const id = `mcp-${kind}-fails`;
      await client.call('orca.deploy_process', { sessionId, xml: serviceProcess(id, `${id}-work`), resourceName: 'fails.bpmn' });
      const key = (await client.call('orca.start_instance', { sessionId, bpmnProcessId: id })).data.processInstanceKey;
      const job = await eventually(
        async () => (await client.call('orca.activate_jobs', { sessionId, type: `${id}-work`, maxJobsToActivate: 1 })).data.jobs[0],
        'a job',
      );
      expect((await client.call('orca.fail_job', { sessionId, jobKey: job.key, retries: 0, errorMessage: 'no stock' })).data).toMatchObject({ failed: true });
      const incident = await eventually(
        async () => (await client.call('orca.list_incidents', { sessionId, processInstanceKey: key, state: 'OPEN' })).data.items[0],
        'an incident',
      );
      expect(incident).toMatchObject({ message: expect.stringContaining('no stock'), state: 'OPEN' });
      expect((await client.call('orca.resolve_incident', { sessionId, incidentId: incident.id })).data.state).toBe('RESOLVED');
      expect((await client.call('orca.get_instance', { sessionId, processInstanceKey: key })).data.state).toBe('INCIDENT');
    });

    it('publish a message (extension): the waiting receive task of the matching instance completes; a repeated messageId is a CONFLICT', async () => {
      const { sessionId } = await agentSession(client);
      const id = `mcp-${kind}-message`;
      const xml = definitions(
        '<bpmn:message id="M" name="paid"><bpmn:extensionElements><zeebe:subscription correlationKey="=orderId"/></bpmn:extensionElements></bpmn:message>' +
          `<bpmn:process id="${id}" isExecutable="true">` +
          start() +
          '<bpmn:receiveTask id="wait" messageRef="M"/>' +
          end() +
          flow('f1', 'start', 'wait') +
          flow('f2', 'wait', 'end') +
          '</bpmn:process>',
      );
      await client.call('orca.deploy_process', { sessionId, xml, resourceName: 'message.bpmn' });
      const key = (await client.call('orca.start_instance', { sessionId, bpmnProcessId: id, variables: { orderId: `${kind}-1` } })).data.processInstanceKey;
      await eventually(
        async () => (await client.call('orca.activate_jobs', { sessionId, type: 'message:paid', maxJobsToActivate: 1 })).data.jobs[0],
        'the wait',
      );
      const message = { sessionId, name: 'paid', correlationKey: `${kind}-1`, timeToLive: 60_000, messageId: `${kind}-m` };
      expect((await client.call('orca.publish_message', message)).data).toEqual({ messageKey: expect.stringMatching(/^\d+$/), startedInstances: 0 });
      expect((await client.call('orca.get_instance', { sessionId, processInstanceKey: key })).data.state).toBe('COMPLETED');
      expect((await client.call('orca.publish_message', message)).error?.code).toBe('CONFLICT');
      expect((await client.call('orca.publish_message', { sessionId, name: '' })).error?.code).toBe('INVALID_INPUT');
    });

    it('broadcast a signal (extension): the waiting signal catch completes; a keyed retry answers the same; an empty name is INVALID_INPUT', async () => {
      const { sessionId } = await agentSession(client);
      const id = `mcp-${kind}-signal`;
      const xml = definitions(
        `<bpmn:signal id="S" name="${id}-go"/><bpmn:process id="${id}" isExecutable="true">` +
          start() +
          '<bpmn:intermediateCatchEvent id="wait"><bpmn:signalEventDefinition signalRef="S"/></bpmn:intermediateCatchEvent>' +
          end() +
          flow('f1', 'start', 'wait') +
          flow('f2', 'wait', 'end') +
          '</bpmn:process>',
      );
      await client.call('orca.deploy_process', { sessionId, xml, resourceName: 'signal.bpmn' });
      const key = (await client.call('orca.start_instance', { sessionId, bpmnProcessId: id })).data.processInstanceKey;
      await eventually(
        async () => ((await client.call('orca.get_instance', { sessionId, processInstanceKey: key })).data.activeElements?.length > 0 ? true : undefined),
        'the wait',
      );
      const signal = { sessionId, name: `${id}-go`, variables: { via: 'mcp' }, idempotencyKey: `${kind}-s` };
      const sent = (await client.call('orca.broadcast_signal', signal)).data;
      expect(sent).toEqual({ signalKey: expect.stringMatching(/^\d+$/), startedInstances: 0 });
      expect((await client.call('orca.broadcast_signal', signal)).data).toEqual(sent);
      const done = await eventually(async () => {
        const instance = (await client.call('orca.get_instance', { sessionId, processInstanceKey: key })).data;
        return instance.state === 'COMPLETED' ? instance : undefined;
      }, 'the instance to complete');
      expect(done.variables).toEqual({ via: 'mcp' });
      expect((await client.call('orca.broadcast_signal', { sessionId, name: '' })).error?.code).toBe('INVALID_INPUT');
    });

    it('throw a BPMN error for a job (extension): nothing catches it, so an UNHANDLED_ERROR_EVENT incident naming the code', async () => {
      const { sessionId } = await agentSession(client);
      const id = `mcp-${kind}-throws`;
      await client.call('orca.deploy_process', { sessionId, xml: serviceProcess(id, `${id}-work`), resourceName: 'throws.bpmn' });
      const key = (await client.call('orca.start_instance', { sessionId, bpmnProcessId: id })).data.processInstanceKey;
      const job = await eventually(
        async () => (await client.call('orca.activate_jobs', { sessionId, type: `${id}-work`, maxJobsToActivate: 1 })).data.jobs[0],
        'a job',
      );
      expect((await client.call('orca.throw_job_error', { sessionId, jobKey: job.key, errorCode: 'NO_STOCK' })).data).toEqual({
        jobKey: job.key,
        thrown: true,
        errorCode: 'NO_STOCK',
      });
      const incident = await eventually(
        async () => (await client.call('orca.list_incidents', { sessionId, processInstanceKey: key, state: 'OPEN' })).data.items[0],
        'an incident',
      );
      expect(incident).toMatchObject({ type: 'UNHANDLED_ERROR_EVENT', message: expect.stringContaining("'NO_STOCK'") });
      expect((await client.call('orca.throw_job_error', { sessionId, jobKey: job.key, errorCode: 'NO_STOCK' })).error?.code).toBe('NOT_FOUND');
      expect((await client.call('orca.throw_job_error', { sessionId, jobKey: job.key, errorCode: '' })).error?.code).toBe('INVALID_INPUT');
    });

    it('human tasks: list, claim, assign, complete (1 credit)', async () => {
      const { account, sessionId, agentId } = await agentSession(client);
      const id = `mcp-${kind}-review`;
      await client.call('orca.deploy_process', { sessionId, xml: userTaskProcess(id), resourceName: 'review.bpmn' });
      const key = (await client.call('orca.start_instance', { sessionId, bpmnProcessId: id })).data.processInstanceKey;
      const task = await eventually(async () => (await client.call('orca.list_tasks', { sessionId, processInstanceKey: key })).data.items[0], 'a task');
      expect((await client.call('orca.claim_task', { sessionId, taskId: task.id })).data.assignee).toBe(agentId);
      expect((await client.call('orca.assign_task', { sessionId, taskId: task.id, assignee: 'someone' })).data.assignee).toBe('someone');
      const before = await api.service.credits.balance(account);
      expect((await client.call('orca.complete_task', { sessionId, taskId: task.id, variables: { approved: true } })).data).toEqual({
        taskId: task.id,
        completed: true,
      });
      expect(await api.service.credits.balance(account)).toBe(before - 1);
      await eventually(
        async () => ((await client.call('orca.get_instance', { sessionId, processInstanceKey: key })).data.state === 'COMPLETED' ? true : undefined),
        'COMPLETED',
      );
    });

    it('decisions: deploy a DMN model and evaluate it', async () => {
      const { sessionId } = await agentSession(client);
      const deployed = await client.call('orca.deploy_decision', { sessionId, xml: approvalDmn(), resourceName: 'approval.dmn' });
      expect(deployed.data.decisions[0]).toMatchObject({ decisionId: 'approval', version: 1 });
      const evaluated = await client.call('orca.evaluate_decision', { sessionId, decisionId: 'approval', variables: { amount: 50 } });
      expect(evaluated.data).toMatchObject({ decisionId: 'approval', result: 'auto' });
      expect((await client.call('orca.evaluate_decision', { sessionId, decisionId: 'approval', variables: { amount: 5000 } })).error?.code).toBe(
        'INVALID_INPUT',
      );
    });

    it('mailbox: send to another agent of the account, list, ack', async () => {
      const { apiKey, sessionId, agentId } = await agentSession(client);
      const other = await client.call('orca.register', { apiKey, name: 'reviewer' });
      const otherSession = (await client.call('orca.connect', { token: other.data.token })).data.sessionId;
      const sent = await client.call('orca.send_message', { sessionId, to: other.data.agentId, body: { hello: 'there' }, idempotencyKey: 'k1' });
      expect(sent.data).toMatchObject({ from: agentId, to: other.data.agentId, body: { hello: 'there' }, ackedAt: null });
      const again = await client.call('orca.send_message', { sessionId, to: other.data.agentId, body: { hello: 'there' }, idempotencyKey: 'k1' });
      expect(again.data.id).toBe(sent.data.id);
      const inbox = await client.call('orca.list_messages', { sessionId: otherSession });
      expect(inbox.data.items.map((m: { id: string }) => m.id)).toEqual([sent.data.id]);
      expect((await client.call('orca.ack_message', { sessionId: otherSession, messageId: sent.data.id })).data.ackedAt).not.toBeNull();
      expect((await client.call('orca.send_message', { sessionId, to: 'agt_000000000000000000000000', body: 1 })).error?.code).toBe('NOT_FOUND');
    });

    it('failures are results with a stable code: missing session, an API key as session, wrong type, another account, no credits, unknown key', async () => {
      const mine = await agentSession(client);
      const theirs = await agentSession(client);
      expect((await client.call('orca.list_instances', {})).error).toMatchObject({ code: 'INVALID_INPUT', errors: [{ field: 'sessionId' }] });
      expect((await client.call('orca.list_instances', { sessionId: mine.apiKey })).error?.code).toBe('SESSION_NOT_FOUND');
      expect((await client.call('orca.list_instances', { sessionId: mine.token })).error?.code).toBe('SESSION_NOT_FOUND');
      expect((await client.call('orca.start_instance', { sessionId: mine.sessionId, bpmnProcessId: 42 })).error).toMatchObject({
        code: 'INVALID_INPUT',
        errors: [{ field: 'bpmnProcessId' }],
      });
      expect((await client.call('orca.register', { apiKey: 'orca_not-a-key', name: 'x' })).error?.code).toBe('UNAUTHENTICATED');
      expect((await client.call('orca.connect', { token: mine.apiKey })).error?.code).toBe('UNAUTHENTICATED');

      // Another account's instance is not found, not forbidden: its existence is not told.
      const id = `mcp-${kind}-private`;
      await client.call('orca.deploy_process', { sessionId: theirs.sessionId, xml: serviceProcess(id, 'w'), resourceName: 'p.bpmn' });
      const key = (await client.call('orca.start_instance', { sessionId: theirs.sessionId, bpmnProcessId: id })).data.processInstanceKey;
      expect((await client.call('orca.get_instance', { sessionId: mine.sessionId, processInstanceKey: key })).error?.code).toBe('NOT_FOUND');
      expect((await client.call('orca.start_instance', { sessionId: mine.sessionId, bpmnProcessId: id })).error?.code).toBe('NOT_FOUND');

      await api.service.credits.charge(mine.account, await api.service.credits.balance(mine.account), 'test: drain');
      await client.call('orca.deploy_process', { sessionId: mine.sessionId, xml: serviceProcess(id, 'w'), resourceName: 'p.bpmn' });
      const broke = await client.call('orca.start_instance', { sessionId: mine.sessionId, bpmnProcessId: id });
      expect(broke.error?.code).toBe('CREDITS_EXHAUSTED');
      expect((await client.call('orca.list_instances', { sessionId: mine.sessionId })).data.items).toEqual([]);
      expect((await client.call('orca.deploy_process', { sessionId: mine.sessionId, xml: '<nope/>', resourceName: 'p.bpmn' })).error?.code).toBe(
        'INVALID_INPUT',
      );
    });
  });
}

describe('MCP sessions belong to Orca, not to the transport', () => {
  it('a session opened before a restart works after it, from a new client', async () => {
    const before = await connectMcp('v2', api.baseUrl);
    const { sessionId } = await agentSession(before);
    await before.close();
    await api.restart();
    const after = await connectMcp('v1', api.baseUrl);
    try {
      const listed = await after.call('orca.list_instances', { sessionId });
      expect(listed.isError).toBe(false);
    } finally {
      await after.close();
    }
  });
});
