/** Register a device by its secure chip id; on success its verification URL is shown once, with Copy and a QR code. */
import { useState, type FormEvent } from 'react';
import { Dialog } from '../../../components/Dialog';
import { FormDialog } from '../../../components/FormDialog';
import { QrCode } from '../../../components/QrCode';
import { errorMessage } from '../../../lib/api/client';
import { shortTokenId } from '../../../lib/smartTokens';
import { useRegisterToken } from '../api/register-token';
import { TOKEN_MSG } from '../messages';

export function RegisterTokenDialog({ onClose }: { onClose: () => void }) {
  const register = useRegisterToken();
  const [chipId, setChipId] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const result = register.data;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!chipId.trim()) {
      setProblem(TOKEN_MSG.chipRequired);
      return;
    }
    setProblem(null);
    register.mutate({ secureChipId: chipId.trim() });
  };

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
        <div className="field">
          <label htmlFor="verification-url">Verification URL</label>
          <input id="verification-url" readOnly value={result.verificationUrl} onFocus={(e) => e.currentTarget.select()} />
        </div>
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
    <FormDialog
      key="register"
      title="Register Device"
      onClose={onClose}
      onSubmit={submit}
      busy={register.isPending}
      submitLabel="Register"
      busyLabel="Registering…"
      error={problem ?? (register.isError ? errorMessage(register.error, TOKEN_MSG.registerFailed) : null)}
    >
      <div className="field">
        <label htmlFor="secure-chip-id">Secure chip ID</label>
        <input
          id="secure-chip-id"
          value={chipId}
          onChange={(e) => setChipId(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          required
          data-autofocus
        />
        <span className="hint">Letters, digits and . _ : - only.</span>
      </div>
    </FormDialog>
  );
}
