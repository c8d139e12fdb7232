/**
 * Assign a token to a patient: container and folder from the searchable pickers of the assign page
 * (linked folders marked; a folder brings its patient's name and date of birth as the folder
 * records them, or else the name on the token it is linked to), patient name and optional date of
 * birth.
 */
import { useState } from 'react';
import { ContainerPicker } from '../../../components/ContainerPicker';
import { Field } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { useNotify } from '../../../components/Notifications';
import { patientLine } from '../../../components/PatientIdentity';
import { Picker } from '../../../components/Picker';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { ApiError } from '../../../lib/api/client';
import type { SmartToken } from '../../../lib/api/types';
import { assignErrorText, assignFormComplete, assignPayload, shortTokenId, UNKNOWN_PATIENT, type AssignForm } from '../../../lib/smartTokens';
import { naturalSort } from '../../../lib/sort';
import { useContainers, useFolders } from '../../../lib/storageLists';
import { useAssignToken } from '../api/assign-token';
import { useAssignedFolders } from '../api/get-assigned-folders';
import { TOKEN_MSG } from '../messages';
import { useTokenForm } from '../useTokenForm';

const EMPTY: AssignForm = { containerName: '', folderName: '', patientName: '', patientDateOfBirth: '' };

export function AssignTokenDialog({ token, onClose }: { token: SmartToken; onClose: () => void }) {
  const [form, setForm] = useState<AssignForm>(EMPTY);
  const [folderSearch, setFolderSearch] = useState('');
  const containers = useContainers();
  const folders = useFolders(form.containerName || null);
  const linked = useAssignedFolders(form.containerName || null);
  const assign = useAssignToken();
  const notify = useNotify();

  const links = linked.data?.assignedFolders ?? {};
  const chosenLink = form.folderName ? links[form.folderName] : undefined;
  const movesLink = chosenLink && chosenLink.tokenId !== token.smartTokenId ? chosenLink : undefined;

  const update = (patch: Partial<AssignForm>) => setForm((current) => ({ ...current, ...patch }));
  const chooseContainer = (containerName: string) => {
    update({ containerName, folderName: '' });
    setFolderSearch('');
  };
  // A folder brings its patient (the folder's demographics, else the name on the token it is
  // linked to), unless the admin typed something else in that field.
  const [prefilled, setPrefilled] = useState({ patientName: '', patientDateOfBirth: '' });
  const chooseFolder = (folderName: string) => {
    const patient = folders.data?.patients?.[folderName];
    const known = {
      patientName: patient?.name ?? links[folderName]?.patientName ?? '',
      patientDateOfBirth: patient?.dateOfBirth ?? '',
    };
    const keep = (field: keyof typeof known) => form[field] !== '' && form[field] !== prefilled[field];
    update({
      folderName,
      ...(keep('patientName') ? {} : { patientName: known.patientName }),
      ...(keep('patientDateOfBirth') ? {} : { patientDateOfBirth: known.patientDateOfBirth }),
    });
    setPrefilled(known);
  };

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
      <ContainerPicker
        query={containers}
        name="assign-container"
        legend="Container *"
        empty="No containers found."
        value={form.containerName || null}
        onChoose={chooseContainer}
        autoFocus
      />
      {form.containerName ? (
        <QueryBoundary
          query={folders}
          messages={{
            loading: 'Loading folders…',
            loadFailed: `Failed to load folders for ${form.containerName}`,
            empty: 'No folders available in this container.',
          }}
          serverMessage={false}
          isEmpty={(data) => data.folders.length === 0}
        >
          {(data) => (
            <Picker
              name="assign-folder"
              legend="Patient folder *"
              searchLabel="Search folders"
              search={folderSearch}
              onSearch={setFolderSearch}
              options={naturalSort(data.folders)}
              value={form.folderName || null}
              onChoose={chooseFolder}
              noMatch="No folders match your search."
              badge={(name) => {
                const link = links[name];
                const patient = patientLine(data.patients?.[name]);
                if (!link) return patient ? <span className="badge badge-muted">{patient}</span> : null;
                return link ? (
                  <span className="badge badge-muted">
                    linked to {shortTokenId(link.tokenId)} ({link.patientName ?? UNKNOWN_PATIENT})
                  </span>
                ) : null;
              }}
            />
          )}
        </QueryBoundary>
      ) : (
        <p className="muted">Choose a container to see its folders.</p>
      )}
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
