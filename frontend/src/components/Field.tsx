/** A labelled form field: the label, its control (an input unless children bring another) and a hint read with it. */
import type { ChangeEvent, InputHTMLAttributes, ReactNode, Ref } from 'react';

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  /** The input's new text, on every change. */
  onValue?: (value: string) => void;
  /** Another control than an input (a select), carrying `id` and, with a hint, aria-describedby={`${id}-hint`}. */
  children?: ReactNode;
  /** The input (a prop since React 19). */
  ref?: Ref<HTMLInputElement>;
}

export function Field({ id, label, hint, onValue, children, className, ...input }: FieldProps) {
  const hintId = hint ? `${id}-hint` : undefined;
  const onChange = onValue ? (event: ChangeEvent<HTMLInputElement>) => onValue(event.target.value) : input.onChange;
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children ?? <input id={id} aria-describedby={hintId} {...input} onChange={onChange} />}
      {hint ? (
        <span id={hintId} className="hint">
          {hint}
        </span>
      ) : null}
    </div>
  );
}

/** The options of a select whose values are also what it shows. */
export function Options({ values }: { values: readonly (string | number)[] }) {
  return values.map((value) => (
    <option key={value} value={value}>
      {value}
    </option>
  ));
}
