import { html } from 'htm/preact';
import { post } from './api.mjs';
import type { Actions } from './actions.mjs';

/**
 * The Pause / Resume button of a queue's or a task's row (`data-testid` `pause-<kind>` or `resume-<kind>`), shown to a
 * session that may write (nothing otherwise): it posts `<kind>s/<name>/pause` or `…/resume` through the view's
 * `actions`, which word the answer or the refusal in its note.
 */
export function PauseButton(props: {
  readonly kind: 'queue' | 'task';
  readonly name: string;
  readonly paused: boolean;
  readonly canWrite: boolean;
  readonly actions: Actions;
}) {
  const { kind, name, paused, canWrite, actions } = props;
  if (!canWrite) return null;
  const verb = paused ? 'resume' : 'pause';
  const path = `${kind}s/${encodeURIComponent(name)}/${verb}`;
  return html`<button
    data-testid=${`${verb}-${kind}`}
    onClick=${() => actions.act(() => post(path), `${verb}d ${kind} ${name}`)}
  >
    ${paused ? 'Resume' : 'Pause'}
  </button>`;
}
