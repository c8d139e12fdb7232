/** The edit page's "Reset second factor": confirmed first; the user then signs in with the password alone and sets one up again. */
import { useState } from 'react';
import { Banner } from '../../../components/Banner';
import { ConfirmMutation } from '../../../components/ConfirmMutation';
import type { UserResponse } from '../../../lib/api/types';
import { useResetSecondFactor } from '../api/reset-second-factor';
import { SecondFactorBadge } from './SecondFactorBadge';

export function ResetSecondFactor({ user }: { user: UserResponse['user'] }) {
  const reset = useResetSecondFactor();
  const [asking, setAsking] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  return (
    <section className="card" aria-labelledby="second-factor-title">
      <h2 id="second-factor-title">
        Second factor <SecondFactorBadge on={user.secondFactor} />
      </h2>
      <Banner kind="success" onClose={() => setDone(null)}>
        {done}
      </Banner>
      {user.secondFactor ? (
        <button type="button" className="btn btn-danger" onClick={() => setAsking(true)}>
          Reset second factor
        </button>
      ) : (
        <p className="muted">No authenticator app or passkey is set up.</p>
      )}
      {asking ? (
        <ConfirmMutation
          texts={{ title: 'Reset second factor?', confirm: 'Reset', busy: 'Resetting…', failed: 'Failed to reset the second factor' }}
          mutation={reset}
          variables={user.id}
          onCancel={() => setAsking(false)}
          onSuccess={(data) => {
            setAsking(false);
            setDone(data.message);
          }}
        >
          <p>
            This removes every authenticator app, passkey and recovery code of {user.name} and signs them out everywhere. Use it when they have lost their
            phone or key.
          </p>
        </ConfirmMutation>
      ) : null}
    </section>
  );
}
