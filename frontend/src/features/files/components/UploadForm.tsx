/**
 * Upload Medical Files: pick or drop several files; each gets a row with its own progress and
 * result. A file over the limit is refused before it is sent (the server checks too); replacing
 * a listed name asks first, once per name; at most UPLOADS_AT_ONCE are sent at a time. When the
 * batch ends the page's banner (a live region) says how it went and focus returns to the picker.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ConfirmDialog } from '../../../components/Dialog';
import { DropForm } from '../../../components/DropForm';
import { ApiError } from '../../../lib/api/client';
import { formatFileSize } from '../../../lib/format';
import { assignmentKeys, fileKeys } from '../../../lib/queryKeys';
import { uploadFile } from '../api/upload-file';
import { FILE_MSG, uploadErrorMessage, uploadSuccessMessage } from '../messages';
import { addFiles, BATCH_MSG, planBatch, runBounded, UPLOADS_AT_ONCE, type RowStatus, type UploadRow } from '../uploadBatch';

export type Report = (kind: 'success' | 'error', message: string) => void;

interface UploadFormProps {
  container: string;
  folder: string;
  /** Names listed in the folder now, to ask before replacing one. */
  existingNames: ReadonlySet<string>;
  /** The server's upload limit in bytes (the folder listing says it). */
  maxBytes: number;
  onReport: Report;
}

const STATUS_LABEL: Record<RowStatus, string> = {
  waiting: 'Waiting',
  uploading: 'Uploading',
  done: 'Uploaded',
  error: 'Not uploaded',
  skipped: 'Not uploaded',
};

interface Question {
  listedName: string;
  answer: (replace: boolean) => void;
}

