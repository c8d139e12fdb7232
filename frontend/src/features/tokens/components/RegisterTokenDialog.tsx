/** Register a device by its secure chip id; on success its verification URL is shown once, with Copy and a QR code. */
import { useState } from 'react';
import { Dialog } from '../../../components/Dialog';
import { Field } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { QrCode } from '../../../components/QrCode';
import { errorMessage } from '../../../lib/api/client';
import { shortTokenId } from '../../../lib/smartTokens';
import { useRegisterToken } from '../api/register-token';
import { TOKEN_MSG } from '../messages';
import { useTokenForm } from '../useTokenForm';

export function RegisterTokenDialog({ onClose }: { onClose: () => void }) {
  const register = useRegisterToken();
  const [chipId, setChipId] = useState('');
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const result = register.data;

  const dialogForm = useTokenForm(register, {
    check: () => (chipId.trim() ? null : TOKEN_MSG.chipRequired),
    variables: () => ({ secureChipId: chipId.trim() }),
    failure: (error) => errorMessage(error, TOKEN_MSG.registerFailed),
  });

  const copyUrl = async () => {
    if (!result) return;
    try {
      await navigator.clipboard.writeText(result.verificationUrl);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  };

  if (result) {
    return (
      // A new dialog instance, so focus moves to Copy when the result appears.
      <Dialog
        key="registered"
        title="Device registered"
        onClose={onClose}
        actions={
          <button type="button" className="btn btn-primary" onClick={onClose}>
            Done
          </button>
        }
      >
        <p role="status">
          {result.message || TOKEN_MSG.registered}: token <code title={result.smartTokenId}>{shortTokenId(result.smartTokenId)}</code> for
          chip <code>{result.secureChipId}</code>.
        </p>
        <p className="warning-text">{TOKEN_MSG.urlOnce}</p>
        <Field
          id="verification-url"
          label="Verification URL"
          readOnly
          value={result.verificationUrl}
          onFocus={(e) => e.currentTarget.select()}
        />
        <div className="copy-row">
          <button type="button" className="btn" onClick={() => void copyUrl()} data-autofocus>
            Copy
          </button>
          <span className="muted small" role="status">
            {copy === 'copied' ? TOKEN_MSG.copied : copy === 'failed' ? TOKEN_MSG.copyFailed : ''}
          </span>
        </div>
        <div className="qr-wrap">
          <QrCode value={result.verificationUrl} label="QR code of the verification URL" />
        </div>
      </Dialog>
    );
  }

  return (
    <FormDialog key="register" title="Register Device" submitLabel="Register" busyLabel="Registering…" onClose={onClose} {...dialogForm}>
      <Field
        id="secure-chip-id"
        label="Secure chip ID"
        hint="Letters, digits and . _ : - only."
        required
        data-autofocus
        value={chipId}
        onValue={setChipId}
        autoComplete="off"
        spellCheck={false}
      />
    </FormDialog>
  );
}
