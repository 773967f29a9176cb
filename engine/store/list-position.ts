// The position a newest-first list cursor holds: the last item's instant
// (epoch ms; rows are stamped in whole milliseconds) and its key, so a page
// resumes with `(instant, key) < position` on an (account, …, instant, key)
// index. Shared by the instance and completed-task lists.
import { isKey } from './cursor.ts';

const LIST_POSITION = /^(0|[1-9][0-9]{0,15}):(0|[1-9][0-9]{0,18})$/;

export function listPosition(at: Date, key: string): string {
  return `${at.getTime()}:${key}`;
}

export function isListPosition(position: string): boolean {
  const match = LIST_POSITION.exec(position);
  return match !== null && isKey(match[2]);
}

export function decodeListPosition(position: string): { at: string; key: string } {
  const colon = position.indexOf(':');
  return { at: position.slice(0, colon), key: position.slice(colon + 1) };
}
