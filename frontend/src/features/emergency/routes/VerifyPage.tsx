/**
 * /patients/verify/:id?s=...: the SmartToken landing page (public, outside the layout).
 *
 * The server answers well-formed links itself and serves this page only for the links it thinks
 * malformed, so this page explains what is wrong and redirects only a link in the server's exact
 * format (which it can see only when reached some other way, e.g. inside the app); a sessionStorage
 * guard means the same link is never redirected twice within a few seconds.
 */
import { useEffect, useRef, useState } from 'react';
import { useParams, useSearchParams } from 'react-router-dom';
import { serverUrl } from '../../../lib/api/client';
import { pageLocation } from '../../../lib/location';
import { markRedirect, redirectedRecently, VERIFY_MSG, verifyDecision } from '../../../lib/smartTokens';
import { PublicCard } from '../components/PublicCard';

function sessionStore(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export default function VerifyPage() {
  const { id } = useParams();
  const [params] = useSearchParams();
  const decision = verifyDecision(id, params.get('s'));
  const path = decision.kind === 'redirect' ? decision.path : null;
  // Read once per page load: a link redirected moments ago has come back, so stop here.
  const [held] = useState(() => {
    const storage = sessionStore();
    return path !== null && (!storage || redirectedRecently(path, Date.now(), storage));
  });
  const sent = useRef(false);

  useEffect(() => {
    if (path === null || held || sent.current) return;
    sent.current = true;
    const storage = sessionStore();
    if (storage && markRedirect(path, Date.now(), storage)) pageLocation.assign(serverUrl(path));
  }, [path, held]);

  const failure =
    decision.kind === 'missing'
      ? VERIFY_MSG.missing
      : decision.kind === 'bad-signature'
        ? VERIFY_MSG.badSignature
        : decision.kind === 'not-valid' || held
          ? VERIFY_MSG.neutral
          : null;
  if (failure) {
    return (
      <PublicCard title={failure} tone="error">
        <p>{VERIFY_MSG.nextStep}</p>
      </PublicCard>
    );
  }
  return (
    <PublicCard title={VERIFY_MSG.verifying}>
      <p role="status" className="public-status">
        <span className="spinner" aria-hidden="true" /> Token <code>{(id ?? '').slice(0, 8)}</code>…
      </p>
    </PublicCard>
  );
}
