"""Full-text search of the files a person may read (issue 32): text extracted from each file's
current content (search_texts), indexed per database dialect, queried in the caller's scope."""
