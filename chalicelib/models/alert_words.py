"""The alert words of a realm's users, kept where the fan-out reads them in one Query."""
from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute

from chalicelib.models.attributes import IntegerAttribute, list_of
from chalicelib.models.base import BaseModel, table_meta


class AlertWords(BaseModel):
    """A copy of `User.alert_words` for each user who has any, partitioned by realm.

    Written in the same transaction as the user's list; deleted when the list empties,
    so a realm's partition holds only the users the fan-out must check.
    """

    Meta = table_meta("alert_words")
    realm_id = IntegerAttribute(hash_key=True)
    user_id = IntegerAttribute(range_key=True)
    words = list_of(UnicodeAttribute)
