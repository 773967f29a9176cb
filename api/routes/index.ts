// Every resource family's routes, registered in this order. Each module
// exports `register(app, ctx)` and owns one concern.
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.ts';
import { register as account } from './account.ts';
import { register as accountKeys } from './account-keys.ts';
import { register as adHocActivities } from './ad-hoc-activities.ts';
import { register as adminCredits } from './admin-credits.ts';
import { register as auth } from './auth.ts';
import { register as caseDefinitions } from './case-definitions.ts';
import { register as caseInstances } from './case-instances.ts';
import { register as completedTasks } from './completed-tasks.ts';
import { register as dashboard } from './dashboard.ts';
import { register as decisions } from './decisions.ts';
import { register as graphql } from './graphql.ts';
import { register as health } from './health.ts';
import { register as incidents } from './incidents.ts';
import { register as jobs } from './jobs.ts';
import { register as login } from './login.ts';
import { register as mailbox } from './mailbox.ts';
import { register as messages } from './messages.ts';
import { register as openapi } from './openapi.ts';
import { register as platform } from './platform.ts';
import { register as processDefinitions } from './process-definitions.ts';
import { register as processInstances } from './process-instances.ts';
import { register as root } from './root.ts';
import { register as signals } from './signals.ts';
import { register as tasks } from './tasks.ts';
import { register as ui } from './ui.ts';
import { register as webhooks } from './webhooks.ts';
import { register as wallet } from './wallet.ts';

export type RegisterRoutes = (app: FastifyInstance, ctx: ApiContext) => Promise<void>;

export const routeFamilies: RegisterRoutes[] = [
  root,
  health,
  auth,
  account,
  login,
  dashboard,
  wallet,
  accountKeys,
  adminCredits,
  processDefinitions,
  processInstances,
  adHocActivities,
  jobs,
  messages,
  signals,
  incidents,
  tasks,
  completedTasks,
  decisions,
  caseDefinitions,
  caseInstances,
  mailbox,
  webhooks,
  platform,
  graphql,
  openapi,
  ui,
];
