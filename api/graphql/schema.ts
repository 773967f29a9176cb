// The GraphQL schema served at POST /api/v1/graphql (SPEC.md Endpoints). It
// reads what the REST lists read — tasks, process instances, incidents, in
// the same shapes and with the same `{items, nextCursor}` paging — and has
// one mutation, completeTask, which is free (SPEC.md Limits) and otherwise
// behaves exactly like POST /api/v1/tasks/{id}/complete.
export const typeDefs = /* GraphQL */ `
  "Any JSON value; variables are JSON objects of name to value."
  scalar JSON

  "CREATED: waiting for a person. FAILED: its job ran out of retries and the instance is in INCIDENT."
  enum TaskState {
    CREATED
    FAILED
  }

  enum ProcessInstanceState {
    ACTIVE
    COMPLETED
    TERMINATED
    INCIDENT
  }

  "RESOLVED: the record was closed (PATCH); the instance itself stays INCIDENT."
  enum IncidentState {
    OPEN
    RESOLVED
  }

  "A human task: a userTask job waiting for a person."
  type Task {
    id: ID!
    elementId: String!
    elementInstanceKey: ID!
    processInstanceKey: ID!
    bpmnProcessId: String!
    version: Int!
    assignee: String
    state: TaskState!
    customHeaders: JSON!
    "ISO 8601."
    createdAt: String!
    "The variables the task sees (its scope chain; a case's case file)."
    variables: JSON
    processInstance: ProcessInstance
    "A human task of a case (CMMN): its case instance, which processInstanceKey holds as well; null on a process task."
    caseInstanceKey: ID
  }

  "A CMMN case instance."
  type CaseInstance {
    caseInstanceKey: ID!
    caseDefinitionId: String!
    version: Int!
    state: ProcessInstanceState!
    "The case file."
    variables: JSON!
    parentKey: ID
    createdAt: String!
    updatedAt: String!
    endedAt: String
    "Every plan item instance, ended ones included, in creation order."
    planItems: [PlanItem!]!
    "Its open human tasks (up to 1,000)."
    tasks: [Task!]!
  }

  "A plan item instance of a case, in CMMN 1.1's lifecycle (AVAILABLE, ENABLED, DISABLED, ACTIVE, COMPLETED, TERMINATED, FAILED)."
  type PlanItem {
    planItemKey: ID!
    planItemId: String!
    definitionId: String!
    type: String!
    state: String!
    stageKey: ID
    jobKey: ID
    childInstanceKey: ID
    incidentKey: ID
    createdAt: String!
    endedAt: String
  }

  type CaseInstancePage {
    items: [CaseInstance!]!
    nextCursor: String
  }

  type ProcessInstance {
    processInstanceKey: ID!
    bpmnProcessId: String!
    version: Int!
    state: ProcessInstanceState!
    "Root-scope variables."
    variables: JSON!
    parentProcessInstanceKey: ID
    createdAt: String!
    updatedAt: String!
    endedAt: String
    "Its incidents, open and resolved (up to 1,000)."
    incidents: [Incident!]!
    "Its open human tasks (up to 1,000)."
    tasks: [Task!]!
  }

  type Incident {
    id: ID!
    processInstanceKey: ID!
    elementId: String!
    elementInstanceKey: ID!
    jobKey: ID
    type: String!
    message: String!
    state: IncidentState!
    createdAt: String!
    resolvedAt: String
    processInstance: ProcessInstance
  }

  type TaskPage {
    items: [Task!]!
    "Pass as cursor for the next page; null on the last one."
    nextCursor: String
  }

  type ProcessInstancePage {
    items: [ProcessInstance!]!
    nextCursor: String
  }

  type IncidentPage {
    items: [Incident!]!
    nextCursor: String
  }

  type TaskCompletion {
    id: ID!
    completed: Boolean!
  }

  type Query {
    "Human tasks, oldest first: open ones (CREATED) unless state is FAILED. limit 1..1000, default 50."
    tasks(state: TaskState, assignee: String, processInstanceKey: ID, bpmnProcessId: String, limit: Int, cursor: String): TaskPage!
    "One task with its variables; a NOT_FOUND error when it is gone."
    task(id: ID!): Task
    "Process instances, newest first (by start). limit 1..1000, default 50."
    processInstances(state: ProcessInstanceState, bpmnProcessId: String, limit: Int, cursor: String): ProcessInstancePage!
    "One process instance; a NOT_FOUND error when there is none."
    processInstance(key: ID!): ProcessInstance
    "Incidents in key order. limit 1..1000, default 50."
    incidents(state: IncidentState, processInstanceKey: ID, limit: Int, cursor: String): IncidentPage!
    "Case instances (CMMN), newest first (by start). limit 1..1000, default 50."
    caseInstances(state: ProcessInstanceState, caseDefinitionId: String, limit: Int, cursor: String): CaseInstancePage!
    "One case instance with its plan items; a NOT_FOUND error when there is none."
    caseInstance(key: ID!): CaseInstance
  }

  type Mutation {
    "Completes a human task, merging variables (a JSON object) into its instance. Free of charge, unlike the REST route."
    completeTask(id: ID!, variables: JSON): TaskCompletion!
  }
`;
