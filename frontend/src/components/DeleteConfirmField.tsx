/** "Type DELETE to confirm": the field a permanent deletion asks for, and its check. */
import { DELETE_CONFIRM_WORD } from '../lib/smartTokens';
import { Field } from './Field';

/** Whether what was typed confirms the deletion. */
export const confirmsDelete = (typed: string) => typed === DELETE_CONFIRM_WORD;

interface DeleteConfirmFieldProps {
  id: string;
  value: string;
  onValue: (value: string) => void;
  /** The dialog's first focus. */
  'data-autofocus'?: boolean;
}

export function DeleteConfirmField(props: DeleteConfirmFieldProps) {
  return <Field label={`Type ${DELETE_CONFIRM_WORD} to confirm *`} autoComplete="off" spellCheck={false} {...props} />;
}
