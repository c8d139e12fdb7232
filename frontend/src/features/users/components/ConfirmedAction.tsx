/** A card of the user edit page with one destructive action: confirmed first, the server's answer then shown in a success banner. */
import type { UseMutationResult } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Banner } from '../../../components/Banner';
import { ConfirmMutation } from '../../../components/ConfirmMutation';

interface ConfirmedActionProps<TData extends { message: string }, TVariables> {
  /** The heading's id (the card is labelled by it) and the heading. */
  id: string;
  heading: ReactNode;
  /** The confirmation's title, its button's label and busy label, and the fallback failure message. */
  texts: { title: string; confirm: string; busy: string; failed: string };
  mutation: UseMutationResult<TData, Error, TVariables>;
  variables: TVariables;
  /** What the confirmation says will happen. */
  question: ReactNode;
  /** The card's content; `ask` opens the confirmation. */
  children: (ask: () => void) => ReactNode;
}

export function ConfirmedAction<TData extends { message: string }, TVariables>({
  id,
  heading,
  texts,
  mutation,
  variables,
  question,
  children,
}: ConfirmedActionProps<TData, TVariables>) {
  const [asking, setAsking] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{heading}</h2>
      <Banner kind="success" onClose={() => setDone(null)}>
        {done}
      </Banner>
      {children(() => setAsking(true))}
      {asking ? (
        <ConfirmMutation
          texts={texts}
          mutation={mutation}
          variables={variables}
          onCancel={() => setAsking(false)}
          onSuccess={(data) => {
            setAsking(false);
            setDone(data.message);
          }}
        >
          {question}
        </ConfirmMutation>
      ) : null}
    </section>
  );
}
