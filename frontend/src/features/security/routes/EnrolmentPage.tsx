/** /security/setup: the forced enrolment screen of a restricted session (a role that needs a second factor). Confirming ends that session; the new full one is kept only after the recovery codes are saved. */
import { useState } from 'react';
import { Navigate, useNavigate } from 'react-router-dom';
import { Banner } from '../../../components/Banner';
import { useSession } from '../../../lib/sessionContext';
import { setToken } from '../../../lib/session';
import { AddPasskey } from '../components/AddPasskey';
import { RecoveryCodes } from '../components/RecoveryCodes';
import { TotpSetup } from '../components/TotpSetup';
import { SECURITY_MSG } from '../messages';

export default function EnrolmentPage() {
  const { enrolmentRequired } = useSession();
  const navigate = useNavigate();
  const [done, setDone] = useState<{ token: string; codes: string[] } | null>(null);
  if (!enrolmentRequired && !done) return <Navigate to="/security" replace />;
  const enter = (token: string) => {
    setToken(token);
    navigate('/dashboard', { replace: true });
  };
  if (done) {
    return (
      <main className="login-page">
        <div className="login-card">
          <RecoveryCodes codes={done.codes} onDone={() => enter(done.token)} doneLabel="Continue" />
        </div>
      </main>
    );
  }
  return (
    <main className="login-page">
      <div className="login-card">
        <h1>{SECURITY_MSG.enrolTitle}</h1>
        <Banner kind="info">{SECURITY_MSG.enrolIntro}</Banner>
        <section aria-labelledby="enrol-totp">
          <h2 id="enrol-totp">Authenticator app</h2>
          <TotpSetup restricted onConfirmed={(r) => r.token && setDone({ token: r.token, codes: r.recoveryCodes })} />
        </section>
        <section aria-labelledby="enrol-passkey">
          <h2 id="enrol-passkey">Or a passkey</h2>
          <AddPasskey
            restricted
            onAdded={(created) => {
              if (!created.token) return;
              if (created.recoveryCodes) setDone({ token: created.token, codes: created.recoveryCodes });
              else enter(created.token);
            }}
          />
        </section>
      </div>
    </main>
  );
}
