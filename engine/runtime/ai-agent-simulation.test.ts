// Camunda's AI Email Support Agent (../shared/bpmn/tut-ai-email-support-agent.bpmn)
// run end to end in the in-memory engine, with test workers standing in for
// the connectors: a published email starts it, the AI agent is an ad-hoc
// subprocess with a job worker (Zeebe 8.8) that first asks for the email
// reply tool, then, once that tool's path has run, says it is done; the
// instance moves on through the judge to the human review and the final
// email. A second run has a specialist take over: the escalation thrown
// inside a tool's path ends the agent and starts the human-controlled event
// subprocess. Skips when the shared collection is absent.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileBpmn } from '../model/index.ts';
import { InMemoryEngine, type ActivatedJob } from './in-memory-engine.ts';
import { visited } from './testing.ts';

const file = fileURLToPath(new URL('../../../shared/bpmn/tut-ai-email-support-agent.bpmn', import.meta.url));
const present = existsSync(file);
if (!present) console.warn(`${file} not found; skipping the AI agent simulation`);

const AGENT = 'io.camunda.agenticai:aiagent-job-worker:1';
const VECTOR_DB = 'io.camunda:embeddings-vector-database:1';
const EMAIL = 'io.camunda:email:1';
const EMAIL_STARTS = '3c562193-4e24-4d28-8407-3f6079e80f0e';

function one(engine: InMemoryEngine, type: string): ActivatedJob {
  const jobs = engine.activate(type, 10);
  expect(
    jobs.map((j) => j.elementId),
    `jobs of ${type}`,
  ).toHaveLength(1);
  return jobs[0];
}

