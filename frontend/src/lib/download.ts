/** Saving a Blob the app fetched (with its session header) as a file the browser downloads. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The download has its own copy once it started; release the object's memory soon after.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