export function UploadForm({ container, folder, existingNames, maxBytes, onReport }: UploadFormProps) {
  const queryClient = useQueryClient();
  const [selection, setSelection] = useState<File[]>([]);
  const [rows, setRows] = useState<UploadRow[]>([]);
  const [running, setRunning] = useState(false);
  const [question, setQuestion] = useState<Question | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const questions = useRef<Promise<unknown>>(Promise.resolve());
  const refocus = useRef(false);
  const limitMb = Math.floor(maxBytes / (1024 * 1024));

  // Focus goes back to the picker once it is enabled again (never left on <body>).
  useEffect(() => {
    if (!running && refocus.current) {
      refocus.current = false;
      input.current?.focus();
    }
  }, [running]);

  /** One question on screen at a time: the others wait for it. */
  const ask = (listedName: string): Promise<boolean> => {
    const asked = questions.current.then(() => new Promise<boolean>((answer) => setQuestion({ listedName, answer })));
    questions.current = asked;
    return asked;
  };

  const start = async () => {
    const plan = planBatch(selection, maxBytes);
    setSelection([]);
    if (input.current) input.current.value = '';
    setRows(plan);
    setRunning(true);
    const outcome = new Map(plan.map((row) => [row.id, row]));
    const update = (id: number, patch: Partial<UploadRow>) => {
      outcome.set(id, { ...outcome.get(id)!, ...patch });
      setRows((current) => current.map((row) => (row.id === id ? { ...row, ...patch } : row)));
    };
    // Once per name: a second file (or a 409) for a name already answered is not asked again.
    const decisions = new Map<string, Promise<boolean>>();
    const decide = (name: string) => {
      if (!decisions.has(name)) decisions.set(name, ask(name));
      return decisions.get(name)!;
    };

    const send = async (row: UploadRow) => {
      let overwrite = false;
      if (existingNames.has(row.listedName)) {
        overwrite = await decide(row.listedName);
        if (!overwrite) return update(row.id, { status: 'skipped', message: BATCH_MSG.kept });
      }
      for (;;) {
        update(row.id, { status: 'uploading', progress: 0, message: '0%' });
        try {
          const result = await uploadFile(container, folder, { file: row.file, overwrite }, (percent) =>
            update(row.id, { progress: percent, message: `${percent}%` }),
          );
          return update(row.id, { status: 'done', progress: 100, message: uploadSuccessMessage(result) });
        } catch (error) {
          if (!overwrite && error instanceof ApiError && error.status === 409 && (await decide(row.listedName))) {
            overwrite = true;
            continue;
          }
          const kept = error instanceof ApiError && error.status === 409;
          return update(row.id, { status: kept ? 'skipped' : 'error', message: kept ? BATCH_MSG.kept : uploadErrorMessage(error) });
        }
      }
    };

    await runBounded(
      plan.filter((row) => row.status === 'waiting'),
      UPLOADS_AT_ONCE,
      send,
    );
    const results = plan.map((row) => outcome.get(row.id)!);
    const uploaded = results.filter((row) => row.status === 'done').length;
    const failed = results.some((row) => row.status === 'error');
    if (results.length === 1) {
      // One file: the banner says it all, as before.
      const only = results[0]!;
      if (only.status !== 'skipped') onReport(only.status === 'done' ? 'success' : 'error', only.message);
      setRows([]);
    } else {
      onReport(failed ? 'error' : 'success', BATCH_MSG.summary(uploaded, results.length));
    }
    refocus.current = true;
    setRunning(false);
    void queryClient.invalidateQueries({ queryKey: fileKeys.folder(container, folder) });
    void queryClient.invalidateQueries({ queryKey: assignmentKeys.myStats() });
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (running) return;
    if (selection.length === 0) {
      onReport('error', FILE_MSG.noFile);
      return;
    }
    void start();
  };

  // A drop while files are uploading is kept for the next Upload, never lost (DropForm).

  const count = selection.length;
  return (
    <section className="panel" aria-labelledby="upload-heading">
      <h2 id="upload-heading">Upload Medical Files</h2>
      <DropForm onSubmit={submit} onFiles={(files) => setSelection((current) => addFiles(current, files))} busy={running}>
        <div className="field">
          <label htmlFor="upload-file">Choose files</label>
          <input
            id="upload-file"
            ref={input}
            type="file"
            multiple
            disabled={running}
            onChange={(e) => {
              const chosen = Array.from(e.target.files ?? []);
              setSelection((current) => addFiles(current, chosen));
            }}
            aria-describedby="upload-hint"
          />
          <span id="upload-hint" className="hint">
            Or drag and drop files onto this form. Maximum file size: {limitMb}MB. RTF files are converted to TXT.
          </span>
        </div>
        {count > 0 ? (
          <div className="small">
            <p className="upload-selected">
              Selected:{' '}
              {selection.map((file, index) => (
                <span key={`${file.name}\u0000${file.size}\u0000${file.lastModified}`}>
                  {index > 0 ? ', ' : ''}
                  <strong>{file.name}</strong> ({formatFileSize(file.size)})
                </span>
              ))}
            </p>
          </div>
        ) : null}
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" disabled={count === 0 || running}>
            {running ? 'Uploading…' : count > 1 ? `Upload ${count} files` : 'Upload'}
          </button>
          {count > 0 && !running ? (
            <button
              type="button"
              className="btn"
              onClick={() => {
                setSelection([]);
                if (input.current) input.current.value = '';
              }}
            >
              Clear selection
            </button>
          ) : null}
        </div>
        {rows.length > 0 ? (
          <ul className="upload-rows" aria-label="Uploads">
            {rows.map((row) => (
              <li key={row.id} className={`upload-row upload-row-${row.status}`}>
                <strong>{row.file.name}</strong>
                <span className="small">{STATUS_LABEL[row.status]}</span>
                {row.status === 'uploading' ? (
                  <progress max={100} value={row.progress} aria-label={`Upload progress of ${row.file.name}`} />
                ) : null}
                {row.status !== 'waiting' ? <span className="upload-row-message small">{row.message}</span> : null}
              </li>
            ))}
          </ul>
        ) : null}
      </DropForm>
      {question ? (
        <ConfirmDialog
          title="Replace file?"
          confirmLabel="Replace"
          onCancel={() => {
            setQuestion(null);
            question.answer(false);
          }}
          onConfirm={() => {
            setQuestion(null);
            question.answer(true);
          }}
        >
          <p>
            A file named <strong>{question.listedName}</strong> already exists in this folder. Do you want to replace it?
          </p>
          <p>{FILE_MSG.keptAsVersion}</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
