"""Full-text search: the index built from the outbox stream, and queries on it.

The interface the narrow module uses (the `search` operator), in `search/query.py` (the
reads) and `search/text.py` (the rest); this file imports neither, so that the fan-out,
which only writes the index, does not load the queries:

- `parse_search_query(text) -> SearchQuery`: words AND-ed, "quoted phrases" in order;
  folding, stemming and CJK bigrams as in `search/text.py`. `query.is_empty`: nothing
  searchable in it (it matches no message).
- `search_messages(realm_id, query, *, before_id=None, after_id=None, newest_first=True,
  stream_id=None, batch=50) -> Iterator[Message]`: the realm's messages that match,
  lazily, newest first (ids < before_id) or oldest first (ids > after_id); each is the
  stored message (read consistently, verified against the query: exact even while the
  index lags an edit, a move or a deletion). Access is NOT applied: the caller filters.
  `stream_id` restricts to one channel cheaply (the channel is a term of the index).
- `matching_message_ids(realm_id, query, *, limit, ...) -> list[int]`: the same, ids only.
- `matches(query, content, topic) -> bool`: the check itself, for a message already read
  (e.g. an event queue's narrow deciding whether a new message belongs).
- `highlight(query, rendered_content, topic) -> (match_content, match_subject)`: the
  reference's markup, `<span class="highlight">` around matched words, topic HTML-escaped.

Writing: `search/indexing.py` (a fan-out step for message, update_message and
delete_message records; `index_messages` for the admin's backfill).
"""
