/** The Current Assignments panel: each assigned container with its assigned folders, each with Unassign. */
import type { UseQueryResult } from '@tanstack/react-query';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RowButton } from '../../../components/RowButton';
import type { UserAssignmentsResponse } from '../../../lib/api/types';
import { plural } from '../../../lib/format';
import { naturalSort } from '../../../lib/sort';
import { ASSIGN_MSG } from '../messages';
import type { UnassignTarget } from './UnassignDialog';

const STATES = {
  loading: 'Loading assignments…',
  loadFailed: ASSIGN_MSG.loadAssignmentsFailed,
  empty: ASSIGN_MSG.noAssignments,
};

interface CurrentAssignmentsProps {
  query: UseQueryResult<UserAssignmentsResponse>;
  onUnassign: (target: UnassignTarget) => void;
}

export function CurrentAssignments({ query, onUnassign }: CurrentAssignmentsProps) {
  return (
    <section className="panel" aria-labelledby="current-assignments">
      <h2 id="current-assignments">Current Assignments</h2>
      <QueryBoundary query={query} messages={STATES} isEmpty={(data) => data.containerAssignments.length === 0}>
        {(data) => (
          <ul className="assignment-tree">
            {naturalSort(data.containerAssignments, (a) => a.containerName).map((c) => {
              const folders = naturalSort(
                data.folderAssignments.filter((f) => f.containerName === c.containerName),
                (f) => f.folderName,
              );
              return (
                <li key={c.id}>
                  <div className="assignment-row">
                    <strong>{c.containerName}</strong>
                    <span className="muted">{plural(folders.length, 'folder')}</span>
                    <RowButton
                      kind="danger"
                      label={`Unassign container ${c.containerName}`}
                      onClick={() => onUnassign({ type: 'container', assignment: c, folderCount: folders.length })}
                    >
                      Unassign
                    </RowButton>
                  </div>
                  {folders.length > 0 ? (
                    <ul>
                      {folders.map((f) => (
                        <li key={f.id} className="assignment-row">
                          <span>{f.folderName}</span>
                          <RowButton
                            kind="danger"
                            label={`Unassign folder ${f.folderName}`}
                            onClick={() => onUnassign({ type: 'folder', assignment: f })}
                          >
                            Unassign
                          </RowButton>
                        </li>
                      ))}
                    </ul>
                  ) : null}
                </li>
              );
            })}
          </ul>
        )}
      </QueryBoundary>
    </section>
  );
}
