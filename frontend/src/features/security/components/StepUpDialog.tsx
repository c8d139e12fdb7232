/**
 * "Confirm it's you": shown when the server refuses a sensitive change until the session proves
 * its password or a factor again (lib/api/stepUp.ts). On success the client retries the request
 * once with the proof; Cancel leaves the request's own 403.
 */
import { lazy, Suspense, useEffect, useState } from 'react';
import { setStepUpHandler } from '../../../lib/api/stepUp';
import type { Answer } from './StepUpForm';

// The form loads when first needed: every page mounts this host, few ever show the dialog.
const StepUpForm = lazy(() => import('./StepUpForm'));

/** Mounted once (app/Providers.tsx): registers itself as the API client's step-up handler. */
export function StepUpDialog() {
  const [answer, setAnswer] = useState<Answer | null>(null);
  useEffect(() => {
    let open: Answer | null = null;
    const remove = setStepUpHandler(
      () =>
        new Promise<string | null>((resolve) => {
          open = resolve;
          setAnswer(() => resolve);
        }),
    );
    return () => {
      remove();
      open?.(null);
    };
  }, []);
  if (!answer) return null;
  return (
    <Suspense fallback={null}>
      <StepUpForm
        onDone={(proof) => {
          setAnswer(null);
          answer(proof);
        }}
      />
    </Suspense>
  );
}
