/** The edit page's "Reset second factor": confirmed first; the user then signs in with the password alone and sets one up again. */
import type { UserResponse } from '../../../lib/api/types';
import { useResetSecondFactor } from '../api/reset-second-factor';
import { ConfirmedAction } from './ConfirmedAction';
import { SecondFactorBadge } from './SecondFactorBadge';

export function ResetSecondFactor({ user }: { user: UserResponse['user'] }) {
  const reset = useResetSecondFactor();
  return (
    <ConfirmedAction
      id="second-factor-title"
      heading={
        <>
          Second factor <SecondFactorBadge on={user.secondFactor} />
        </>
      }
      texts={{ title: 'Reset second factor?', confirm: 'Reset', busy: 'Resetting…', failed: 'Failed to reset the second factor' }}
      mutation={reset}
      variables={user.id}
      question={
        <p>
          This removes every authenticator app, passkey and recovery code of {user.name} and signs them out everywhere. Use it when they have lost their phone
          or key.
        </p>
      }
    >
      {(ask) =>
        user.secondFactor ? (
          <button type="button" className="btn btn-danger" onClick={ask}>
            Reset second factor
          </button>
        ) : (
          <p className="muted">No authenticator app or passkey is set up.</p>
        )
      }
    </ConfirmedAction>
  );
}
