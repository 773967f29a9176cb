// The frame of each app: a skip link, a banner with the app's name and its
// navigation, sign-out, and the page in <main>. Until a session exists it
// shows the sign-in page instead, keeping the address, so a shared link
// lands on its page after signing in.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { Link } from './router.ts';
import { currentSession, endSession, onSessionChange, type Session } from './session.ts';
import { SignIn } from './sign-in.ts';

export interface NavItem {
  label: string;
  to: string;
  current: boolean;
}

export function useSession(): { session: Session | null; notice: string | null } {
  const [state, setState] = useState<{ session: Session | null; notice: string | null }>(() => ({ session: currentSession(), notice: null }));
  useEffect(() => onSessionChange((session, notice) => setState({ session, notice })), []);
  return state;
}

export function Shell(props: { appName: string; nav: NavItem[]; other: { label: string; to: string }; children: () => ComponentChildren }) {
  const { session, notice } = useSession();
  useEffect(() => {
    if (!session) document.title = `Sign in · ${props.appName}`;
  }, [session]);
  return html`<a class="skip" href="#main">Skip to content</a>
    <header class="banner">
      <span class="brand">Orca ${props.appName}</span>
      ${
        session
          ? html`<nav aria-label="Main">
                <ul>
                  ${props.nav.map((item) => html`<li><${Link} to=${item.to} aria-current=${item.current ? 'page' : undefined}>${item.label}<//></li>`)}
                  <li><a href=${props.other.to}>${props.other.label}</a></li>
                </ul>
              </nav>
              <button type="button" class="secondary" onClick=${() => endSession('You have signed out.')}>Sign out</button>`
          : null
      }
    </header>
    ${session ? html`<main id="main">${props.children()}</main>` : html`<${SignIn} appName=${props.appName} notice=${notice} />`}`;
}

/** A failure in the page: text, announced politely, never a blank screen. */
export function ErrorNote(props: { message: string | null }) {
  return props.message ? html`<p class="error" role="alert">${props.message}</p>` : null;
}

export function Loading() {
  return html`<p role="status">Loading…</p>`;
}
