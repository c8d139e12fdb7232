/**
 * Upload to intake: choose or drop several scans; each is sent in turn with its own progress and
 * outcome (added, already in the intake, or refused with the server's reason: the malware scan,
 * the content checks). The inbox refreshes when the batch ends; the result is announced.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Banner } from '../../../components/Banner';
import { DropForm } from '../../../components/DropForm';
import { errorMessage } from '../../../lib/api/client';
import { formatFileSize } from '../../../lib/format';
import { intakeKeys } from '../../../lib/queryKeys';
import { uploadToIntake } from '../api/upload-items';
import { INTAKE_MSG } from '../messages';

interface Row {
  file: File;
  state: 'waiting' | 'uploading' | 'done' | 'error';
  progress: number;
  message: string;
}

const fileKey = (file: File) => `${file.name}\u0000${file.size}\u0000${file.lastModified}`;

export function IntakeUpload() {
  const queryClient = useQueryClient();
  const [selection, setSelection] = useState<File[]>([]);
  const [rows, setRows] = useState<Row[]>([]);
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<{ kind: 'success' | 'error'; message: string } | null>(null);
  const input = useRef<HTMLInputElement>(null);

  const add = (files: File[]) =>
    setSelection((current) => {
      const seen = new Set(current.map(fileKey));
      return [...current, ...files.filter((file) => !seen.has(fileKey(file)))];
    });

  const start = async () => {
    const files = selection;
    setSelection([]);
    if (input.current) input.current.value = '';
    setOutcome(null);
    setRunning(true);
    const update = (index: number, patch: Partial<Row>) =>
      setRows((current) => current.map((row, i) => (i === index ? { ...row, ...patch } : row)));
    setRows(files.map((file) => ({ file, state: 'waiting', progress: 0, message: 'Waiting' })));
    let added = 0;
    for (const [index, file] of files.entries()) {
      update(index, { state: 'uploading', message: '0%' });
      try {
        const result = await uploadToIntake(file, (percent) => update(index, { progress: percent, message: `${percent}%` }));
        const answer = result.items[0];
        if (answer?.refused) update(index, { state: 'error', message: answer.refused });
        else {
          added += 1;
          update(index, { state: 'done', progress: 100, message: answer?.duplicate ? INTAKE_MSG.duplicate : INTAKE_MSG.uploaded });
        }
      } catch (error) {
        update(index, { state: 'error', message: errorMessage(error, INTAKE_MSG.uploadFailed) });
      }
    }
    setOutcome({ kind: added === files.length ? 'success' : 'error', message: INTAKE_MSG.uploadSummary(added, files.length) });
    setRunning(false);
    input.current?.focus();
    void queryClient.invalidateQueries({ queryKey: intakeKeys.all });
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (running) return;
    if (selection.length === 0) {
      setOutcome({ kind: 'error', message: INTAKE_MSG.uploadNoFile });
      return;
    }
    void start();
  };

  return (
    <section className="panel" aria-labelledby="intake-upload-heading">
      <h2 id="intake-upload-heading">{INTAKE_MSG.uploadHeading}</h2>
      <div aria-live="polite">
        {outcome ? (
          <Banner kind={outcome.kind} onClose={() => setOutcome(null)}>
            {outcome.message}
          </Banner>
        ) : null}
      </div>
      <DropForm onSubmit={submit} onFiles={add} busy={running}>
        <div className="field">
          <label htmlFor="intake-upload-file">{INTAKE_MSG.uploadChoose}</label>
          <input
            id="intake-upload-file"
            ref={input}
            type="file"
            multiple
            disabled={running}
            onChange={(event) => add(Array.from(event.target.files ?? []))}
            aria-describedby="intake-upload-hint"
          />
          <span id="intake-upload-hint" className="hint">
            {INTAKE_MSG.uploadHint}
          </span>
        </div>
        {selection.length > 0 ? (
          <p className="upload-selected small">
            Selected: {selection.map((file) => `${file.name} (${formatFileSize(file.size)})`).join(', ')}
          </p>
        ) : null}
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" disabled={running}>
            {running ? 'Uploading…' : selection.length > 1 ? `Upload ${selection.length} files` : 'Upload'}
          </button>
        </div>
        {rows.length > 0 ? (
          <ul className="upload-rows" aria-label="Uploads to the intake">
            {rows.map((row, index) => (
              <li key={`${index}-${fileKey(row.file)}`} className={`upload-row upload-row-${row.state}`}>
                <strong>{row.file.name}</strong>
                {row.state === 'uploading' ? (
                  <progress max={100} value={row.progress} aria-label={`Upload progress of ${row.file.name}`} />
                ) : null}
                <span className="upload-row-message small">{row.message}</span>
              </li>
            ))}
          </ul>
        ) : null}
      </DropForm>
    </section>
  );
}
