/** The dialogs that change an item without filing it: split into page ranges, rotate pages,
 * delete with a reason (required, kept and audited). Each reports the server's message. */
import { useState } from 'react';
import { Field } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { errorMessage } from '../../../lib/api/client';
import type { IntakeItem } from '../../../lib/api/types';
import { useDialogForm } from '../../../lib/useDialogForm';
import { useDeleteItem } from '../api/delete-item';
import { useRotateItem } from '../api/rotate-item';
import { useSplitItem } from '../api/split-item';
import { INTAKE_MSG, ROTATIONS } from '../messages';
import { parsePageRanges } from '../pageRanges';

interface ItemDialogProps {
  item: IntakeItem;
  /** With the server's message when done, or null when cancelled. */
  onDone: (message: string | null) => void;
}

const Intro = ({ item }: { item: IntakeItem }) => (
  <p>
    <strong>{item.fileName}</strong>
    {item.pages !== null ? ` (${item.pages} ${item.pages === 1 ? 'page' : 'pages'})` : null}
  </p>
);

export function SplitDialog({ item, onDone }: ItemDialogProps) {
  const [typed, setTyped] = useState('');
  const split = useSplitItem(item.id);
  const form = useDialogForm(split, {
    check: () => parsePageRanges(typed, item.pages).error,
    variables: () => parsePageRanges(typed, item.pages).ranges ?? [],
    onSuccess: (result) => onDone(result.message),
    failure: (error) => errorMessage(error, INTAKE_MSG.splitFailed),
  });
  return (
    <FormDialog
      title={INTAKE_MSG.splitTitle}
      intro={<Intro item={item} />}
      submitLabel={INTAKE_MSG.splitConfirm}
      busyLabel={INTAKE_MSG.splitBusy}
      onClose={() => onDone(null)}
      {...form}
    >
      <Field
        id="intake-split-ranges"
        label={INTAKE_MSG.splitRanges}
        hint={INTAKE_MSG.splitHint}
        value={typed}
        onValue={setTyped}
        autoComplete="off"
        inputMode="text"
        data-autofocus
      />
    </FormDialog>
  );
}

export function RotateDialog({ item, onDone }: ItemDialogProps) {
  const [page, setPage] = useState('all');
  const [degrees, setDegrees] = useState<(typeof ROTATIONS)[number]['degrees']>(90);
  const rotate = useRotateItem(item.id);
  const form = useDialogForm(rotate, {
    check: () => null,
    variables: () => ({ degrees, ...(page === 'all' ? {} : { pages: [Number(page)] }) }),
    onSuccess: () => onDone(INTAKE_MSG.rotated),
    failure: (error) => errorMessage(error, INTAKE_MSG.rotateFailed),
  });
  const pages = Array.from({ length: item.pages ?? 0 }, (_, index) => index + 1);
  return (
    <FormDialog
      title={INTAKE_MSG.rotateTitle}
      intro={<Intro item={item} />}
      submitLabel={INTAKE_MSG.rotateConfirm}
      busyLabel={INTAKE_MSG.rotateBusy}
      onClose={() => onDone(null)}
      {...form}
    >
      <Field id="intake-rotate-page" label={INTAKE_MSG.rotatePage}>
        <select id="intake-rotate-page" value={page} onChange={(event) => setPage(event.target.value)} data-autofocus>
          <option value="all">{INTAKE_MSG.rotateAll}</option>
          {pages.map((n) => (
            <option key={n} value={String(n)}>
              Page {n}
            </option>
          ))}
        </select>
      </Field>
      <Field id="intake-rotate-degrees" label={INTAKE_MSG.rotateDegrees}>
        <select
          id="intake-rotate-degrees"
          value={degrees}
          onChange={(event) => setDegrees(Number(event.target.value) as (typeof ROTATIONS)[number]['degrees'])}
        >
          {ROTATIONS.map((rotation) => (
            <option key={rotation.degrees} value={rotation.degrees}>
              {rotation.label}
            </option>
          ))}
        </select>
      </Field>
    </FormDialog>
  );
}

export function DeleteItemDialog({ item, onDone }: ItemDialogProps) {
  const [reason, setReason] = useState('');
  const remove = useDeleteItem(item.id);
  const form = useDialogForm(remove, {
    check: () => (reason.trim() ? null : INTAKE_MSG.deleteReasonRequired),
    variables: () => reason.trim(),
    onSuccess: (result) => onDone(result.message),
    failure: (error) => errorMessage(error, INTAKE_MSG.deleteFailed),
  });
  return (
    <FormDialog
      title={INTAKE_MSG.deleteTitle}
      danger
      intro={<Intro item={item} />}
      submitLabel={INTAKE_MSG.deleteConfirm}
      busyLabel={INTAKE_MSG.deleteBusy}
      onClose={() => onDone(null)}
      {...form}
    >
      {/* One line: the server refuses line breaks and control characters in a reason. */}
      <Field
        id="intake-delete-reason"
        label={INTAKE_MSG.deleteReason}
        hint={INTAKE_MSG.deleteReasonHint}
        value={reason}
        onValue={setReason}
        maxLength={500}
        required
        autoComplete="off"
        data-autofocus
      />
    </FormDialog>
  );
}
