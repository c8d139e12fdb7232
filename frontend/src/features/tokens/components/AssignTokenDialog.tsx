/** Assign a token to a patient: container, folder (linked ones marked), patient name and optional date of birth. */
import { useState, type FormEvent } from 'react';
import { FormDialog } from '../../../components/FormDialog';
import { useNotify } from '../../../components/Notifications';
import { ApiError } from '../../../lib/api/client';
import type { SmartToken } from '../../../lib/api/types';
import { assignErrorText, assignFormComplete, assignPayload, shortTokenId, type AssignForm } from '../../../lib/smartTokens';
import { useContainers, useFolders } from '../../../lib/storageLists';
import { useAssignToken } from '../api/assign-token';
import { useAssignedFolders } from '../api/get-assigned-folders';
import { TOKEN_MSG } from '../messages';

const EMPTY: AssignForm = { containerName: '', folderName: '', patientName: '', patientDateOfBirth: '' };

export function AssignTokenDialog({ token, onClose }: { token: SmartToken; onClose: () => void }) {
  const [form, setForm] = useState<AssignForm>(EMPTY);
  const [problem, setProblem] = useState<string | null>(null);
  const containers = useContainers();
  const folders = useFolders(form.containerName || null);
  const linked = useAssignedFolders(form.containerName || null);
  const assign = useAssignToken();
  const notify = useNotify();

  const links = linked.data?.assignedFolders ?? {};
  const chosenLink = form.folderName ? links[form.folderName] : undefined;
  const movesLink = chosenLink && chosenLink.tokenId !== token.smartTokenId ? chosenLink : undefined;

  const update = (patch: Partial<AssignForm>) => setForm((current) => ({ ...current, ...patch }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!assignFormComplete(form)) {
      setProblem(TOKEN_MSG.required);
      return;
    }
    setProblem(null);
    assign.mutate(assignPayload(token.smartTokenId, form), {
      onSuccess: (result) => {
        notify('success', result.message || (result.reassignment ? TOKEN_MSG.reassigned : TOKEN_MSG.assigned));
        onClose();
      },
    });
  };

  const serverError = assign.isError
    ? assignErrorText(assign.error instanceof ApiError ? assign.error.serverMessage : null)
    : null;
  const error = problem ?? serverError;
  const today = new Date().toISOString().slice(0, 10);

  return (
    <FormDialog
      title="Assign Token to Patient"
      onClose={onClose}
      onSubmit={submit}
      busy={assign.isPending}
      submitLabel="Assign Token"
      busyLabel="Assigning…"
      error={error}
      intro={
        <p>
          Token <code title={token.smartTokenId}>{shortTokenId(token.smartTokenId)}</code> (chip <code>{token.secureChipId}</code>)
        </p>
      }
    >
      <div className="field">
        <label htmlFor="assign-container">Container *</label>
        <select
          id="assign-container"
          value={form.containerName}
          onChange={(e) => update({ containerName: e.target.value, folderName: '' })}
          data-autofocus
        >
          <option value="">{containers.isPending ? 'Loading containers…' : 'Select a container'}</option>
          {(containers.data?.containers ?? []).map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        {containers.isError ? <span className="field-error">Failed to load containers</span> : null}
      </div>
      <div className="field">
        <label htmlFor="assign-folder">Patient folder *</label>
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
                {link ? `${name} — linked to ${shortTokenId(link.tokenId)} (${link.patientName ?? 'Unknown Patient'})` : name}
              </option>
            );
          })}
        </select>
        {form.containerName && folders.isError ? (
          <span className="field-error">{`Failed to load folders for ${form.containerName}`}</span>
        ) : null}
      </div>
      {movesLink ? (
        <p className="warning-text" role="status">
          This folder is already linked to token {shortTokenId(movesLink.tokenId)} ({movesLink.patientName ?? 'Unknown Patient'}).
          Assigning it here moves the link to this token: the old token will stop working for this patient.
        </p>
      ) : null}
      <div className="field">
        <label htmlFor="assign-patient-name">Patient name *</label>
        <input
          id="assign-patient-name"
          value={form.patientName}
          onChange={(e) => update({ patientName: e.target.value })}
          autoComplete="off"
        />
      </div>
      <div className="field">
        <label htmlFor="assign-dob">Date of birth (optional)</label>
        <input
          id="assign-dob"
          type="date"
          max={today}
          value={form.patientDateOfBirth}
          onChange={(e) => update({ patientDateOfBirth: e.target.value })}
        />
      </div>
    </FormDialog>
  );
}
