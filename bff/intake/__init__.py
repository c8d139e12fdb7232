"""The intake (issue 51): documents arriving from outside (a watched scan folder, an IMAP
mailbox, a batch uploaded on the Intake page) screened, routed by cover-sheet barcodes
(sheets.py, barcodes.py), split at separator sheets, matched to a patient only as a suggestion
(suggest.py) that a person confirms, and filed to the patient's folder."""
