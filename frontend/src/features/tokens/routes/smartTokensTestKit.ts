/** What the SmartToken page's tests share (SmartTokensPage*.test.tsx): its path and lists, tokens
 * in each state, the lists' routes, and the Assigned tab opened. */
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { SmartToken } from '../../../lib/api/types';
import { mockApi, type FakeResponse, type Handler } from '../../../test/utils';

export const PAGE = '/admin/smart-tokens';
export const UNCLAIMED = 'GET /patients/admin/unclaimed';
export const ASSIGNED = 'GET /patients/admin/assigned';

export function token(overrides: Partial<SmartToken> & { smartTokenId: string }): SmartToken {
  return {
    secureChipId: `chip-${overrides.smartTokenId.slice(0, 4)}`,
    createdAt: '2026-01-05T09:00:00Z',
    status: 'unclaimed',
    patientName: null,
    patientDateOfBirth: null,
    containerName: null,
    folderName: null,
    assignedAt: null,
    revokeReason: null,
    kind: 'static',
    sunUid: null,
    lastTapCounter: null,
    lastTapAt: null,
    ...overrides,
  };
}

export const FRESH = token({ smartTokenId: 'AAAAAAAA11111111BBBBBBBB22222222', secureChipId: 'chip-fresh' });
export const SHORT = token({ smartTokenId: 'SHORT-ID-15CHAR' });
export const ACTIVE = token({
  smartTokenId: 'CCCCCCCC33333333DDDDDDDD44444444',
  status: 'assigned',
  patientName: 'Jane Roe',
  patientDateOfBirth: '1980-02-03',
  containerName: 'ward-a',
  folderName: 'patient-1',
  assignedAt: '2026-01-06T10:00:00Z',
  kind: 'sun',
  sunUid: '04DE5F1EACC040',
  lastTapCounter: 61,
  lastTapAt: '2026-01-07T08:30:00Z',
});
export const REVOKED = token({
  smartTokenId: 'EEEEEEEE55555555FFFFFFFF66666666',
  status: 'revoked',
  patientName: 'John Doe',
  containerName: 'ward-a',
  folderName: 'patient-2',
  assignedAt: '2026-01-06T10:00:00Z',
  revokeReason: 'Token lost by patient',
});

export function tokensApi(extra: Record<string, Handler | FakeResponse> = {}) {
  return mockApi({
    [UNCLAIMED]: { body: { tokens: [FRESH, SHORT] } },
    [ASSIGNED]: { body: { tokens: [ACTIVE, REVOKED] } },
    'GET /api/assignments/containers': { body: { containers: ['ward-a', 'ward-b'], total: 2, page: 1, pageSize: null } },
    'GET /api/assignments/containers/ward-a/folders': {
      body: { folders: ['patient-1', 'patient-2', 'patient-3'], total: 3, page: 1, pageSize: null },
    },
    'GET /patients/admin/assigned-folders/ward-a': {
      body: {
        assignedFolders: {
          'patient-1': { tokenId: ACTIVE.smartTokenId, patientName: 'Jane Roe', status: 'assigned' },
        },
      },
    },
    ...extra,
  });
}

export async function openAssigned() {
  await userEvent.click(await screen.findByRole('tab', { name: 'Assigned Tokens (2)' }));
}

/** The page's modules, imported before a file's tests (beforeAll): a file's first test would
 * otherwise wait on their cold import, on a busy machine longer than findBy's timeout. */
export const loadScreen = () => import('./SmartTokensPage');
