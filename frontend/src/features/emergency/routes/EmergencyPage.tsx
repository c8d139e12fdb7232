/**
 * /emergency: what a responder sees after scanning a SmartToken (public, outside the layout,
 * phone first). Read-only: the patient's photo, name, date of birth and record number (the
 * folder's, as staff see them on the folder page; else the name and date of birth the token was
 * given), files, and a live countdown
 * to the end of access. Every failure shows the same neutral page. The page asks every few
 * seconds whether its grant is still open, so an admin's remote disconnect ends it at once.
 */
import { useEffect, useState } from 'react';
import { Banner } from '../../../components/Banner';
import { ConfirmDialog } from '../../../components/Dialog';
import { Loading } from '../../../components/States';
import { ApiError, seg, serverUrl } from '../../../lib/api/client';
import type { EmergencyView } from '../../../lib/api/types';
import { formatCountdown, remainingMs } from '../../../lib/countdown';
import { fileTypeBadge } from '../../../lib/files';
import { formatDateOnly, formatDateTime, formatFileSize, formatTime } from '../../../lib/format';
import { VERIFY_MSG } from '../../../lib/smartTokens';
import { useEndEmergencySession } from '../api/end-emergency-session';
import { useEmergencySession } from '../api/get-emergency-session';
import { useEmergencyStatus } from '../api/get-emergency-status';
import { PublicCard } from '../components/PublicCard';

export const EMERGENCY_MSG = {
  loading: 'Loading emergency information…',
  neutral: VERIFY_MSG.neutral,
  expiredTitle: 'Emergency access has expired',
  endedTitle: 'Emergency access ended',
  ended: 'Access to this patient’s information has been closed on this device.',
  closedRemotely: 'Access to this patient’s information is no longer available on this device.',
  endConfirmTitle: 'End emergency access?',
  endConfirm: 'The patient’s information will close on this device. To see it again, scan the token again.',
  endFailed: 'Could not end access. Please try again.',
  noFiles: 'No files in this patient folder.',
  noDob: 'Not recorded',
} as const;

const folderPath = (v: EmergencyView) => `/api/blobs/${seg(v.containerName)}/${seg(v.folderName)}`;

export default function EmergencyPage() {
  const session = useEmergencySession();
  const end = useEndEmergencySession();
  const status = useEmergencyStatus(session.isSuccess && !end.isSuccess);
  const closed = status.error instanceof ApiError && status.error.status === 404;

  if (end.isSuccess || (end.error instanceof ApiError && end.error.status === 404)) {
    return (
      <PublicCard title={EMERGENCY_MSG.endedTitle}>
        <p>{EMERGENCY_MSG.ended}</p>
      </PublicCard>
    );
  }
  // Found gone after it ran out: that is the expiry the countdown shows, not an ending.
  if (closed && session.data && remainingMs(session.data.expiresAt, status.errorUpdatedAt) <= 0) return <ExpiredCard />;
  if (closed) {
    return (
      <PublicCard title={EMERGENCY_MSG.endedTitle} tone="error">
        <p>{EMERGENCY_MSG.closedRemotely}</p>
        <p>{VERIFY_MSG.nextStep}</p>
      </PublicCard>
    );
  }
  if (session.isPending) {
    return (
      <main className="public-page">
        <Loading label={EMERGENCY_MSG.loading} />
      </main>
    );
  }
  if (session.isError) {
    return (
      <PublicCard title={EMERGENCY_MSG.neutral} tone="error">
        <p>{VERIFY_MSG.nextStep}</p>
      </PublicCard>
    );
  }
  return (
    <EmergencyDetails
      view={session.data}
      onEnd={() => end.mutate()}
      ending={end.isPending}
      endError={end.isError ? EMERGENCY_MSG.endFailed : null}
    />
  );
}