describe.skipIf(!present)('AI Email Support Agent (ad-hoc subprocess, job worker)', () => {
  it('runs to its end: agent → email tool → agent again → done → judge → review → final email', () => {
    const compiled = compileBpmn(readFileSync(file, 'utf8'));
    if (!compiled.ok) throw new Error(compiled.problems.map((p) => `${p.elementId}: ${p.message}`).join('\n'));
    const engine = new InMemoryEngine({ keepHistory: true });
    for (const process of compiled.model.processes) engine.deploy(process);

    const currentEmail = { fromAddress: 'ana@example.com', subject: 'Loan rate', messageId: '<m1>', plainTextBody: 'What is my rate?' };
    const { startedInstances } = engine.publishMessage({ name: EMAIL_STARTS, variables: { currentEmail } });
    expect(startedInstances).toHaveLength(1);
    const key = startedInstances[0];

    engine.completeJob(one(engine, VECTOR_DB).key, { customerPreviousConversationContext: 'none yet' });

    // The agent's job carries its input mappings, the multi-line prompt among them.
    const first = one(engine, AGENT);
    expect(first.elementId).toBe('Activity_04glkkx');
    const data = first.variables.data as { systemPrompt: { prompt: string }; userPrompt: { prompt: string } };
    expect(data.systemPrompt.prompt).toMatch(/^You are \*\*LoanSupportAgent\*\*.*\n.*none yet$/s);
    expect(data.userPrompt.prompt).toBe('What is my rate?');
    const toolCall = {
      _meta: { id: 'call-1', name: 'Reply_with_email_to_customer' },
      emailContent: 'Your rate is 4.2%. Does this fully resolve your loan inquiry?',
    };
    engine.completeJob(
      first.key,
      { agentContext: { state: 'WAITING_FOR_TOOL_CALL_RESULTS' } },
      { type: 'adHocSubProcess', activateElements: [{ elementId: 'Reply_with_email_to_customer', variables: { toolCall } }] },
    );
    expect(engine.activate(AGENT, 10)).toEqual([]);

    // The tool: the email reply (fromAi gives the agent's text), then the customer's answer, then the path ends.
    const email = one(engine, EMAIL);
    expect((email.variables.data as { smtpAction: { body: string; to: string } }).smtpAction).toMatchObject({
      body: toolCall.emailContent,
      to: 'ana@example.com',
    });
    engine.completeJob(email.key, {});
    engine.completeJob(one(engine, 'event:message:Event_WaitForResponse').key, { responseEmail: 'Yes, thanks!' });

    // Nothing inside is active: the agent's job comes again, with the tool's result collected.
    const second = one(engine, AGENT);
    expect(second.variables.toolCallResults).toEqual([{ id: 'call-1', name: 'Reply_with_email_to_customer', content: null }]);
    expect(second.variables.toolResult).toBe('Yes, thanks!');
    const agent = {
      responseText: 'Resolved: rate explained.',
      context: { metrics: { modelCalls: 2, tokenUsage: { inputTokenCount: 10, outputTokenCount: 5 } } },
    };
    engine.completeJob(second.key, { agent }, { type: 'adHocSubProcess', isCompletionConditionFulfilled: true });

    // The instance moves on: long-term memory, the judge, the review, the final email.
    const memory = one(engine, VECTOR_DB);
    expect((memory.variables.vectorDatabaseConnectorOperation as { documentSourceFromProcessVariable: string }).documentSourceFromProcessVariable).toBe(
      agent.responseText,
    );
    engine.completeJob(memory.key, {});
    engine.completeJob(one(engine, 'io.camunda.agenticai:aiagent:1').key, {
      decision: 'AGENT_SUCCESS',
      reasoning: 'fine. ',
      reasoning_quality: 'high',
      identified_issues: [],
      customer_email: 'Thanks, closing.',
    });
    engine.completeJob(one(engine, 'userTask').key, {});
    engine.completeJob(one(engine, EMAIL).key, {});

    const instance = engine.instance(key)!;
    expect(instance.state).toBe('COMPLETED');
    expect(instance.variables[key]).toMatchObject({ metrics_modelCalls: 2, metrics_inputTokenCount: 10, toolCallResults: [{ id: 'call-1' }] });
    expect(visited(engine, key)).toEqual(
      expect.arrayContaining([
        'Reply_with_email_to_customer',
        'Event_WaitForResponse',
        'Event_0jmzwhr',
        'Activity_04glkkx',
        'Activity_1647ldd',
        'Event_0mw9iyy',
      ]),
    );
  });

  it('a specialist taking full control escalates out of the agent to the human-controlled event subprocess', () => {
    const compiled = compileBpmn(readFileSync(file, 'utf8'));
    if (!compiled.ok) throw new Error(compiled.problems.map((p) => `${p.elementId}: ${p.message}`).join('\n'));
    const engine = new InMemoryEngine({ keepHistory: true });
    for (const process of compiled.model.processes) engine.deploy(process);
    const currentEmail = { fromAddress: 'bo@example.com', subject: 'Payoff', messageId: '<m2>', plainTextBody: 'Payoff quote?' };
    const key = engine.publishMessage({ name: EMAIL_STARTS, variables: { currentEmail } }).startedInstances[0];
    engine.completeJob(one(engine, VECTOR_DB).key, { customerPreviousConversationContext: '' });
    const toolCall = { _meta: { id: 'call-9', name: 'Ask_a_specialist' }, requestToHuman: 'Can you quote a payoff?' };
    engine.completeJob(one(engine, AGENT).key, {}, { type: 'adHocSubProcess', activateElements: [{ elementId: 'Ask_a_specialist', variables: { toolCall } }] });
    const specialist = one(engine, 'userTask');
    expect(specialist.elementId).toBe('Ask_a_specialist');
    expect(specialist.variables.requestDetails).toBe('Can you quote a payoff?');
    engine.completeJob(specialist.key, { responseToRequest: 'I will handle it', knowledgeBaseDecision: 'no', taking_full_control: true });
    // The escalation ended the agent (its job is not offered again) and started the human-controlled path.
    expect(engine.activate(AGENT, 10)).toEqual([]);
    const human = one(engine, 'userTask');
    expect(human.elementId).toBe('Activity_0pyk6oo');
    engine.completeJob(human.key, {});
    expect(engine.instance(key)!.state).toBe('COMPLETED');
    expect(engine.history(key).some((r) => r.type === 'ELEMENT_TERMINATED' && r.elementId === 'Activity_04glkkx')).toBe(true);
  });
});
