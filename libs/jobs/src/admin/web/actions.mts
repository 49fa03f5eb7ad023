import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { ApiError } from './api.mjs';

/** How the page words a failed call: the API's code and message, or the error's message. */
export function failureOf(e: unknown): string {
  if (e instanceof ApiError) return `${e.code}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/** What the last write of a view came to: what was done, or why it failed. */
export interface Note {
  readonly text: string;
  readonly failed: boolean;
}

/** A view's writes: `act` sends one, words its outcome in `note`, then reloads the view's data. */
export interface Actions {
  readonly note: Note | null;
  /** Says that a call the view made on its own (a preview before a write) failed. */
  readonly fail: (e: unknown) => void;
  readonly act: <T>(
    send: () => Promise<T>,
    done: string | ((answer: T) => string),
  ) => Promise<void>;
}

/** The writes of a view whose data `reload` reads again once each has been answered, refused or not. */
export function useActions(reload: () => void): Actions {
  const [note, setNote] = useState<Note | null>(null);
  const fail = (e: unknown) => setNote({ text: failureOf(e), failed: true });
  const act = async <T,>(send: () => Promise<T>, done: string | ((answer: T) => string)) => {
    try {
      const answer = await send();
      setNote({ text: typeof done === 'string' ? done : done(answer), failed: false });
    } catch (e) {
      fail(e);
    }
    reload();
  };
  return { note, fail, act };
}

/** The line that says a view's last write (`data-testid="note"`), in the error's colour when it failed. */
export function NoteLine(props: { readonly note: Note | null }) {
  const { note } = props;
  if (note === null) return null;
  return html`<p class=${note.failed ? 'note error' : 'note'} data-testid="note">${note.text}</p>`;
}
