"""patients domain: each folder's patient demographics (name, date of birth, record number)."""
