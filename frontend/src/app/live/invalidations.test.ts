import { subscribePatientChanges, type PatientChange } from '../../lib/liveSignals';
import { LiveEvent } from '../../lib/server.gen';
import { CACHE_EVENTS, keysForEvent, signalEvent } from './invalidations';

const ME = 1;
const FOLDER_EVENT = { container: 'ward-a', folder: 'patient-1', name: 'x.txt' };

describe('keysForEvent', () => {
  it.each([LiveEvent.FILE_UPLOADED, LiveEvent.FILE_DELETED, LiveEvent.PROFILE_CHANGED])(
    '%s: the folder’s files and profile image, and my file stats',
    (event) => {
      expect(keysForEvent(event, FOLDER_EVENT, ME)).toEqual([
        ['files', 'ward-a', 'patient-1'],
        ['assignments', 'mine', 'stats'],
      ]);
    },
  );

  it('file:indexed: only the folder’s listing (a file became searchable or not; no counts changed)', () => {
    expect(keysForEvent(LiveEvent.FILE_INDEXED, { ...FOLDER_EVENT, state: 'ready' }, ME)).toEqual([['files', 'ward-a', 'patient-1', 'list']]);
    expect(keysForEvent(LiveEvent.FILE_INDEXED, { state: 'failed' }, ME)).toEqual([['files']]);
  });

  it('file:preview: only that folder’s listing (it now links to the thumbnail)', () => {
    expect(keysForEvent(LiveEvent.FILE_PREVIEW, FOLDER_EVENT, ME)).toEqual([['files', 'ward-a', 'patient-1', 'list']]);
    expect(keysForEvent(LiveEvent.FILE_PREVIEW, {}, ME)).toEqual([['files']]);
  });

  it('falls back to every folder when a folder event names none', () => {
    expect(keysForEvent(LiveEvent.FILE_UPLOADED, { container: 7 }, ME)).toEqual([['files'], ['assignments', 'mine', 'stats']]);
  });

  it('patient:changed: the folder’s patient banner, the folder lists (tiles, pickers) and my folders; never its files', () => {
    expect(keysForEvent(LiveEvent.PATIENT_CHANGED, { container: 'ward-a', folder: 'patient-1' }, ME)).toEqual([
      ['patients', 'ward-a', 'patient-1'],
      ['folders'],
      ['assignments', 'mine', 'stats'],
    ]);
    expect(keysForEvent(LiveEvent.PATIENT_CHANGED, {}, ME)[0]).toEqual(['patients']);
  });

  it('assignments:changed: my assignments and stats, that user’s assignments, the admin user views', () => {
    expect(keysForEvent(LiveEvent.ASSIGNMENTS_CHANGED, { userId: 3 }, ME)).toEqual([
      ['assignments', 'mine'],
      ['assignments', 'user', 3],
      ['users', 'list'],
      ['users', 'dashboard'],
    ]);
  });

  it('assignments:changed for me also refetches open folder and container pages (access may be gone)', () => {
    expect(keysForEvent(LiveEvent.ASSIGNMENTS_CHANGED, { userId: ME }, ME)).toContainEqual(['files']);
    expect(keysForEvent(LiveEvent.ASSIGNMENTS_CHANGED, { userId: ME }, ME)).toContainEqual(['folders']);
    expect(keysForEvent(LiveEvent.ASSIGNMENTS_CHANGED, { userId: ME }, ME)).toContainEqual(['patients']);
    expect(keysForEvent(LiveEvent.ASSIGNMENTS_CHANGED, { userId: 3 }, ME)).not.toContainEqual(['files']);
  });

  it('assignments:changed for me refetches the containers I may see (the intake inbox reads suggested patients by it)', () => {
    expect(keysForEvent(LiveEvent.ASSIGNMENTS_CHANGED, { userId: ME }, ME)).toContainEqual(['containers']);
    expect(keysForEvent(LiveEvent.ASSIGNMENTS_CHANGED, { userId: 3 }, ME)).not.toContainEqual(['containers']);
  });

  it('users:changed: every users list and the admin dashboard', () => {
    expect(keysForEvent(LiveEvent.USERS_CHANGED, { userId: 3 }, ME)).toEqual([['users']]);
  });

  it.each([
    LiveEvent.TOKEN_REGISTERED,
    LiveEvent.TOKEN_ASSIGNED,
    LiveEvent.TOKEN_REASSIGNED,
    LiveEvent.TOKEN_REVOKED,
    LiveEvent.TOKEN_REACTIVATED,
    LiveEvent.TOKEN_DELETED,
  ])('%s: the SmartToken lists and assigned-folder maps', (event) => {
    expect(keysForEvent(event, { tokenId: 'A' }, ME)).toEqual([['smart-tokens']]);
  });

  it('audit:created: every audit log page', () => {
    expect(keysForEvent(LiveEvent.AUDIT_CREATED, { id: 9, operation: 'login' }, ME)).toEqual([['audit-logs']]);
  });

  it('file:quarantined: the quarantine and the dashboard counts, and the folder it was found in', () => {
    expect(keysForEvent(LiveEvent.FILE_QUARANTINED, { id: 3, signature: 'Eicar-Test-Signature', container: 'ward-a', folder: 'p-1', name: 'x.txt' }, ME)).toEqual([
      ['scanning'],
      ['files', 'ward-a', 'p-1'],
      ['assignments', 'mine', 'stats'],
    ]);
  });

  it.each([LiveEvent.INTAKE_RECEIVED, LiveEvent.INTAKE_FILED, LiveEvent.INTAKE_DELETED, LiveEvent.INTAKE_CHANGED])(
    '%s: the intake inbox (issue 51; a turned item’s thumbnail link names its new content)',
    (event) => {
      expect(keysForEvent(event, { id: 4, container: 'ward-a', folder: 'patient-1', name: 'x.pdf' }, ME)).toEqual([['intake']]);
    },
  );

  it('live:resync: every query (events of other instances may have been lost)', () => {
    expect(keysForEvent(LiveEvent.LIVE_RESYNC, {}, ME)).toEqual([[]]);
  });

  it('lists every event but the alerts, the session end and the reconnect hint as cache events', () => {
    expect(CACHE_EVENTS).not.toContain(LiveEvent.EMERGENCY_OPENED);
    expect(CACHE_EVENTS).not.toContain(LiveEvent.EMERGENCY_REFUSED);
    expect(CACHE_EVENTS).not.toContain(LiveEvent.FILE_QUARANTINED);
    expect(CACHE_EVENTS).not.toContain(LiveEvent.SESSION_REVOKED);
    expect(CACHE_EVENTS).not.toContain(LiveEvent.LIVE_RECONNECT);
    expect(CACHE_EVENTS).toHaveLength(Object.keys(LiveEvent).length - 5);
    for (const event of CACHE_EVENTS) expect(keysForEvent(event, FOLDER_EVENT, ME).length).toBeGreaterThan(0);
  });
});

describe('signalEvent (issue 50)', () => {
  it('hands a patient:changed to the folder page’s notice: whose, by whom, when', () => {
    const heard: PatientChange[] = [];
    const stop = subscribePatientChanges((change) => heard.push(change));
    signalEvent(LiveEvent.PATIENT_CHANGED, { container: 'ward-a', folder: 'patient-1', by: 'Ada Admin', at: '2026-03-04T09:08:07Z' });
    signalEvent(LiveEvent.PATIENT_CHANGED, { container: 'ward-a', folder: 'patient-1' });
    signalEvent(LiveEvent.PATIENT_CHANGED, { container: 'ward-a' }); // names no folder: nothing to tell
    signalEvent(LiveEvent.FILE_UPLOADED, { container: 'ward-a', folder: 'patient-1' });
    stop();
    signalEvent(LiveEvent.PATIENT_CHANGED, { container: 'ward-a', folder: 'patient-1', by: 'Ada Admin' });
    expect(heard).toEqual([
      { container: 'ward-a', folder: 'patient-1', by: 'Ada Admin', at: '2026-03-04T09:08:07Z' },
      { container: 'ward-a', folder: 'patient-1', by: null, at: null },
    ]);
  });
});
