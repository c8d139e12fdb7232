/**
 * Register a device by its secure chip id: an NTAG 424 DNA SUN tag (UID, optional file-read key;
 * on success the URL template, SDM offsets and any generated key are shown once, with Copy), or a
 * static link (its verification URL shown once, with Copy and a QR code).
 */
import { useState } from 'react';
import { CopyField } from '../../../components/CopyField';
import { Dialog } from '../../../components/Dialog';
import { Field } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { QrCode } from '../../../components/QrCode';
import { errorMessage } from '../../../lib/api/client';
import type { RegisterTokenResponse } from '../../../lib/api/types';
import { shortTokenId } from '../../../lib/smartTokens';
import { useRegisterToken } from '../api/register-token';
import { TOKEN_MSG } from '../messages';
import { useTokenForm } from '../useTokenForm';

type Kind = 'sun' | 'static';
const HEX = /^[0-9A-Fa-f]*$/;

function Registered({ result, onClose }: { result: RegisterTokenResponse; onClose: () => void }) {
  const sun = result.sun;
  return (
    // A new dialog instance, so focus moves to Copy when the result appears.
    <Dialog
      key="registered"
      title={sun ? 'SUN tag registered' : 'Device registered'}
      onClose={onClose}
      actions={
        <button type="button" className="btn btn-primary" onClick={onClose}>
          Done
        </button>
      }
    >
      <p role="status">
        {result.message || TOKEN_MSG.registered}: token <code title={result.smartTokenId}>{shortTokenId(result.smartTokenId)}</code> for
        chip <code>{result.secureChipId}</code>
        {sun ? (
          <>
            , tag UID <code>{sun.uid}</code>
          </>
        ) : null}
        .
      </p>
      {sun ? (
        <>
          <p className="warning-text">{sun.fileReadKey ? TOKEN_MSG.keyOnce : TOKEN_MSG.templateOnce}</p>
          <CopyField id="url-template" label="NDEF URL template" value={sun.urlTemplate} autoFocus failed={TOKEN_MSG.copyFailed} />
          <p className="muted small">
            PICCData offset <strong data-testid="picc-offset">{sun.piccDataOffset}</strong>, SDMMAC offset (and MAC input offset){' '}
            <strong data-testid="mac-offset">{sun.macOffset}</strong>: bytes into the NDEF file, the URL written whole as one URI record
            (identifier code 0x00). Mirror the UID and counter encrypted with the deployment&apos;s meta-read key.
          </p>
          {sun.fileReadKey ? <CopyField id="file-read-key" label="SDM file-read key" value={sun.fileReadKey} failed={TOKEN_MSG.copyFailed} /> : null}
        </>
      ) : (
        <>
          <p className="warning-text">{TOKEN_MSG.urlOnce}</p>
          <CopyField id="verification-url" label="Verification URL" value={result.verificationUrl} autoFocus failed={TOKEN_MSG.copyFailed} />
          <div className="qr-wrap">
            <QrCode value={result.verificationUrl} label="QR code of the verification URL" />
          </div>
        </>
      )}
    </Dialog>
  );
}

export function RegisterTokenDialog({ onClose }: { onClose: () => void }) {
  const register = useRegisterToken();
  const [chipId, setChipId] = useState('');
  const [kind, setKind] = useState<Kind>('sun');
  const [uid, setUid] = useState('');
  const [key, setKey] = useState('');

  const dialogForm = useTokenForm(register, {
    check: () => {
      if (!chipId.trim()) return TOKEN_MSG.chipRequired;
      if (kind === 'static') return null;
      if (uid.trim().length !== 14 || !HEX.test(uid.trim())) return TOKEN_MSG.uidFormat;
      if (key.trim() && (key.trim().length !== 32 || !HEX.test(key.trim()))) return TOKEN_MSG.keyFormat;
      return null;
    },
    variables: () => ({
      secureChipId: chipId.trim(),
      ...(kind === 'sun' ? { sun: { uid: uid.trim(), fileReadKey: key.trim() || null } } : {}),
    }),
    failure: (error) => errorMessage(error, TOKEN_MSG.registerFailed),
  });

  if (register.data) return <Registered result={register.data} onClose={onClose} />;

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
      <Field id="token-kind" label="Kind">
        <select id="token-kind" value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
          <option value="sun">SUN tag (NTAG 424 DNA, replay-proof)</option>
          <option value="static">Static link (not replay-proof)</option>
        </select>
      </Field>
      {kind === 'sun' ? (
        <>
          <Field
            id="sun-uid"
            label="Tag UID"
            hint="The tag's 7-byte UID: 14 hexadecimal characters."
            required
            value={uid}
            onValue={setUid}
            autoComplete="off"
            spellCheck={false}
          />
          <Field
            id="sun-key"
            label="SDM file-read key (optional)"
            hint="32 hexadecimal characters, when the tag was personalised elsewhere. Leave empty to generate one."
            value={key}
            onValue={setKey}
            autoComplete="off"
            spellCheck={false}
          />
        </>
      ) : null}
    </FormDialog>
  );
}
