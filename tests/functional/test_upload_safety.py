"""What users upload is data, never code (issue 47): a file whose type is not on the
short inline list (HTML, SVG, XML, JavaScript, anything unknown) is served to its readers
as an attachment of no particular type, through the link's own response overrides; the
API's answer that hands out the link says `nosniff`."""
from __future__ import annotations

import pytest
import requests

from chalicelib.models.uploads import Attachment
from tests.functional.edit_helpers import channel, send

SCRIPT = b"<script>fetch('/api/v1/users/me').then(r => r.text()).then(alert)</script>"


def share(realm, name: str, declared: str, data: bytes = SCRIPT) -> str:
    """A member uploads a file declared as `declared` and links it in a channel both
    members read; the upload's path."""
    channel(realm.member, "files", [realm.member, realm.admin])
    uploaded = realm.member.upload([("file", name, data)], content_type=declared)
    assert uploaded.ok, uploaded.json
    send(realm.member, "files", "shared", f"[look]({uploaded.json['url']})")
    return str(uploaded.json["url"])


def open_as(account, url: str) -> requests.Response:
    """Opens the file as a client does: the API's short-lived link (the reference's
    get-file-temporary-url), then the storage's answer to it."""
    link = account.call("GET", url)
    assert link.status == 200, link.json
    assert link.headers["X-Content-Type-Options"] == "nosniff"
    return requests.get(link.json["url"], timeout=10)


@pytest.mark.parametrize("name, declared", [
    ("page.html", "text/html"),
    ("page.html", "TEXT/HTML; charset=utf-8"),
    ("drawing.svg", "image/svg+xml"),
    ("feed.xml", "text/xml"),
    ("doc.xhtml", "application/xhtml+xml"),
    ("app.js", "application/javascript"),
    ("app.mjs", "text/javascript"),
    ("movie.swf", "application/x-shockwave-flash"),
    ("odd.bin", "not a type"),
])
def test_a_script_someone_uploaded_is_downloaded_not_run(realm, name, declared):
    url = share(realm, name, declared)
    # WHEN another member opens the link
    answer = open_as(realm.admin, url)
    # THEN the browser saves it: an attachment of no type it could render
    assert answer.status_code == 200 and answer.content == SCRIPT
    disposition = answer.headers["Content-Disposition"]
    assert disposition.startswith("attachment;"), disposition
    assert f'filename="{url.rsplit("/", 1)[1]}"' in disposition
    assert answer.headers["Content-Type"] == "application/octet-stream"


@pytest.mark.parametrize("name, declared, served", [
    ("photo.png", "image/png", "image/png"),
    ("photo.jpg", "image/JPEG", "image/jpeg"),
    ("report.pdf", "application/pdf", "application/pdf"),
    ("clip.mp4", "video/mp4", "video/mp4"),
    ("notes.txt", "text/plain; charset=iso-8859-1", "text/plain; charset=iso-8859-1"),
    ("notes.txt", "text/plain", "text/plain"),
])
def test_images_and_documents_on_the_list_are_shown_inline(realm, name, declared, served):
    url = share(realm, name, declared, b"\x89PNG not really")
    answer = open_as(realm.admin, url)
    assert answer.headers["Content-Disposition"].startswith("inline;")
    assert answer.headers["Content-Type"] == served


@pytest.mark.parametrize("name, declared, stored", [
    ("x.png", 'image/png"><script>', "application/octet-stream"),
    ("y.png", "image/" + "p" * 200, "application/octet-stream"),
    ("z.txt", "Text/Plain; Charset=UTF-8", "text/plain; charset=utf-8"),
    ("w.png", "image/png; name=w.png", "image/png"),
    ("page.html", "", "text/html"),   # no type: as the name implies, as the reference
    ("photo.png", "", "image/png"),
])
def test_the_declared_type_is_stored_normalized(realm, name, declared, stored):
    url = share(realm, name, declared)
    path_id = url.removeprefix("/user_uploads/")
    assert Attachment.get(realm.realm_id, path_id).content_type == stored