/** Access ran out (the countdown reached zero, or the grant was found gone after it did). */
function ExpiredCard() {
  return (
    <PublicCard title={EMERGENCY_MSG.expiredTitle} tone="error">
      <p>{EMERGENCY_MSG.neutral}</p>
      <p>{VERIFY_MSG.nextStep}</p>
    </PublicCard>
  );
}

interface DetailsProps {
  view: EmergencyView;
  onEnd: () => void;
  ending: boolean;
  endError: string | null;
}

function EmergencyDetails({ view, onEnd, ending, endError }: DetailsProps) {
  const [now, setNow] = useState(() => Date.now());
  const left = remainingMs(view.expiresAt, now);
  const expired = left <= 0;
  const [photoFailed, setPhotoFailed] = useState(false);
  const [confirming, setConfirming] = useState(false);

  useEffect(() => {
    if (expired) return;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [expired]);

  if (expired) return <ExpiredCard />;

  const base = folderPath(view);
  const files = view.files;
  const name = view.patient?.name || view.patientName;
  const dateOfBirth = view.patient?.dateOfBirth ?? view.patientDateOfBirth;
  return (
    <main className="public-page emergency">
      <p className="emergency-strip">Emergency access · read only</p>
      <section className="emergency-patient" aria-labelledby="emergency-patient-name">
        {view.hasProfileImage && !photoFailed ? (
          <img
            className="emergency-photo"
            src={serverUrl(`${base}/profile-image`)}
            alt={`Photo of ${name}`}
            // The page's largest paint; the server's preload Link (bff/emergency/routes.py) starts it early.
            fetchPriority="high"
            onError={() => setPhotoFailed(true)}
          />
        ) : null}
        <h1 id="emergency-patient-name">{name}</h1>
        <dl className="details emergency-facts">
          <dt>Date of birth</dt>
          <dd>{dateOfBirth ? formatDateOnly(dateOfBirth) : EMERGENCY_MSG.noDob}</dd>
          {view.patient?.recordNumber ? (
            <>
              <dt>Record number</dt>
              <dd>{view.patient.recordNumber}</dd>
            </>
          ) : null}
          <dt>Access ends</dt>
          <dd>{formatTime(new Date(view.expiresAt))}</dd>
        </dl>
        <p className="emergency-countdown">
          Time remaining:{' '}
          <strong role="timer" aria-label="Time remaining">
            {formatCountdown(left)}
          </strong>
        </p>
      </section>

      <section className="emergency-files" aria-labelledby="emergency-files-title">
        <h2 id="emergency-files-title">Patient files</h2>
        {files.length === 0 ? (
          <p className="muted">{EMERGENCY_MSG.noFiles}</p>
        ) : (
          <ul className="file-list" aria-label="Patient files">
            {files.map((file) => (
              <li key={file.name} className="file-row">
                <div className="file-main">
                  <a
                    className="file-open"
                    href={serverUrl(`${base}/${seg(file.name)}/view`)}
                    target="_blank"
                    rel="noopener noreferrer"
                  >
                    {file.name}
                    <span className="visually-hidden"> (opens in a new tab)</span>
                  </a>
                  <div className="file-meta muted small">
                    <span className="badge badge-type">{fileTypeBadge(file)}</span>
                    <span>Modified {formatDateTime(file.lastModified)}</span>
                    <span>{formatFileSize(file.contentLength)}</span>
                  </div>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>

      <Banner kind="error">{endError}</Banner>
      <button
        type="button"
        className="btn btn-danger btn-block emergency-end"
        onClick={() => setConfirming(true)}
        disabled={ending}
      >
        {ending ? 'Ending access…' : 'End access'}
      </button>
      {confirming ? (
        <ConfirmDialog
          title={EMERGENCY_MSG.endConfirmTitle}
          confirmLabel="End access"
          busyLabel="Ending access…"
          danger
          busy={ending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            onEnd();
          }}
        >
          <p>{EMERGENCY_MSG.endConfirm}</p>
        </ConfirmDialog>
      ) : null}
    </main>
  );
}
