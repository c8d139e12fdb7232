/** A form that takes files dropped on it too (the file input inside stays the keyboard's way):
 * highlighted while files are dragged over it, each drop handed on as a list. */
import { useState, type FormEvent, type ReactNode } from 'react';

interface DropFormProps {
  onSubmit: (event: FormEvent) => void;
  onFiles: (files: File[]) => void;
  busy: boolean;
  className?: string;
  children: ReactNode;
}

export function DropForm({ onSubmit, onFiles, busy, className = 'upload-form', children }: DropFormProps) {
  const [dragging, setDragging] = useState(false);
  return (
    <form
      className={`${className} dropzone${dragging ? ' dropzone-active' : ''}`}
      onSubmit={onSubmit}
      onDragOver={(event) => {
        event.preventDefault();
        if (!dragging) setDragging(true);
      }}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        onFiles(Array.from(event.dataTransfer.files));
      }}
      aria-busy={busy}
    >
      {children}
    </form>
  );
}
