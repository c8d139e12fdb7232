/**
 * index.html's static sign-in form (issue 52): painted with the page, before any script of the
 * app has loaded, for a visitor with no session on a page that ends at sign-in (src/shell.js
 * decides), and replaced by LoginPage's own form, the same markup, once the app has loaded.
 * What the visitor typed into it, and whether they were in the password field, carry over.
 */

export interface Shell {
  /** The static form's fields (still holding what was typed once the app has replaced them). */
  username: HTMLInputElement | null;
  password: HTMLInputElement | null;
  /** The visitor was in the password field when the app began to take the form over. */
  passwordFocused: boolean;
}

/** The static form as the app finds it while rendering its own (nothing once it is gone). */
export function findShell(): Shell {
  const shell = document.querySelector('.login-shell');
  const field = (name: string) => shell?.querySelector<HTMLInputElement>(`input[name="${name}"]`) ?? null;
  const password = field('password');
  return { username: field('username'), password, passwordFocused: password !== null && document.activeElement === password };
}
