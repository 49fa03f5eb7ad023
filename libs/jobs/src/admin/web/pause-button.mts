import { html } from 'htm/preact';
import { post } from './api.mjs';
import type { Actions } from './actions.mjs';

/**
 * The Pause / Resume button of a queue's or a task's row (`data-testid` `pause-<kind>` or `resume-<kind>`): it posts
 * `<path>/pause` or `<path>/resume` through the view's `actions`, which word the answer or the refusal in its note.
 */
export function PauseButton(props: {
  readonly kind: 'queue' | 'task';
  readonly name: string;
  readonly path: string;
  readonly paused: boolean;
  readonly actions: Actions;
}) {
  const { kind, name, path, paused, actions } = props;
  const verb = paused ? 'resume' : 'pause';
  return html`<button
    data-testid=${`${verb}-${kind}`}
    onClick=${() => actions.act(() => post(`${path}/${verb}`), `${verb}d ${kind} ${name}`)}
  >
    ${paused ? 'Resume' : 'Pause'}
  </button>`;
}
