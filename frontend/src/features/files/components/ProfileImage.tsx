/** Patient Profile Management: the current image and the dialog that adds or replaces it. */
import { useState, type FormEvent } from 'react';
import { FormDialog } from '../../../components/FormDialog';
import { errorMessage } from '../../../lib/api/client';
import { profileImageProblem } from '../../../lib/files';
import { useProfileImage } from '../api/get-profile-image';
import { useUploadFile } from '../api/upload-file';
import { FILE_MSG, profileSuccessMessage } from '../messages';
import { ObjectUrlImage } from '../../../components/ObjectUrlImage';
import type { Report } from './UploadForm';

interface ProfileProps {
  container: string;
  folder: string;
  /** The profile image's lastModified, or null when the folder has none. */
  version: string | null;
}

/** The current image (fetched with the session header), or a placeholder. */
export function ProfileImageView({ container, folder, version }: ProfileProps) {
  const query = useProfileImage(container, folder, version);
  if (version === null || query.data === null) {
    return <div className="profile-placeholder">No profile image</div>;
  }
  if (query.isPending) return <div className="profile-placeholder">Loading image…</div>;
  if (query.isError) return <div className="profile-placeholder">Image unavailable</div>;
  return <ObjectUrlImage blob={query.data} alt={`Profile image of patient ${folder}`} className="profile-image" />;
}

export function ProfileImageCard({ container, folder, version, onReport }: ProfileProps & { onReport: Report }) {
  const [open, setOpen] = useState(false);
  const has = version !== null;
  return (
    <section className="panel profile-card" aria-labelledby="profile-heading">
      <h2 id="profile-heading">Patient Profile Management</h2>
      <div className="profile-body">
        <ProfileImageView container={container} folder={folder} version={version} />
        <div>
          <p className="muted small">The profile image is shown during emergency access.</p>
          <button type="button" className="btn btn-primary" onClick={() => setOpen(true)}>
            {has ? 'Update Profile Image' : 'Add Profile Image'}
          </button>
        </div>
      </div>
      {open ? (
        <ProfileImageDialog container={container} folder={folder} replacing={has} onClose={() => setOpen(false)} onReport={onReport} />
      ) : null}
    </section>
  );
}

interface DialogProps {
  container: string;
  folder: string;
  replacing: boolean;
  onClose: () => void;
  onReport: Report;
}

export function ProfileImageDialog({ container, folder, replacing, onClose, onReport }: DialogProps) {
  const upload = useUploadFile(container, folder);
  const [file, setFile] = useState<File | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const busy = upload.isPending;

  const choose = (chosen: File | null) => {
    const issue = chosen ? profileImageProblem(chosen) : null;
    setProblem(issue);
    setFile(issue ? null : chosen);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const issue = profileImageProblem(file);
    if (issue || !file) {
      setProblem(issue);
      return;
    }
    setProblem(null);
    upload.mutate(
      { file, profileImage: true },
      {
        onSuccess: (result) => {
          onReport('success', profileSuccessMessage(result));
          onClose();
        },
        onError: (error) => setProblem(errorMessage(error, FILE_MSG.profileFailed)),
      },
    );
  };

  return (
    <FormDialog
      title={replacing ? 'Update Profile Image' : 'Add Profile Image'}
      submitLabel="Upload Profile Image"
      busyLabel="Processing…"
      onClose={onClose}
      onSubmit={submit}
      busy={busy}
      error={problem}
      intro={
        <>
          <ul className="guidelines small">
            <li>Use a clear, recent, front-facing photo of the patient.</li>
            <li>JPEG, PNG, GIF, BMP or WebP, less than 10MB.</li>
            <li>The image is resized to 150x150 pixels and saved as the folder's profile image.</li>
          </ul>
          {replacing ? (
            <p className="warning-text">This folder already has a profile image. Uploading a new one will replace it.</p>
          ) : null}
        </>
      }
    >
      <div className="field">
        <label htmlFor="profile-file">Profile image</label>
        <input
          id="profile-file"
          type="file"
          accept="image/jpeg,image/png,image/gif,image/bmp,image/webp"
          disabled={busy}
          onChange={(e) => choose(e.target.files?.[0] ?? null)}
          data-autofocus
        />
      </div>
      {file ? (
        <figure className="profile-preview">
          <ObjectUrlImage blob={file} alt="Preview of the selected image" className="profile-image" />
          <figcaption className="small muted">{file.name}</figcaption>
        </figure>
      ) : null}
    </FormDialog>
  );
}
