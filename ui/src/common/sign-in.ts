// The sign-in page both apps share: one field labelled "API key" and a
// "Sign in" button. The key is exchanged for a bearer token and then
// forgotten; a wrong key, or the server being away, is said in the page.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { signIn } from './api.ts';

export function SignIn(props: { appName: string; notice: string | null }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (key.trim() === '') {
      setError('Enter your API key.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await signIn(key.trim());
    } catch (failure) {
      setError((failure as Error).message);
      setBusy(false);
    }
  };

  return html`<main id="main" class="sign-in">
    <h1>Sign in to the ${props.appName}</h1>
    ${props.notice && !error ? html`<p class="notice" role="status">${props.notice}</p>` : null}
    <form onSubmit=${submit} novalidate>
      <label for="api-key">API key</label>
      <input
        id="api-key"
        name="api-key"
        type="password"
        autocomplete="off"
        spellcheck=${false}
        value=${key}
        aria-invalid=${error ? 'true' : undefined}
        aria-describedby=${error ? 'sign-in-error' : 'sign-in-help'}
        onInput=${(event: Event) => setKey((event.target as HTMLInputElement).value)}
      />
      <p id="sign-in-help" class="help">The key from your welcome message. It is exchanged for a 30-minute session and not kept.</p>
      ${error ? html`<p id="sign-in-error" class="error" role="alert">${error}</p>` : null}
      <button type="submit" disabled=${busy}>Sign in</button>
    </form>
  </main>`;
}
