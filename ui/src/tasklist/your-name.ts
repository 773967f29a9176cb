// "Your name": typed once, kept in this browser (localStorage), and used as
// the assignee when you claim a task and for "Assigned to me".
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';

const STORAGE_KEY = 'orca.tasklist.name';
const listeners = new Set<(name: string) => void>();

function stored(): string {
  try {
    return localStorage.getItem(STORAGE_KEY) ?? '';
  } catch {
    return '';
  }
}

export function useYourName(): [string, (name: string) => void] {
  const [name, setName] = useState(stored);
  useEffect(() => {
    listeners.add(setName);
    return () => listeners.delete(setName);
  }, []);
  const update = (next: string) => {
    localStorage.setItem(STORAGE_KEY, next);
    for (const listener of listeners) listener(next);
  };
  return [name, update];
}

export function YourNameField() {
  const [name, setName] = useYourName();
  return html`<div class="your-name">
    <label for="your-name">Your name</label>
    <input
      id="your-name"
      autocomplete="name"
      value=${name}
      maxlength="255"
      aria-describedby="your-name-help"
      onInput=${(e: Event) => setName((e.target as HTMLInputElement).value.trim())}
    />
    <span id="your-name-help" class="help">Used when you claim a task and for “Assigned to me”.</span>
  </div>`;
}
