// People's sign-in (docs/account.md; api/identity/sign-in.ts): ask for a
// code, trade it (or the mailed link) for a session, end the session. The
// link's GET page only shows a button: mail scanners open GET links, so
// only the page's POST uses the code. Answers that carry a session say
// `Cache-Control: no-store`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Session } from '../identity/sign-in.ts';
import { route } from '../openapi/route.ts';
import { bearerOf } from '../plugins/auth.ts';
import { ApiError } from '../problem.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['account'];

const email = z.email().max(254).describe('The address the account signed up with.');
const messageSchema = z.object({ message: z.string() });
const sessionSchema = z.object({
  token: z.string().describe('The session (orcass_…): send it as Authorization: Bearer on the dashboard, wallet and key routes. Shown only here.'),
  expiresAt: z.string().describe('When the session ends unless a logout ends it sooner (RFC 3339).'),
});
const linkToken = z.string().min(1).max(256).describe('The token of the mailed sign-in link.');

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(reply: FastifyReply, status: number, title: string, body: string) {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head>
<body style="font-family: sans-serif; max-width: 40rem; margin: 3rem auto"><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
  return reply.code(status).headers(PAGE_HEADERS).send(html);
}

const sessionOut = (session: Session) => ({ token: session.token, expiresAt: session.expiresAt.toISOString() });
const wantsHtml = (request: FastifyRequest) => /^application\/x-www-form-urlencoded/i.test(request.headers['content-type'] ?? '');

export const register: RegisterRoutes = async (app, ctx) => {
  const signIn = ctx.signIn;
  if (!signIn) return;

  route(
    app,
    {
      method: 'POST',
      path: '/api/login',
      summary: 'Sign in, step one: mails a one-time code and a sign-in link to the address. The answer is the same whether or not the address has an account.',
      tags: TAGS,
      auth: 'none',
      body: z.object({ email }),
      response: { status: 202, schema: messageSchema, description: 'Accepted; if the address has an account, a code is on its way.' },
      errors: [400, 413, 429, 503],
    },
    async ({ body }, request) => {
      await signIn.requestCode(body.email, request.ip);
      return { message: 'If this address has an Orca account, a sign-in code and link have been sent to it.' };
    },
  );

  route(
    app,
    {
      method: 'POST',
      path: '/api/login/verify',
      summary: 'Sign in, step two: the mailed code for a session. A few wrong codes spend the code.',
      tags: TAGS,
      auth: 'none',
      body: z.object({ email, code: z.string().min(1).max(32).describe('The code from the message.') }),
      response: { status: 200, schema: sessionSchema },
      errors: [400, 401, 429],
    },
    async ({ body }, request, reply) => {
      const session = await signIn.verify(body.email, body.code, request.ip);
      reply.header('cache-control', 'no-store');
      return sessionOut(session);
    },
  );

  route(
    app,
    {
      method: 'GET',
      path: '/api/login/link',
      summary: 'The page of the mailed sign-in link: a button that signs in (its POST). Opening it uses nothing; a used or expired link answers a 404 page.',
      tags: TAGS,
      auth: 'none',
      query: z.object({ token: linkToken }),
      response: { status: 200, schema: z.string(), contentType: 'text/html', description: 'An HTML page with a sign-in button.' },
      errors: [400],
    },
    async ({ query }, _request, reply) => {
      if (!(await signIn.linkIsLive(query.token))) {
        return page(reply, 404, 'This sign-in link has expired', '<p>It was used already or is too old. Ask for a new code with POST /api/login.</p>');
      }
      return page(
        reply,
        200,
        'Sign in to Orca',
        `<form method="post" action="link"><input type="hidden" name="token" value="${escapeHtml(query.token)}">
<button type="submit">Sign in</button></form>
<p>The button signs you in once; the session it opens is shown on the next page.</p>`,
      );
    },
  );

  // The page's form posts as a browser does; JSON callers get JSON.
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    route(
      scope,
      {
        method: 'POST',
        path: '/api/login/link',
        summary: "Uses the sign-in link's token once and opens a session (JSON body, or the link page's form).",
        tags: TAGS,
        auth: 'none',
        body: z.object({ token: linkToken }),
        response: { status: 200, schema: sessionSchema },
        errors: [400, 404],
      },
      async ({ body }, request, reply) => {
        let session: Session;
        try {
          session = await signIn.useLink(body.token);
        } catch (error) {
          if (!wantsHtml(request) || !(error instanceof ApiError)) throw error;
          return page(reply, error.status, 'This sign-in link has expired', `<p>${escapeHtml(error.detail)}</p>`);
        }
        if (wantsHtml(request)) {
          return page(
            reply,
            200,
            'You are signed in',
            `<p>Your session (send it as <code>Authorization: Bearer</code>; it is not shown again):</p>
<p><code>${escapeHtml(session.token)}</code></p><p>It ends at ${escapeHtml(session.expiresAt.toISOString())} or when you log out (POST /api/logout).</p>`,
          );
        }
        reply.header('cache-control', 'no-store');
        return sessionOut(session);
      },
    );
  });

  route(
    app,
    {
      method: 'POST',
      path: '/api/logout',
      summary: 'Ends the sign-in session sent as Authorization: Bearer; it stops working at once.',
      tags: TAGS,
      auth: 'session',
      response: { status: 204 },
      errors: [401],
    },
    async (_input, request) => {
      await signIn.logout(bearerOf(request) ?? '');
      return undefined;
    },
  );
};
