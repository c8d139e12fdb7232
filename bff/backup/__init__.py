"""Backup and restore of a whole deployment (database and storage): `python -m bff backup DIR`,
`python -m bff restore DIR [--force]`."""
