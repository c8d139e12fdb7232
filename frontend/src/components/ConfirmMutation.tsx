/** A destructive call confirmed first: Cancel focused, busy while the call runs, its failure shown inside. */
import type { UseMutationResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { mutationError } from '../lib/api/client';
import { ConfirmDialog } from './Dialog';

interface ConfirmMutationProps<TData, TVariables> {
  /** The dialog's title, the confirm button's label and busy label, and the fallback failure message. */
  texts: { title: string; confirm: string; busy: string; failed: string };
  mutation: UseMutationResult<TData, Error, TVariables>;
  variables: TVariables;
  onSuccess: (data: TData) => void;
  onCancel: () => void;
  children: ReactNode;
}

export function ConfirmMutation<TData, TVariables>({
  texts,
  mutation,
  variables,
  onSuccess,
  onCancel,
  children,
}: ConfirmMutationProps<TData, TVariables>) {
  return (
    <ConfirmDialog
      title={texts.title}
      confirmLabel={texts.confirm}
      busyLabel={texts.busy}
      danger
      busy={mutation.isPending}
      error={mutationError(mutation, texts.failed)}
      onCancel={onCancel}
      onConfirm={() => mutation.mutate(variables, { onSuccess })}
    >
      {children}
    </ConfirmDialog>
  );
}
