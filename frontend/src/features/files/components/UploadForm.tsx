/** Upload Medical Files: pick or drop a file, confirm replacing a listed name, watch the progress. */
import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { ConfirmDialog } from '../../../components/Dialog';
import { ApiError } from '../../../lib/api/client';
import { listedNameFor, UPLOAD_LIMIT_MB } from '../../../lib/files';
import { formatFileSize } from '../../../lib/format';
import { useUploadFile } from '../api/upload-file';
import { FILE_MSG, uploadErrorMessage, uploadSuccessMessage } from '../messages';

export type Report = (kind: 'success' | 'error', message: string) => void;

interface UploadFormProps {
  container: string;
  folder: string;
  /** Names listed in the folder now, to ask before replacing one. */
  existingNames: ReadonlySet<string>;
  onReport: Report;
}

export function UploadForm({ container, folder, existingNames, onReport }: UploadFormProps) {
  const upload = useUploadFile(container, folder);
  const [file, setFile] = useState<File | null>(null);
  const [dragging, setDragging] = useState(false);
  const [replace, setReplace] = useState<{ file: File; listedName: string } | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const uploading = upload.isPending;

  const reset = () => {
    setFile(null);
    if (input.current) input.current.value = '';
  };

  const send = (chosen: File, overwrite: boolean) => {
    upload.mutate(
      { file: chosen, overwrite },
      {
        onSuccess: (result) => {
          onReport('success', uploadSuccessMessage(result));
          reset();
        },
        onError: (error) => {
          if (!overwrite && error instanceof ApiError && error.status === 409) {
            setReplace({ file: chosen, listedName: listedNameFor(chosen.name) });
          } else {
            onReport('error', uploadErrorMessage(error));
          }
        },
      },
    );
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (uploading) return;
    if (!file) {
      onReport('error', FILE_MSG.noFile);
      return;
    }
    const listedName = listedNameFor(file.name);
    if (existingNames.has(listedName)) {
      setReplace({ file, listedName });
      return;
    }
    send(file, false);
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (uploading) return;
    const dropped = event.dataTransfer.files[0];
    if (dropped) setFile(dropped);
  };

  return (
    <section className="panel" aria-labelledby="upload-heading">
      <h2 id="upload-heading">Upload Medical Files</h2>
      <form
        className={dragging ? 'upload-form dropzone dropzone-active' : 'upload-form dropzone'}
        onSubmit={submit}
        onDragOver={(e) => {
          e.preventDefault();
          if (!dragging) setDragging(true);
        }}
        onDragLeave={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={onDrop}
        aria-busy={uploading}
      >
        <div className="field">
          <label htmlFor="upload-file">Choose a file</label>
          <input
            id="upload-file"
            ref={input}
            type="file"
            disabled={uploading}
            onChange={(e) => setFile(e.target.files?.[0] ?? null)}
            aria-describedby="upload-hint"
          />
          <span id="upload-hint" className="hint">
            Or drag and drop a file onto this form. Maximum file size: {UPLOAD_LIMIT_MB}MB. RTF files are converted to TXT.
          </span>
        </div>
        {file ? (
          <p className="small" aria-live="polite">
            Selected: <strong>{file.name}</strong> ({formatFileSize(file.size)})
          </p>
        ) : null}
        {upload.progress !== null ? (
          <div className="progress">
            <progress max={100} value={upload.progress} aria-label="Upload progress" />
            <span className="small">{upload.progress}%</span>
          </div>
        ) : null}
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" disabled={!file || uploading}>
            {uploading ? 'Uploading…' : 'Upload'}
          </button>
        </div>
      </form>
      {replace ? (
        <ConfirmDialog
          title="Replace file?"
          confirmLabel="Replace"
          onCancel={() => setReplace(null)}
          onConfirm={() => {
            const chosen = replace.file;
            setReplace(null);
            send(chosen, true);
          }}
        >
          <p>
            A file named <strong>{replace.listedName}</strong> already exists in this folder. Do you want to replace it?
          </p>
          <p>{FILE_MSG.keptAsVersion}</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
