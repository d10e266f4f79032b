"""Finding upload links in message Markdown."""
from __future__ import annotations

from chalicelib.actions.messages.uploads import sanitize_filename, upload_path_ids

PATH = "7/0123456789abcdef01234567/plan.txt"


def test_relative_absolute_and_repeated_links():
    content = (f"[a](/user_uploads/{PATH}) and https://chat.example.com/user_uploads/{PATH}"
               " and [b](/user_uploads/7/0123456789abcdef01234568/b-c.pdf?x=1)")
    assert upload_path_ids(content) == {PATH, "7/0123456789abcdef01234568/b-c.pdf"}


def test_text_that_only_looks_like_a_link():
    assert upload_path_ids("/user_uploads/x/y/z and /user_uploads/7/short/a.txt") == set()


def test_sanitized_names():
    assert sanitize_filename("../../etc/passwd") == "passwd"
    assert sanitize_filename("Résumé 2026.pdf") == "Resume-2026.pdf"
    assert sanitize_filename("???") == "file"


def test_links_longer_than_any_stored_path_are_not_looked_up():
    # Names are sanitized to 100 characters and realm ids are numbers DynamoDB can hold:
    # anything longer cannot be an upload (and would make a key DynamoDB refuses).
    random = "0123456789abcdef01234567"
    longest = f"7/{random}/{'n' * 100}"
    assert upload_path_ids(f"[x](/user_uploads/{longest})") == {longest}
    assert upload_path_ids(f"[x](/user_uploads/7/{random}/{'n' * 101})") == set()
    assert upload_path_ids(f"/user_uploads/{'9' * 45}/{random}/a.txt") == set()
