/** The inbox's table: each item's picture and name, source, when it came, pages, status and
 * suggestion, and (for a new item) its actions, each button named with the item it acts on. */
import { RowButton } from '../../../components/RowButton';
import { ActionsCell, Table } from '../../../components/Table';
import type { IntakeItem } from '../../../lib/api/types';
import { isPdf } from '../../../lib/files';
import { formatDateTime, formatFileSize } from '../../../lib/format';
import { INTAKE_MSG } from '../messages';
import { ItemSource, ItemStatus, ItemThumb, SuggestionSummary } from './ItemCells';

export type ItemAction = 'open' | 'details' | 'file' | 'split' | 'rotate' | 'delete';

const COLUMNS = ['Document', 'Source', 'Received', 'Pages', 'Status', 'Suggestion'] as const;

export function IntakeTable({ items, onAction }: { items: IntakeItem[]; onAction: (action: ItemAction, item: IntakeItem) => void }) {
  return (
    <Table caption={INTAKE_MSG.tableCaption} columns={COLUMNS} actions stack>
      {items.map((item) => (
        <ItemRow key={item.id} item={item} onAction={onAction} />
      ))}
    </Table>
  );
}

function ItemRow({ item, onAction }: { item: IntakeItem; onAction: (action: ItemAction, item: IntakeItem) => void }) {
  const act = (action: ItemAction) => () => onAction(action, item);
  const name = item.fileName;
  const pdf = isPdf(item.contentType);
  const isNew = item.status === 'new';
  return (
    <tr>
      <td data-label="Document">
        <div className="intake-document">
          <ItemThumb item={item} />
          <div>
            <div>{name}</div>
            <div className="muted small">{formatFileSize(item.size)}</div>
          </div>
        </div>
      </td>
      <td data-label="Source">
        <ItemSource item={item} />
      </td>
      <td data-label="Received">{formatDateTime(item.receivedAt)}</td>
      <td data-label="Pages">{item.pages ?? '—'}</td>
      <td data-label="Status">
        <ItemStatus item={item} />
      </td>
      <td data-label="Suggestion">
        <SuggestionSummary item={item} />
      </td>
      <ActionsCell>
        <RowButton label={`${INTAKE_MSG.details} of ${name}`} onClick={act('details')}>
          {INTAKE_MSG.details}
        </RowButton>
        {/* A filed item is read in its folder only (the server answers 410); a deleted one is gone. */}
        {isNew ? (
          <>
            <RowButton label={`${INTAKE_MSG.open} ${name}`} onClick={act('open')}>
              {INTAKE_MSG.open}
            </RowButton>
            <RowButton kind="primary" label={`${INTAKE_MSG.file}: ${name}`} onClick={act('file')}>
              {INTAKE_MSG.file}
            </RowButton>
            {pdf && (item.pages ?? 2) > 1 ? (
              <RowButton label={`${INTAKE_MSG.split} ${name}`} onClick={act('split')}>
                {INTAKE_MSG.split}
              </RowButton>
            ) : null}
            {pdf ? (
              <RowButton label={`${INTAKE_MSG.rotate} ${name}`} onClick={act('rotate')}>
                {INTAKE_MSG.rotate}
              </RowButton>
            ) : null}
            <RowButton kind="danger" label={`${INTAKE_MSG.delete} ${name}`} onClick={act('delete')}>
              {INTAKE_MSG.delete}
            </RowButton>
          </>
        ) : null}
      </ActionsCell>
    </tr>
  );
}
