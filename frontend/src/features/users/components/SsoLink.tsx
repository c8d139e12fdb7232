/** The edit page's "Single sign-on" (shown when it is configured): the identity provider's subject the user is linked to and its unlink; otherwise an admin's ways to link them: "link at next sign-in" (not for admins: a one-time link code, shown once here, for the admin to hand to the person), or a subject entered or picked from the sign-ins seen without a link. Each change is confirmed (and the server asks "confirm it's you" for a link). */
import { useState, type FormEvent } from 'react';
import { Banner } from '../../../components/Banner';
import { ConfirmMutation } from '../../../components/ConfirmMutation';
import { CopyField } from '../../../components/CopyField';
import { Field } from '../../../components/Field';
import { RowButton } from '../../../components/RowButton';
import { Table } from '../../../components/Table';
import { errorMessage } from '../../../lib/api/client';
import type { SsoExpectResponse, UserResponse, UserSso } from '../../../lib/api/types';
import { formatDateTime } from '../../../lib/format';
import { useUserSso } from '../api/get-user-sso';
import { useBindSso } from '../api/sso-bind';
import { useCancelExpectedSso, useExpectSso } from '../api/sso-expect';
import { useUnlinkSso } from '../api/sso-unlink';
import { SSO_MSG } from '../messages';

type User = UserResponse['user'];
type Asking = 'unlink' | 'expect' | 'withdraw' | 'bind' | null;

export function SsoLink({ user }: { user: User }) {
  const query = useUserSso(user.id);
  if (query.isError) {
    return (
      <section className="card" aria-labelledby="sso-link-title">
        <h2 id="sso-link-title">Single sign-on</h2>
        <p className="field-error">{errorMessage(query.error, SSO_MSG.loadFailed)}</p>
      </section>
    );
  }
  if (!query.data?.enabled) return null; // not configured (or still loading)
  return <SsoCard user={user} sso={query.data} />;
}

