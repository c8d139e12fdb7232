/** The panel that creates a container or a folder by name, with its error banner and success toast. */
import type { UseMutationResult } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Banner } from '../../../components/Banner';
import { Field } from '../../../components/Field';
import { useNotify } from '../../../components/Notifications';
import { errorMessage } from '../../../lib/api/client';

interface CreateNameFormProps {
  noun: 'container' | 'folder';
  create: UseMutationResult<{ message: string }, Error, string>;
  maxLength: number;
  messages: { nameRequired: string; createFailed: string; created: string };
}

export function CreateNameForm({ noun, create, maxLength, messages }: CreateNameFormProps) {
  const notify = useNotify();
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const title = noun === 'container' ? 'Container' : 'Folder';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      setProblem(messages.nameRequired);
      return;
    }
    setProblem(null);
    create.mutate(trimmed, {
      onSuccess: (data) => {
        notify('success', data.message || messages.created);
        setName('');
      },
      onError: (error) => setProblem(errorMessage(error, messages.createFailed)),
    });
  };

  return (
    <section className="panel" aria-labelledby={`create-${noun}-heading`}>
      <h2 id={`create-${noun}-heading`}>Create {title}</h2>
      <Banner kind="error" onClose={() => setProblem(null)}>
        {problem}
      </Banner>
      <form className="inline-form" onSubmit={submit} noValidate>
        <Field id={`new-${noun}`} label={`${title} name`} value={name} onValue={setName} autoComplete="off" maxLength={maxLength} />
        <button type="submit" className="btn btn-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : `Create ${title}`}
        </button>
      </form>
    </section>
  );
}
