import { signedOutMessage, SIGNED_OUT_MSG } from './signOutReasons';

describe('signedOutMessage', () => {
  it('says why when the server said', () => {
    expect(signedOutMessage('password-changed')).toBe('Your password was changed by an administrator. Please log in again.');
    expect(signedOutMessage('logout-all')).toBe('You were signed out from another session. Please log in again.');
    expect(signedOutMessage('mfa-changed')).toBe(SIGNED_OUT_MSG.otherSession);
    expect(signedOutMessage('role-changed')).toBe(SIGNED_OUT_MSG.roleChanged);
  });

  it("keeps the spec's words for expiry, deletion, unknown reasons and none", () => {
    const spec = 'Your session has expired or your account has been deleted. Please log in again.';
    for (const reason of ['expired', 'account-deleted', 'ended', 'toString', '', null, undefined]) {
      expect(signedOutMessage(reason)).toBe(spec);
    }
  });
});
