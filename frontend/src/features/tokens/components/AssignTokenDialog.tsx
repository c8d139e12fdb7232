/** Assign a token to a patient: container, folder (linked ones marked), patient name and optional date of birth. */
import { useState } from 'react';
import { Field, Options } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { useNotify } from '../../../components/Notifications';
import { ApiError } from '../../../lib/api/client';
import type { SmartToken } from '../../../lib/api/types';
import { assignErrorText, assignFormComplete, assignPayload, shortTokenId, UNKNOWN_PATIENT, type AssignForm } from '../../../lib/smartTokens';
import { useContainers, useFolders } from '../../../lib/storageLists';
import { useAssignToken } from '../api/assign-token';
import { useAssignedFolders } from '../api/get-assigned-folders';
import { TOKEN_MSG } from '../messages';
import { useTokenForm } from '../useTokenForm';

const EMPTY: AssignForm = { containerName: '', folderName: '', patientName: '', patientDateOfBirth: '' };

export function AssignTokenDialog({ token, onClose }: { token: SmartToken; onClose: () => void }) {
  const [form, setForm] = useState<AssignForm>(EMPTY);
  const containers = useContainers();
  const folders = useFolders(form.containerName || null);
  const linked = useAssignedFolders(form.containerName || null);
  const assign = useAssignToken();
  const notify = useNotify();

  const links = linked.data?.assignedFolders ?? {};
  const chosenLink = form.folderName ? links[form.folderName] : undefined;
  const movesLink = chosenLink && chosenLink.tokenId !== token.smartTokenId ? chosenLink : undefined;

  const update = (patch: Partial<AssignForm>) => setForm((current) => ({ ...current, ...patch }));

  const dialogForm = useTokenForm(assign, {
    check: () => (assignFormComplete(form) ? null : TOKEN_MSG.required),
    variables: () => assignPayload(token.smartTokenId, form),
    onSuccess: (result) => {
      notify('success', result.message || (result.reassignment ? TOKEN_MSG.reassigned : TOKEN_MSG.assigned));
      onClose();
    },
    failure: (error) => assignErrorText(error instanceof ApiError ? error.serverMessage : null),
  });
  const today = new Date().toISOString().slice(0, 10);

  return (
    <FormDialog
      title="Assign Token to Patient"
      submitLabel="Assign Token"
      busyLabel="Assigning…"
      onClose={onClose}
      {...dialogForm}
      intro={
        <p>
          Token <code title={token.smartTokenId}>{shortTokenId(token.smartTokenId)}</code> (chip <code>{token.secureChipId}</code>)
        </p>
      }
    >
      <Field id="assign-container" label="Container *">
        <select
          id="assign-container"
          value={form.containerName}
          onChange={(e) => update({ containerName: e.target.value, folderName: '' })}
          data-autofocus
        >
          <option value="">{containers.isPending ? 'Loading containers…' : 'Select a container'}</option>
          <Options values={containers.data?.containers ?? []} />
        </select>
        {containers.isError ? <span className="field-error">Failed to load containers</span> : null}
      </Field>
      <Field id="assign-folder" label="Patient folder *">
        <select
          id="assign-folder"
          value={form.folderName}
          onChange={(e) => update({ folderName: e.target.value })}
          disabled={!form.containerName}
        >
          <option value="">{form.containerName && folders.isPending ? 'Loading folders…' : 'Select a folder'}</option>
          {(folders.data?.folders ?? []).map((name) => {
            const link = links[name];
            return (
              <option key={name} value={name}>
                {link ? `${name} — linked to ${shortTokenId(link.tokenId)} (${link.patientName ?? UNKNOWN_PATIENT})` : name}
              </option>
            );
          })}
        </select>
        {form.containerName && folders.isError ? (
          <span className="field-error">{`Failed to load folders for ${form.containerName}`}</span>
        ) : null}
      </Field>
      {movesLink ? (
        <p className="warning-text" role="status">
          This folder is already linked to token {shortTokenId(movesLink.tokenId)} ({movesLink.patientName ?? UNKNOWN_PATIENT}).
          Assigning it here moves the link to this token: the old token will stop working for this patient.
        </p>
      ) : null}
      <Field
        id="assign-patient-name"
        label="Patient name *"
        value={form.patientName}
        onValue={(patientName) => update({ patientName })}
        autoComplete="off"
      />
      <Field
        id="assign-dob"
        label="Date of birth (optional)"
        type="date"
        max={today}
        value={form.patientDateOfBirth}
        onValue={(patientDateOfBirth) => update({ patientDateOfBirth })}
      />
    </FormDialog>
  );
}
