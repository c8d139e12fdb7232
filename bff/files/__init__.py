"""Patient files: the index, uploads (plain, RTF, profile image), listing, viewing, stats."""
