"""A folder's audit entries of one kind, newest first, from an index (issue 50): the patient
banner reads its patient's last change (`patient_update`) on every folder page, which without it
walked the log's entries of the whole container, or of every folder's patient changes.
On PostgreSQL the index is built within the migration's transaction: new audit entries (most
requests write one) wait while it builds, so a large log is best migrated in a quiet hour."""

from tortoise import migrations
from tortoise.indexes import Index
from tortoise.migrations import operations as ops


class Migration(migrations.Migration):
    dependencies = [("bff", "0035_visit_since")]

    initial = False

    operations = [
        ops.AddIndex(
            model_name="AuditLog",
            index=Index(fields=["container_name", "folder_name", "operation", "id"]),
        )
    ]
