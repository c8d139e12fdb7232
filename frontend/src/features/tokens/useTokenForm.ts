/** The token dialogs' form: the shared dialog form (lib/useDialogForm.ts). */
export { useDialogForm as useTokenForm } from '../../lib/useDialogForm';