function SsoCard({ user, sso }: { user: User; sso: UserSso }) {
  const [asking, setAsking] = useState<Asking>(null);
  const [done, setDone] = useState<string | null>(null);
  // The link code just issued: the server keeps only its hash, so this is the one time it is shown.
  const [issued, setIssued] = useState<SsoExpectResponse | null>(null);
  const [subject, setSubject] = useState('');
  const [subjectError, setSubjectError] = useState<string | null>(null);
  const unlink = useUnlinkSso();
  const expect = useExpectSso();
  const withdraw = useCancelExpectedSso();
  const bind = useBindSso();
  const finished = (data: { message: string }) => {
    setAsking(null);
    setSubject('');
    setDone(data.message);
  };
  const askBind = (event: FormEvent) => {
    event.preventDefault();
    setSubjectError(subject.trim() ? null : SSO_MSG.subjectRequired);
    if (subject.trim()) setAsking('bind');
  };
  const provider = sso.provider;
  return (
    <section className="card" aria-labelledby="sso-link-title">
      <h2 id="sso-link-title">Single sign-on</h2>
      <Banner kind="success" onClose={() => setDone(null)}>
        {done}
      </Banner>
      {sso.subject ? (
        <>
          <p>
            Linked to the {provider} account with subject <code>{sso.subject}</code>
            {sso.linkedAt ? ` since ${formatDateTime(sso.linkedAt)}` : ''}.
          </p>
          <button type="button" className="btn btn-danger" onClick={() => setAsking('unlink')}>
            Unlink
          </button>
        </>
      ) : (
        <>
          <p className="muted">Not linked to an account at {provider}.</p>
          {issued ? (
            <div className="sso-link-code">
              <CopyField id="sso-link-code" label={SSO_MSG.codeLabel} value={issued.linkCode} failed={SSO_MSG.copyFailed} />
              <p>
                <strong>Give this code to {user.name} privately</strong> (in person or by phone, not in a shared mailbox or chat): it is shown only now.
                It works once, until {formatDateTime(issued.expectedUntil)}: after signing in through {provider}, they choose &ldquo;I have a link
                code&rdquo; on the login page and enter it.
              </p>
              <button type="button" className="btn" onClick={() => setIssued(null)}>
                {SSO_MSG.codeHidden}
              </button>
            </div>
          ) : sso.expectedUntil ? (
            <p>
              A link code for <strong>{user.username}</strong> is waiting to be used, until {formatDateTime(sso.expectedUntil)}.{' '}
              <button type="button" className="btn" onClick={() => setAsking('withdraw')}>
                Withdraw
              </button>{' '}
              <button type="button" className="btn" onClick={() => setAsking('expect')}>
                Issue a new code
              </button>
            </p>
          ) : sso.admin ? (
            <p className="muted">{SSO_MSG.adminBySubject}</p>
          ) : (
            <p>
              <button type="button" className="btn" onClick={() => setAsking('expect')}>
                Link at next sign-in
              </button>
            </p>
          )}
          <form onSubmit={askBind} noValidate aria-label="Link to a subject">
            <Field
              id="sso-subject"
              label={`Subject (sub) at ${provider}`}
              hint={SSO_MSG.subjectHint}
              value={subject}
              onValue={setSubject}
              autoComplete="off"
              spellCheck={false}
            />
            {subjectError ? (
              <p className="field-error" role="alert">
                {subjectError}
              </p>
            ) : null}
            <button type="submit" className="btn">
              Link to this subject
            </button>
          </form>
          {sso.seen.length ? (
            <Table columns={['Name', 'Username', 'Subject', 'Seen']} actions caption="Recent sign-ins linked to no account" dense>
              {sso.seen.map((seen) => (
                <tr key={seen.subject}>
                  <td>{seen.name}</td>
                  <td>{seen.username}</td>
                  <td>
                    <code>{seen.subject}</code>
                  </td>
                  <td>{formatDateTime(seen.seenAt)}</td>
                  <td>
                    <RowButton label={`Pick ${seen.subject}`} onClick={() => setSubject(seen.subject)}>
                      Pick
                    </RowButton>
                  </td>
                </tr>
              ))}
            </Table>
          ) : null}
        </>
      )}
      {asking === 'unlink' ? (
        <ConfirmMutation texts={SSO_MSG.unlink} mutation={unlink} variables={user.id} onCancel={() => setAsking(null)} onSuccess={finished}>
          <p>
            {user.name} can no longer sign in through {provider} until an administrator links them again, or they link the account with its password.
          </p>
        </ConfirmMutation>
      ) : null}
      {asking === 'expect' ? (
        <ConfirmMutation
          texts={SSO_MSG.expect}
          mutation={expect}
          variables={user.id}
          onCancel={() => setAsking(null)}
          onSuccess={(data) => {
            setAsking(null);
            setDone(null);
            setIssued(data);
          }}
        >
          <p>
            You get a one-time link code to give {user.name} privately. After signing in through {provider}, they enter it once, within a week, and
            their {provider} account is linked to {user.username}. {sso.expectedUntil ? 'The code issued before stops working.' : ''}
          </p>
        </ConfirmMutation>
      ) : null}
      {asking === 'withdraw' ? (
        <ConfirmMutation texts={SSO_MSG.withdraw} mutation={withdraw} variables={user.id} onCancel={() => setAsking(null)} onSuccess={finished}>
          <p>The link code issued for {user.name} stops working.</p>
        </ConfirmMutation>
      ) : null}
      {asking === 'bind' ? (
        <ConfirmMutation
          texts={SSO_MSG.bind}
          mutation={bind}
          variables={{ id: user.id, subject: subject.trim() }}
          onCancel={() => setAsking(null)}
          onSuccess={finished}
        >
          <p>
            Whoever signs in at {provider} with subject <code>{subject.trim()}</code> signs in as {user.name} ({user.role}).
          </p>
        </ConfirmMutation>
      ) : null}
    </section>
  );
}
