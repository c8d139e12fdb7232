/**
 * Step-up: before a sensitive change (a second factor, recovery codes, a password, an admin's
 * takeover or destructive action) the server may answer 403 {reauth: true} when the session
 * has not proved its password or a factor recently. The client then asks whoever registered
 * here (the "Confirm it's you" dialog) for a step-up proof and retries the request once with it
 * in the x-step-up header; without a handler, or when the person cancels, the 403 stands.
 */
export const STEP_UP_HEADER = 'x-step-up';

/** Resolves to a proof from POST /api/auth/confirm-identity, or null when cancelled. */
export type StepUpHandler = () => Promise<string | null>;

let handler: StepUpHandler | null = null;
let asking: Promise<string | null> | null = null;

/** Register the one handler (null to remove it); returns a function that removes it. */
export function setStepUpHandler(next: StepUpHandler | null): () => void {
  handler = next;
  return () => {
    if (handler === next) handler = null;
  };
}

/** Whether an error answer is the server's step-up refusal. */
export function isStepUpRefusal(status: number, data: unknown): boolean {
  return status === 403 && typeof data === 'object' && data !== null && (data as { reauth?: unknown }).reauth === true;
}

/** A proof for one retry, or null; requests refused at once share one dialog. */
export function askForStepUp(): Promise<string | null> {
  if (!handler) return Promise.resolve(null);
  if (!asking) {
    asking = handler().finally(() => {
      asking = null;
    });
  }
  return asking;
}
