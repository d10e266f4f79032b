"""The full-text search index: posting lists per (realm, term) and each message's terms."""
from __future__ import annotations

from pynamodb.attributes import UnicodeAttribute, UnicodeSetAttribute

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


def posting_key(realm_id: int, term: str) -> str:
    """A posting list's partition: the realm first, so realms never share one."""
    return f"{realm_id}#{term}"


class SearchPosting(BaseModel):
    """One message containing one term; a Query on `term_key` reads newest first when
    ScanIndexForward is false, so a page of a rare term costs what its matches cost.
    Holds nothing but its keys: who may read the message is decided when searching."""

    Meta = table_meta("search_postings")
    term_key = UnicodeAttribute(hash_key=True)     # posting_key(realm_id, term)
    message_id = IntegerAttribute(range_key=True)


class SearchDoc(BaseModel):
    """The terms a message is indexed under, as of its `version`: what an edit, a move
    or a deletion removes from the posting lists."""

    Meta = table_meta("search_docs")
    realm_id = IntegerAttribute(hash_key=True)
    message_id = IntegerAttribute(range_key=True)
    terms = UnicodeSetAttribute(null=True)
    version = IntegerAttribute(default=0)
