"""File-storage backends behind one small async interface (local disk and S3)."""
