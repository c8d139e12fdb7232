/**
 * Saving the user form: the required fields and the password's length first, then the call; on success a notification and
 * back to /users, on failure the server's message or the fallback above the form.
 */
import type { UseMutationResult } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useNotify } from '../../components/Notifications';
import { errorMessage } from '../../lib/api/client';
import { PASSWORD_LENGTH } from '../../lib/server.gen';
import type { UserValues } from './components/UserForm';
import { USER_FORM_MSG } from './messages';

export function useSaveUser<Body>(
  save: UseMutationResult<unknown, Error, Body>,
  messages: { saved: string; failed: string },
  /** The request body, or null when a field this form requires is missing. */
  bodyOf: (values: UserValues) => Body | null,
) {
  const navigate = useNavigate();
  const notify = useNotify();
  const [error, setError] = useState<string | null>(null);
  const onSubmit = (values: UserValues) => {
    const body = values.name.trim() && values.username.trim() ? bodyOf(values) : null;
    if (body === null) {
      setError(USER_FORM_MSG.required);
      return;
    }
    // A password given (required on create, optional on edit) is checked before sending, with
    // the server's own limits, counted as the server counts (characters of the NFKC form); the
    // rest of the rule (common or guessable passwords, a deployment's longer minimum) is the
    // server's, whose message says what to do.
    const length = [...values.password.normalize('NFKC')].length;
    if (length > 0 && (length < PASSWORD_LENGTH.min || length > PASSWORD_LENGTH.max)) {
      setError(USER_FORM_MSG.passwordLength);
      return;
    }
    setError(null);
    save.mutate(body, {
      onSuccess: () => {
        notify('success', messages.saved);
        navigate('/users');
      },
      onError: (err) => setError(errorMessage(err, messages.failed)),
    });
  };
  return { busy: save.isPending, error, onDismissError: () => setError(null), onSubmit };
}
