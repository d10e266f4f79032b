"""Organization exports: one item per request, updated by the worker that writes it."""
from __future__ import annotations

from pynamodb.attributes import JSONAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class RealmExport(BaseModel):
    Meta = table_meta("realm_exports")
    realm_id = IntegerAttribute(hash_key=True)
    export_id = IntegerAttribute(range_key=True)    # allocate_id(realm_id, "export")
    acting_user_id = IntegerAttribute()
    export_type = IntegerAttribute()                # 1: public data, 2: with consenters'
    export_time = NumberAttribute()                 # UNIX seconds, fractional
    status = UnicodeAttribute(default="pending")    # pending, succeeded, failed, deleted
    s3_key = UnicodeAttribute(null=True)            # the export's object, once written
    size = IntegerAttribute(null=True)              # bytes of that object
    failed_timestamp = NumberAttribute(null=True)
    deleted_timestamp = NumberAttribute(null=True)
    # While it is written (actions/workflows/export_writer.py): the S3 multipart upload and
    # how far it got, so the next invocation goes on from there.
    upload_id = UnicodeAttribute(null=True)
    progress = JSONAttribute(null=True)
