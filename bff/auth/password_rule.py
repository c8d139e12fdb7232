"""The one rule every new password follows (NIST SP 800-63B 3.1.1.2, ASVS 2.1): registration,
editing, resets from the command line and the bootstrap admin all ask `password_problem`.

- At least BFF_PASSWORD_MIN_LENGTH characters (default 12), at most MAX_LENGTH (1024: a bound
  on the work a request can cause, far beyond any passphrase). No composition rules.
- Any Unicode, normalised to NFKC (`normalized`) before it is counted, checked or hashed, so a
  password typed on another keyboard or pasted from another program is the same password.
- Refused when easy to guess: zxcvbn 4.5 (MIT; its shipped lists: 30,000 passwords most common
  in leaks, English words, names, film and TV words) estimates fewer than MIN_GUESSES guesses
  for it, which catches common and leaked passwords, dictionary words with digits, keyboard
  patterns, sequences (`123456789012`), repeats (twelve spaces), and the person's own name or
  username.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterable

from bff.auth.passwords import hash_password, normalized
from bff.errors import ApiError

MAX_LENGTH = 1024
# zxcvbn's estimate below which a password is refused: its "score 3" boundary, "safely
# unguessable" for an online attack, which the sign-in throttle limits besides.
MIN_GUESSES = 10**8
# zxcvbn's time grows with the square of the length (0.5 s at 70 characters here): it looks at
# the first ANALYSED characters; a longer password is at least as strong as that part.
ANALYSED = 64
CONTEXT_WORDS = ("patient", "records", "portal", "hospital", "clinic")
ADVICE = "Choose another, for example three or four unrelated words."


def password_problem(password: str, min_length: int, context: Iterable[str] = ()) -> str | None:
    """Why password cannot be set (a sentence saying what to do), or None when it can.
    `context`: the person's username and name, which must not make up the password. Blocks for
    up to a few tens of milliseconds (zxcvbn): call it in a thread from async code."""
    if len(password) > MAX_LENGTH or len(form := normalized(password)) > MAX_LENGTH:
        return f"The password is too long: use at most {MAX_LENGTH} characters."
    if len(form) < min_length:
        return (
            f"The password is too short: use at least {min_length} characters. "
            "A few unrelated words make a long password that is easy to remember."
        )
    from zxcvbn import zxcvbn  # its lists take most of a second to load: only when needed

    words = [w for w in context if w] + list(CONTEXT_WORDS)
    result = zxcvbn(form[:ANALYSED], user_inputs=words, max_length=ANALYSED)
    if float(result["guesses"]) >= MIN_GUESSES:
        return None
    warning = str(result["feedback"]["warning"] or "").strip()
    if warning:
        warning = ": " + warning[0].lower() + warning[1:].rstrip(".")
    return f"The password is too easy to guess{warning}. {ADVICE}"


async def hash_new_password(password: str, min_length: int, context: Iterable[str] = ()) -> str:
    """The hash to store for a new password, or ApiError 400 saying what to do instead."""
    problem = await asyncio.to_thread(password_problem, password, min_length, list(context))
    if problem:
        raise ApiError(400, problem)
    return await hash_password(password)


def generated_password(min_length: int) -> str:
    """A random password for a person to be given once (24 characters or more, and at least
    min_length): 144 bits, which the rule does not refuse."""
    return secrets.token_urlsafe(max(18, min_length))
