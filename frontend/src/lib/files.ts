/** Pure rules about patient files: type badges, listed names, profile image checks (spec 3, 5, 9). */

/** The stored name of a folder's profile image. */
export const PROFILE_IMAGE_NAME = 'patient-profile.jpg';
/** Profile images must be smaller than this (10MB). */
export const PROFILE_IMAGE_MAX_BYTES = 10 * 1024 * 1024;
/** The general upload limit (spec section 9), until the folder listing gives the server's own
 * (maxUploadBytes, BFF_MAX_UPLOAD_MB): a larger file is refused before it is sent. */
export const UPLOAD_LIMIT_MB = 50;

/** The extension of a file name, lower-case, without the dot; 'none' when it has none. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return 'none';
  const ext = name.slice(dot + 1);
  return /\s/.test(ext) ? 'none' : ext.toLowerCase();
}

/**
 * The type badge of a file. In order:
 * 1. a profile image is IMAGE;
 * 2. a .txt file is TXT (converted RTFs included);
 * 3. the content type's subtype, upper-case, without parameters, an 'x-' prefix or a '+suffix'
 *    (application/pdf -> PDF, image/svg+xml -> SVG, application/x-zip -> ZIP);
 * 4. when the subtype says nothing useful (missing, octet-stream, or a long vendor 'vnd.' name),
 *    the file's extension, upper-case (report.docx -> DOCX);
 * 5. otherwise FILE.
 */
export function fileTypeBadge(file: { name: string; contentType?: string | null; isProfileImage?: boolean }): string {
  if (file.isProfileImage) return 'IMAGE';
  const ext = extensionOf(file.name);
  if (ext === 'txt') return 'TXT';
  const subtype = (file.contentType ?? '').split(';')[0]!.split('/')[1]?.trim().toLowerCase() ?? '';
  const cleaned = subtype.replace(/^x-/, '').split('+')[0] ?? '';
  if (cleaned && cleaned !== 'octet-stream' && !cleaned.startsWith('vnd.')) return cleaned.toUpperCase();
  return ext !== 'none' ? ext.toUpperCase() : 'FILE';
}

/** Whether a content type is a PDF's (its parameters aside). */
export const isPdf = (contentType: string): boolean => contentType.split(';')[0]!.trim().toLowerCase() === 'application/pdf';

/** The name a file is listed under once uploaded: spelt in NFC, as the server keeps every name
 * (a name macOS gives decomposed is the same file), and an RTF becomes {base}.txt (spec section 1). */
export function listedNameFor(fileName: string): string {
  const name = fileName.trim().normalize('NFC');
  if (extensionOf(name) !== 'rtf') return name;
  return `${name.slice(0, name.lastIndexOf('.'))}.txt`;
}

const PROFILE_TYPES = new Set(['image/jpeg', 'image/jpg', 'image/png', 'image/gif', 'image/bmp', 'image/webp']);
const PROFILE_EXTENSIONS = new Set(['jpeg', 'jpg', 'png', 'gif', 'bmp', 'webp']);

export const PROFILE_MSG = {
  invalidType: 'Please select a valid image file (JPEG, PNG, GIF, BMP, WebP)',
  tooLarge: 'Profile image must be less than 10MB',
  missing: 'Please select a profile image',
} as const;

/**
 * Why a file cannot be a profile image, or null. The type is judged by the browser's MIME type,
 * or by the extension when the browser reports none.
 */
export function profileImageProblem(file: { name: string; type: string; size: number } | null): string | null {
  if (!file) return PROFILE_MSG.missing;
  const type = file.type.toLowerCase();
  const typeOk = type ? PROFILE_TYPES.has(type) : PROFILE_EXTENSIONS.has(extensionOf(file.name));
  if (!typeOk) return PROFILE_MSG.invalidType;
  if (file.size >= PROFILE_IMAGE_MAX_BYTES) return PROFILE_MSG.tooLarge;
  return null;
}
