/**
 * The form of a dialog (the SmartToken dialogs, the intake's): on submit the fields are checked first (their problem is shown
 * instead of calling the server), then the call runs; the dialog's error is the fields' problem
 * or the call's failure.
 */
import type { UseMutationResult } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';

interface DialogFormOptions<TData, TVariables> {
  /** What is wrong with the fields ('Please provide a reason…'), or null. */
  check: () => string | null;
  variables: () => TVariables;
  onSuccess?: (data: TData) => void;
  /** The message for a failed call. */
  failure: (error: Error) => string;
}

export function useDialogForm<TData, TVariables>(
  mutation: UseMutationResult<TData, Error, TVariables>,
  { check, variables, onSuccess, failure }: DialogFormOptions<TData, TVariables>,
) {
  const [problem, setProblem] = useState<string | null>(null);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const issue = check();
    setProblem(issue);
    if (issue === null) mutation.mutate(variables(), { onSuccess });
  };
  const error = problem ?? (mutation.isError ? failure(mutation.error) : null);
  return { onSubmit, busy: mutation.isPending, error };
}
