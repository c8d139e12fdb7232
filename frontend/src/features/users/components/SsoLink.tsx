/** The edit page's "Single sign-on": whether the user is linked to the identity provider's account, and the admin's unlink (confirmed first). */
import type { UserResponse } from '../../../lib/api/types';
import { useUnlinkSso } from '../api/sso-unlink';
import { ConfirmedAction } from './ConfirmedAction';

export function SsoLink({ user }: { user: UserResponse['user'] }) {
  const unlink = useUnlinkSso();
  return (
    <ConfirmedAction
      id="sso-link-title"
      heading="Single sign-on"
      texts={{ title: 'Unlink from the identity provider?', confirm: 'Unlink', busy: 'Unlinking…', failed: 'Failed to unlink the user' }}
      mutation={unlink}
      variables={user.id}
      question={
        <p>
          {user.name} is linked again at their next sign-in through the identity provider only if an account there has the username {user.username}.
        </p>
      }
    >
      {(ask) =>
        user.ssoLinked ? (
          <>
            <p>Linked to an account at the identity provider.</p>
            <button type="button" className="btn btn-danger" onClick={ask}>
              Unlink
            </button>
          </>
        ) : (
          <p className="muted">Not linked to an account at the identity provider.</p>
        )
      }
    </ConfirmedAction>
  );
}
