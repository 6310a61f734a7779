import type { ComponentChildren } from 'preact';
import type { Problem } from '../api/problems.js';

interface FieldProps {
  /** The input's name, which is also the API's field name for its errors. */
  name: string;
  label: string;
  problem: Problem | null;
  hint?: string;
  /** The input's id, when `field-<name>` is taken on the page (two forms with a `name` field). */
  id?: string;
  children: (attributes: FieldAttributes) => ComponentChildren;
}

export interface FieldAttributes {
  id: string;
  name: string;
  'aria-invalid': boolean;
  'aria-describedby': string | undefined;
}

/** A labelled form field with its hint and its errors from the API, tied to the input for assistive technology. */
export function Field({ name, label, problem, hint, id = `field-${name}`, children }: FieldProps) {
  const errors = problem?.fieldErrors[name] ?? [];
  const described = [hint ? `${id}-hint` : null, errors.length > 0 ? `${id}-errors` : null].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {children({ id, name, 'aria-invalid': errors.length > 0, 'aria-describedby': described || undefined })}
      {errors.length > 0 && (
        <ul class="field-errors" id={`${id}-errors`}>
          {errors.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
